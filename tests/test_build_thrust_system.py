"""Thrust's CUDA device system, chosen by a build file or a source, becomes rocThrust's HIP one.

The premise is checked against rocThrust 7.2.4: with the CUDA system a Thrust include fails
for gfx942 (its CUDA backend needs CUB), with the HIP system it compiles.
"""

from __future__ import annotations

from _build import converted
from _convert import hip
from _units import assert_nvcc_builds

# High-Performance-BVH-Builder's CMakeLists.txt (compile round 43)
CMAKE = """target_compile_definitions(core PRIVATE
        THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA  # not THRUST_DEVICE_SYSTEM_CUDA here
)
"""
SEQUENCE = """#include <thrust/device_vector.h>
#include <thrust/sequence.h>
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
constexpr bool kGpu = true;
#endif
int main() {
  thrust::device_vector<int> v(8);
  thrust::sequence(v.begin(), v.end());
  return v[3] != 3 || !kGpu;
}
"""


def test_the_build_files_cuda_device_system_becomes_hips():
    out = converted("cmake", CMAKE)
    assert "THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP  # not THRUST_DEVICE_SYSTEM_CUDA" in out
    make = converted("make", "NVCCFLAGS += -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA\n")
    assert "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP" in make


def test_a_source_chosen_for_the_hip_system_compiles(nvcc, gfx942_check, tmp_path):
    cu = tmp_path / "seq.cu"
    chosen = "#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_CUDA\n" + SEQUENCE
    cu.write_text(chosen)
    assert_nvcc_builds(nvcc, [cu], [], tmp_path)
    out = hip(chosen)
    assert "#define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_HIP" in out
    assert "#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_HIP" in out
    port = tmp_path / "seq.hip"
    port.write_text(out)
    proc = gfx942_check(port)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the premise: rocThrust's CUDA system does not build for AMD
    port.write_text(
        out.replace("SYSTEM THRUST_DEVICE_SYSTEM_HIP", "SYSTEM THRUST_DEVICE_SYSTEM_CUDA")
    )
    assert "file not found" in gfx942_check(port).stderr
