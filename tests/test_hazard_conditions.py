"""The HIP/AMD build's view of preprocessor branches: which code HIP never compiles."""

from __future__ import annotations

import pytest

from _convert import ctx
from hipify_py.frontend.conditions import hip_inactive
from hipify_py.frontend.lexer import lex
from hipify_py.pipeline import check_result
from test_hazard_common import only, rules_of


def inactive_words(src: str, defines: tuple[str, ...] = ()) -> list[str]:
    """The marker words (identifiers in upper case starting with M) HIP never compiles."""
    lexed = lex(src)
    inactive = hip_inactive(lexed.tokens, lexed.directives, defines)
    return [
        t.text
        for t in lexed.tokens
        if t.text.startswith("M")
        and t.text.isupper()
        and not t.in_directive
        and t.start in inactive
    ]


@pytest.mark.parametrize(
    ("src", "dead"),
    [
        ("#if !defined(__HIP_PLATFORM_AMD__)\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#ifndef USE_ROCM\nMA\n#endif\n", ["MA"]),
        ("#ifdef __HIPCC__\nMA\n#else\nMB\n#endif\n", ["MB"]),
        (
            "#if defined(__HIP__) && !defined(__HIP_PLATFORM_NVIDIA__)\nMA\n#else\nMB\n#endif\n",
            ["MB"],
        ),
        ("#if 0\nMA\n#endif\n", ["MA"]),
        # unknown macros keep the branch checked, whatever the other operand
        ("#if defined(USE_ROCM) && MY_VERSION >= 60000\nMA\n#else\nMB\n#endif\n", []),
        # HIP's and ROCm's version macros have the values of ROCm 7.2.4 (cupy's atomics for
        # releases before 4.5, round 20)
        ("#if defined(USE_ROCM) && ROCM_VERSION >= 60000\nMA\n#else\nMB\n#endif\n", ["MB"]),
        ("#if !defined(__HIPCC__) || HIP_VERSION < 40400000\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if TORCH_HIP_VERSION >= 702 && HIP_VERSION_MAJOR < 8\nMA\n#else\nMB\n#endif\n", ["MB"]),
        ("#ifdef MY_SWITCH\nMA\n#else\nMB\n#endif\n", []),
        # hip-clang never defines __CUDA_ARCH__: a capability gate's branch is dead (HZ501
        # reports the gate); a device-pass test is not (convert makes it a HIP one)
        ("#if __CUDA_ARCH__ >= 800\nMA\n#endif\n", ["MA"]),
        ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#ifdef __CUDA_ARCH__\nMA\n#else\nMB\n#endif\n", []),
        ("#if defined(__CUDA_ARCH__) && defined(X)\nMA\n#endif\n", []),
        # the CUDA version macros have the values convert writes (CUDA 12.0); the CUDA
        # libraries' version macros are defined by no ROCm header
        ("#if CUDA_VERSION < 9000\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\nMA\n#endif\n", ["MA"]),
        # nccl's reduce_kernel.h: fp8 paths behind cuda_fp8.h's switch
        ("#if defined(__CUDA_FP8_TYPES_EXIST__)\nMA\n#endif\n", ["MA"]),
        # short-circuit: the HIP test decides
        ("#if !defined(USE_ROCM) && CUDART_VERSION >= 12000\nMA\n#endif\n", ["MA"]),
        ("#if defined(USE_ROCM) || CUDA_VERSION >= 12000\nMA\n#else\nMB\n#endif\n", ["MB"]),
        # #elif chains: once a branch is surely taken, the rest are dead
        (
            "#if defined(__HIP_PLATFORM_AMD__)\nMA\n#elif defined(X)\nMB\n#else\nMC\n#endif\n",
            ["MB", "MC"],
        ),
        # a name tested alone right before the HIP switch is the CUDA build's switch:
        # deepmd-kit's `#if GOOGLE_CUDA` / `#elif TENSORFLOW_USE_ROCM` (round 28), in every
        # test of the file; a condition of more than one name says nothing
        ("#if defined(X)\nMA\n#elif defined(USE_ROCM)\nMB\n#else\nMC\n#endif\n", ["MA", "MC"]),
        ("#if X\nMA\n#elif TENSORFLOW_USE_ROCM\nMB\n#endif\n#ifdef X\nMC\n#endif\n", ["MA", "MC"]),
        ("#if X && Y\nMA\n#elif defined(USE_ROCM)\nMB\n#else\nMC\n#endif\n", ["MC"]),
        # or names joined by `||`: FlexFlow's `defined(FF_USE_CUDA) || defined(FF_USE_HIP_CUDA)`
        # before `#elif defined(FF_USE_HIP_ROCM)` (round 29)
        (
            "#if defined(X) || defined(Y)\nMA\n#elif defined(USE_ROCM)\nMB\n#else\nMC\n#endif\n"
            "#ifdef Y\nMD\n#endif\n",
            ["MA", "MC", "MD"],
        ),
        ("#if defined(X) || !defined(Y)\nMA\n#elif defined(USE_ROCM)\nMB\n#endif\n", []),
        # HIP 6.0 removed __HIP_PLATFORM_HCC__: ROCm 7 compiles an old port's CUDA branch
        ("#ifdef __HIP_PLATFORM_HCC__\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if USE_ROCM\nMA\n#elif X\nMB\n#endif\n#if X\nMC\n#endif\n", ["MB"]),
        # relion: HIP-Clang defines no __HIP_ARCH__ (round 28)
        ("#if !defined(__HIP_ARCH__) || __HIP_ARCH__ != gfx906\nMA\n#else\nMB\n#endif\n", ["MB"]),
        # nesting: everything inside a dead branch is dead
        ("#ifndef USE_ROCM\n#if X\nMA\n#else\nMB\n#endif\n#endif\nMC\n", ["MA", "MB"]),
        # definitions made where HIP surely goes are known afterwards
        ("#ifdef __HIPCC__\n#define MY_HIP 1\n#endif\n#if !MY_HIP\nMA\n#endif\n", ["MA"]),
        # a switch defined only in CUDA-only code, and NVIDIA-architecture feature switches
        ("#ifndef USE_ROCM\n#define FAST_PATH\n#endif\n#ifdef FAST_PATH\nMA\n#endif\n", ["MA"]),
        (
            "#ifdef TURING_MMA_AVAILABLE\nMA\n#elif defined(AMD_MFMA_AVAILABLE)\nMB\n#endif\n",
            ["MA"],
        ),
        ("#if defined(__gfx1100__)\nMA\n#elif defined(__gfx942__)\nMB\n#endif\n", ["MA"]),
        # both the host and the device pass are compiled
        ("#ifdef __HIP_DEVICE_COMPILE__\nMA\n#else\nMB\n#endif\n", []),
        # a branch is dead where both passes skip it: gfx942's device pass defines __GFX9__,
        # the host pass takes the #else (FBGEMM's kWarpSize, PyTorch's C10_WARP_SIZE)
        (
            "#if !defined(USE_ROCM)\nMA\n#elif defined(__GFX9__)\nMB\n"
            "#elif defined(__HIP_DEVICE_COMPILE__)\nMC\n#else\nMD\n#endif\n",
            ["MA", "MC"],
        ),
        (
            "#if defined(__gfx942__) || !defined(__HIP_DEVICE_COMPILE__)\nMA\n#else\nMB\n#endif\n",
            ["MB"],
        ),
        ("#if defined(__gfx90a__)\nMA\n#else\nMB\n#endif\n", []),
        # C++'s alternative operator spellings (DeepGEMM, round 23)
        ("#if defined(__CUDA_ARCH__) and (__CUDA_ARCH__ >= 1000)\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if CUDART_VERSION >= 12080 and defined(X)\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if not defined(USE_ROCM) or CUDA_VERSION >= 12080\nMA\n#endif\n", ["MA"]),
        ("#if defined(X) and defined(Y)\nMA\n#endif\n", []),
    ],
)
def test_branches_the_hip_build_never_compiles(src, dead):
    assert inactive_words(src) == dead


