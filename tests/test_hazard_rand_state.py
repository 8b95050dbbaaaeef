"""HZ348: cuRAND states in __device__/__shared__ variables, which nvcc accepts and HIP rejects
(taichi's `__device__ curandState_t states[...]`, compile round 32, failed with no finding).
The premise is checked against ROCm 7.2.4: the converted declarations fail for gfx942, and the
raw-storage form the rule page suggests compiles."""

from __future__ import annotations

from pathlib import Path

from _convert import hip
from _units import assert_nvcc_builds
from test_hazard_common import only

STATES = """#include <curand_kernel.h>
__device__ curandState_t states[1024];
__device__ curandStatePhilox4_32_10_t counters[4];
__device__ curandState* pointers;
__device__ curandState seeded(unsigned s) { curandState st; curand_init(s, 0, 0, &st); return st; }
__global__ void draw(float* out, curandState* from) {
  __shared__ curandState block[64];
  extern __shared__ curandStateMRG32k3a dynamic[];
  curandState local = from[threadIdx.x];
  block[threadIdx.x] = states[threadIdx.x];
  out[threadIdx.x] = curand_uniform(&local) + curand_uniform(&block[threadIdx.x]);
}
"""

RAW = """#include <hip/hip_runtime.h>
#include <hiprand/hiprand_kernel.h>
__global__ void draw(float* out) {
  alignas(hiprandState_t) __shared__ unsigned char raw[64 * sizeof(hiprandState_t)];
  hiprandState_t* block = reinterpret_cast<hiprandState_t*>(raw);
  hiprand_init(7, threadIdx.x, 0, &block[threadIdx.x]);
  out[threadIdx.x] = hiprand_uniform(&block[threadIdx.x]);
}
"""


def test_states_in_device_memory_are_reported(nvcc, nvidia_include, tmp_path: Path) -> None:
    (tmp_path / "s.cu").write_text(STATES)
    assert_nvcc_builds(nvcc, [tmp_path / "s.cu"], [f"-I{nvidia_include('curand')}"], tmp_path)
    found = only("HZ348", STATES)
    assert [f.line for f in found] == [2, 3, 7]
    assert "`__shared__ curandState block`" in found[2].message
    # the converted names too (a line later: the HIP runtime's include comes first)
    assert [f.line for f in only("HZ348", hip(STATES), "s.hip")] == [3, 4, 8]


def test_premise_hip_rejects_them_and_raw_storage_compiles(gfx942_check, tmp_path: Path) -> None:
    converted = tmp_path / "s.hip"
    text = hip(STATES)
    converted.write_text(text)
    declared = [
        n for n, line in enumerate(text.splitlines(), 1) if line.startswith(("__d", "  __s"))
    ]
    proc = gfx942_check(converted)
    lines = {
        int(line.split(":")[1])
        for line in proc.stderr.splitlines()
        if line.startswith(str(converted)) and "error:" in line
    }
    # the three declarations of device memory; not the pointer or the function (lines 4-5)
    assert lines == {declared[0], declared[1], declared[4]}, proc.stderr[-2000:]
    (tmp_path / "raw.hip").write_text(RAW)
    proc = gfx942_check(tmp_path / "raw.hip")
    assert proc.returncode == 0, proc.stderr[-2000:]
