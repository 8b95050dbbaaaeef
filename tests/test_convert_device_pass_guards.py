"""`#ifdef __CUDA_ARCH__` device/host splits keep their meaning on HIP (rewrite/device_pass_guards).

hip-clang never defines __CUDA_ARCH__; the converted test asks for __HIP_DEVICE_COMPILE__ too,
so the AMD device pass takes the device branch (fixtures/units/device_pass.cu compiles for
gfx942 only so).  Capability gates stay, and HZ501 reports them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _convert import body, hip
from _units import assert_ported_builds
from test_hazard_common import only

EITHER = "defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)"
NEITHER = "!defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)"


@pytest.mark.parametrize(
    ("cuda", "converted"),
    [
        ("#ifdef __CUDA_ARCH__\n", f"#if {EITHER}\n"),
        (
            "#ifndef __CUDA_ARCH__\n",
            "#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)\n",
        ),
        (
            "#if defined(__CUDA_ARCH__) && !defined(NDEBUG)\n",
            f"#if ({EITHER}) && !defined(NDEBUG)\n",
        ),
        ("#if !defined __CUDA_ARCH__\n", f"#if !({EITHER})\n"),
        ("#if 0\n#elif defined(__CUDA_ARCH__)\n", f"#if 0\n#elif ({EITHER})\n"),
    ],
)
def test_device_pass_tests_ask_for_either_device_pass(cuda, converted):
    src = cuda + "int a;\n#endif\n"
    out = body(src)
    assert out == converted + "int a;\n#endif\n"
    assert only("HZ501", src) == []
    assert body(out) == out  # converting twice equals converting once


@pytest.mark.parametrize(
    "gate",
    [
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n",
        "#if __CUDA_ARCH__\n",
        "#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__) || X\n",
    ],
)
def test_capability_gates_and_hip_aware_tests_stay(gate):
    src = gate + "int a;\n#endif\n"
    assert body(src) == src


def test_a_capability_gate_is_reported_at_its_comparison():
    (f,) = only("HZ501", "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\nint a;\n#endif\n")
    assert f.column == 31 and "capability gate `__CUDA_ARCH__ >= 800`" in f.message


def test_the_fixture_s_kernel_callee_takes_the_device_branch():
    out = hip((Path(__file__).parent / "fixtures" / "units" / "device_pass.cu").read_text())
    assert f"#if {EITHER}\n#include <hip/hip_math_constants.h>" in out
    guard = "#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)\n  if (n < 0) throw"
    assert guard in out


def test_a_device_branch_that_reads_cuda_arch_as_a_value_is_left_to_hz501():
    """candle (ggml-derived): `#ifdef __CUDA_ARCH__` / `#define NO_DEVICE_CODE
    no_device_code(..., __CUDA_ARCH__, ...)`: made a test of __HIP_DEVICE_COMPILE__, HIP's
    device pass compiled an undeclared name; the test stays, and HZ501 names the value."""
    src = """#ifdef __CUDA_ARCH__
#define NO_DEVICE_CODE no_device_code(__FILE__, __LINE__, __CUDA_ARCH__)
#else
#define NO_DEVICE_CODE
#endif
#ifdef __CUDA_ARCH__
#include <math_constants.h>
#endif
"""
    out = hip(src)
    assert out.count("#ifdef __CUDA_ARCH__") == 1  # the first stays
    assert "#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)" in out  # the second
    [found] = only("HZ501", src)
    assert found.line == 2 and "used as a value in a macro" in found.message


def test_a_device_decoration_macro_decorates_both_hip_passes():
    """InfiniTAM's `_CPU_AND_GPU_CODE_` (issue 23 round 29): `__device__` in nvcc's device
    pass, nothing in its host pass, whose kernel bodies nvcc never checks; hip-clang's host pass
    does, so the macro asks for any HIP compilation and makes the functions host and device.
    A device branch that defines anything else, or a negated test, keeps the device-pass test."""
    out = hip((Path(__file__).parent / "fixtures" / "units" / "decoration_macros.cu").read_text())
    any_hip = "defined(__HIP__) || defined(__CUDA_ARCH__)"
    assert (
        f"#if defined(__HIPCC__) && ({any_hip})\n#define _CPU_AND_GPU_CODE_ __host__ __device__"
        in out
    )
    assert f"#if {any_hip}\n#define CONSTANT_ __constant__\n" in out
    assert hip(out) == out  # converting twice equals converting once
    other = "#ifdef __CUDA_ARCH__\n#define SCALE 2\n#else\n#define SCALE 1\n#endif\n"
    assert f"#if {EITHER}\n#define SCALE 2" in hip(other)
    negated = "#ifndef __CUDA_ARCH__\n#define DEV\n#else\n#define DEV __device__\n#endif\n"
    assert "#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)\n#define DEV\n" in hip(
        negated
    )


ARCH_DEFAULT = """#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 0
#endif
__global__ void get_arch(unsigned* res) { res[0] = __CUDA_ARCH__; }
#ifndef __CUDA_ARCH__
__host__ void only_host() {}
#endif
"""


def test_a_negated_test_that_defines_cuda_arch_is_a_default_not_a_pass_split(
    nvcc, gfx942_check, tmp_path
):
    """mfaktc's cuda_utils.cu (compile round 34): `#define __CUDA_ARCH__ 0` where the name is
    undefined, for a kernel that reads it.  Tested by pass, HIP's device pass leaves the name
    undefined and the kernel does not compile; left alone, both passes read the default."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "arch_default", ARCH_DEFAULT)
    out = hip(ARCH_DEFAULT)
    assert out.count("#ifndef __CUDA_ARCH__") == 1  # the default's test stays
    assert f"#if {NEITHER}\n__host__ void only_host" in out  # the decoy: a split by pass