def test_user_defines_take_precedence():
    src = "#ifdef USE_FAST\nMA\n#else\nMB\n#endif\n#ifndef USE_ROCM\nMC\n#endif\n"
    assert inactive_words(src, ("USE_FAST",)) == ["MB", "MC"]
    assert inactive_words(src, ("USE_ROCM=0",)) == ["MC"]  # defined, whatever its value


def test_unbalanced_directives_do_not_raise():
    assert inactive_words("#else\nMA\n#endif\n#ifndef USE_ROCM\nMB\n") == ["MB"]


def test_no_hazards_reported_in_code_hip_never_compiles():
    body = "__global__ void k(int* o) {{ o[threadIdx.x & 31] = warpSize; }}\n"
    cuda_only = "#ifndef USE_ROCM\n" + body.format() + "#endif\n"
    hip_else = "#ifdef __HIP_PLATFORM_AMD__\n#else\n" + body.format() + "#endif\n"
    both = "#if defined(USE_ROCM) && ROCM_VERSION > 0\n" + body.format() + "#endif\n"
    assert rules_of(cuda_only) == []
    assert rules_of(hip_else) == []
    assert rules_of(both) == ["HZ101"]


def test_defines_on_the_command_line_reach_the_rules():
    src = (
        "#ifndef MY_AMD_BUILD\n"
        "__global__ void k(int* o) { o[threadIdx.x & 31] = warpSize; }\n#endif\n"
    )
    assert rules_of(src) == ["HZ101"]
    assert rules_of(src, defines=("MY_AMD_BUILD",)) == []