# OWL's and cudaKDTree's decorations (issue 23 round 35): two macros per branch, `__both__`
# made of them, and a kernel that calls a `__both__` helper
OWL_DECORATIONS = """#include <cstdint>
#if defined(__CUDA_ARCH__)
# define __owl_device   __device__
# define __owl_host     __host__
#else
# define __owl_device   /* ignore */
# define __owl_host     /* ignore */
#endif
# define __both__   __owl_host __owl_device
inline __both__ int parent(int node) { return (node - 1) / 2; }
__global__ void tags(uint32_t* tag, int n) {
  const int gid = threadIdx.x + blockIdx.x * blockDim.x;
  if (gid < n) tag[gid] = parent(gid);
}
int host_parent(int node) { return parent(node); }
"""


def test_a_pair_of_decoration_macros_decorates_both_hip_passes(nvcc, gfx942_check, tmp_path):
    """Each branch defines the same macros in the same order, the device one as decorations:
    the test asks for any HIP compilation, and the kernel's helper is host and device in both
    passes; one branch that defines something else keeps the device-pass test."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", OWL_DECORATIONS)
    out = hip(OWL_DECORATIONS)
    assert "#if (defined(__HIP__) || defined(__CUDA_ARCH__))\n" in out
    assert "# define __owl_device   __host__ __device__\n" in out
    assert hip(out) == out
    other = OWL_DECORATIONS.replace("# define __owl_host     __host__", "# define LEVELS 2")
    assert f"#if ({EITHER})\n" in hip(other)


# MMseqs2's libmarv (compile round 35), built with hipcc: the file tests HIP's compiler
# itself, so its `#ifdef __CUDA_ARCH__` means NVIDIA's device pass
DUAL_SOURCE_DEVICE_PASS = """#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
struct ClampScores {
#if defined(__CUDACC__) || defined(__HIPCC__)
  __device__
#endif
  unsigned int operator()(const unsigned int& packed4) {
#ifdef __CUDA_ARCH__
    return __vminu4(packed4, 0x14141414u);
#else
    unsigned int out = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned int b = (packed4 >> (8 * i)) & 0xff;
      out |= (b < 20 ? b : 20) << (8 * i);
    }
    return out;
#endif
  }
};
__global__ void clamp(unsigned int* v) { v[threadIdx.x] = ClampScores{}(v[threadIdx.x]); }
"""


def test_a_file_that_tests_hips_compiler_keeps_its_device_pass_tests(nvcc, gfx942_check, tmp_path):
    """Its HIP build takes the `#else` in both passes, as the project wrote it; where the
    file does not test HIP's compiler, the test asks for either device pass, and HIP's
    device pass then names the SIMD intrinsic ROCm 7.2.4 does not declare."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", DUAL_SOURCE_DEVICE_PASS)
    assert "#ifdef __CUDA_ARCH__\n" in hip(DUAL_SOURCE_DEVICE_PASS)
    cuda_only = DUAL_SOURCE_DEVICE_PASS.replace(
        "#if defined(__HIPCC__)\n#include <hip/hip_runtime.h>\n#endif\n", ""
    ).replace("defined(__CUDACC__) || defined(__HIPCC__)", "defined(__CUDACC__)")
    assert f"#if {EITHER}\n" in hip(cuda_only)
    (tmp_path / "b.hip").write_text(hip(cuda_only))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0