def test_version_gates_decided_by_a_hip_test_are_not_reported():
    src = "#if !defined(USE_ROCM) && CUDA_VERSION >= 12000\n#endif\n"
    assert rules_of(src) == []


def test_deeply_nested_condition_is_unknown_not_a_crash():
    body = '__global__ void k(int* o) { asm volatile("membar.gl;"); }'
    src = "#if" + "(" * 400 + f"FOO\n{body}\n#endif\n"
    result = check_result(src, "m.cu", ctx())
    assert result.rule_errors == []
    assert [f.rule for f in result.findings] == ["HZ310"]  # unknown condition: still checked


@pytest.mark.parametrize(
    ("src", "dead"),
    [
        # a project's own switch: defined (as 1) by its HIP build, whatever the project
        ("#if LIBX_HIP\nMA\n#else\nMB\n#endif\n", ["MB"]),
        ("#if !LIBX_USE_HIP\nMA\n#endif\n", ["MA"]),
        ("#ifndef WITH_ROCM\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#if defined(USE_HIP_BACKEND) && X\nMA\n#else\nMB\n#endif\n", []),
        ("#if !defined(ENABLE_HIP) && X\nMA\n#else\nMB\n#endif\n", ["MA"]),
        # ...unless the file or the command line says otherwise
        ("#define LIBX_HIP 0\n#if LIBX_HIP\nMA\n#else\nMB\n#endif\n", ["MA"]),
        ("#ifndef __HIPCC__\n#define LIBX_HIP 0\n#endif\n#if LIBX_HIP\nMA\n#endif\n", []),
        # decoys: a word after HIP (a version, a feature toggle, the device pass), a negation,
        # another vendor
        ("#if LIBX_HIP_VERSION >= 60000000\nMA\n#else\nMB\n#endif\n", []),
        ("#ifdef HIPBLAS_V2\nMA\n#else\nMB\n#endif\n", []),
        ("#if LIBX_HIP_BF16_DOT2\nMA\n#else\nMB\n#endif\n", []),
        ("#ifdef NO_HIP\nMA\n#else\nMB\n#endif\n", []),
        ("#ifndef DISABLE_ROCM\nMA\n#else\nMB\n#endif\n", []),
        ("#ifdef CUDA_OR_HIP\nMA\n#else\nMB\n#endif\n", []),
        ("#ifdef LIBX_CHIP\nMA\n#else\nMB\n#endif\n", []),
    ],
)
def test_a_projects_own_hip_switch_is_defined_in_the_hip_build(src, dead):
    assert inactive_words(src) == dead


def test_a_switch_set_to_zero_on_the_command_line_is_not_the_hip_build():
    assert inactive_words("#if LIBX_HIP\nMA\n#else\nMB\n#endif\n", ("LIBX_HIP=0",)) == ["MA"]


def test_no_hazards_in_the_cuda_branch_of_a_projects_hip_switch():
    mask = "__device__ int f(int v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    arch = "#define HAS_FP8 (__CUDA_ARCH__ >= 890)\n"
    src = "#if %s\n#define HAS_FP8 0\n#else\n" + mask + arch + "#endif\n"
    assert rules_of(src % "LIBX_HIP") == []
    # decoy: a feature toggle named after HIP decides nothing for the HIP build
    assert sorted(rules_of(src % "LIBX_HIP_FAST")) == ["HZ106", "HZ501"]


def test_intellisense_stubs_are_compiled_by_no_build():
    """ccminer: `#ifdef __INTELLISENSE__` defines __CUDA_ARCH__ for the editor; no compiler
    defines __INTELLISENSE__, so __CUDA_ARCH__ stays undefined on HIP and the branch for
    newer GPUs is dead; what `#ifndef __INTELLISENSE__` guards is compiled."""
    src = """#ifdef __INTELLISENSE__
#define __CUDA_ARCH__ 500
#endif
__global__
#if __CUDA_ARCH__ > 500
__launch_bounds__(32, 16)
#else
__launch_bounds__(64, 8)
#endif
void k(int* p) { p[0] = 1; }
#ifndef __INTELLISENSE__
__global__ void __launch_bounds__(32, 16) live(int* p) { p[0] = 1; }
#endif
"""
    assert [f.line for f in only("HZ204", src)] == [12]


def test_rocm7_defines_no_hcc_platform_macro(gfx942_check, tmp_path):
    """The premise of `__HIP_PLATFORM_HCC__` being undefined: neither pass of a gfx942 compile
    against ROCm 7.2.4's headers defines it, and both define `__HIP_PLATFORM_AMD__`."""
    probe = tmp_path / "probe.hip"
    probe.write_text(
        "#include <hip/hip_runtime.h>\n#ifdef __HIP_PLATFORM_HCC__\n#error HCC defined\n#endif\n"
        "#ifndef __HIP_PLATFORM_AMD__\n#error AMD not defined\n#endif\n"
    )
    proc = gfx942_check(probe)
    assert proc.returncode == 0, proc.stderr
