"""What the HIP/AMD build defines: the macros it is known to define or not, and the names
whose spelling says so (a project's own HIP switch, a feature named after an NVIDIA
architecture), for ``conditions`` to decide which branches HIP compiles."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from .cuda_release import REFERENCE_CUDA, macro_values

REFERENCE_ROCM = (7, 2, 4)  # the release the mapping tables describe
REFERENCE_HIP = (7, 2, 53211)  # its HIP: HIP_VERSION_MAJOR, _MINOR, _PATCH of hip_version.h
# the base names of HIP's runtime headers: a file that includes one is built by a HIP compiler
# as written
HIP_RUNTIME_HEADERS = frozenset({"hip_runtime.h", "hip_runtime_api.h"})
UNDEFINED = object()  # a macro known to be undefined in the HIP/AMD build
DEFINED = object()  # a macro known to be defined, with a value the evaluator does not know

# What a HIP-Clang compile for AMD GPUs defines (HIP porting guide, "Compiler defines"), plus
# the switches of ported projects that ``hip_switch`` does not recognise by name (ggml's
# ``GGML_USE_HIPBLAS``), plus the CUDA version macros at the values ``convert`` writes in their
# place (``cuda_release``): the branch a version gate drops is never compiled by the converted
# code.  hip-clang never defines ``__CUDA_ARCH__``, so a capability gate's branch is dead too
# (HZ501 reports the gate: fixing it, for AMD, brings the branch back under the rules); a pure
# device-pass test (``#ifdef __CUDA_ARCH__``) is not, as ``convert`` makes it test
# ``__HIP_DEVICE_COMPILE__``.
HIP_BUILD: Mapping[str, object] = {
    "__HIP_PLATFORM_AMD__": 1,
    # HIP 6.0 removed the HCC spelling: neither clang-19 nor ROCm 7.2.4's headers define it, so
    # the `#ifndef __HIP_PLATFORM_HCC__` branch of an older port is what ROCm 7 compiles
    # (FlexFlow's `__shfl_sync(mask, ...)` wrappers with `unsigned mask`, round 29)
    "__HIP_PLATFORM_HCC__": UNDEFINED,
    "__HIPCC__": 1,
    "__HIP__": 1,
    "__HIP_ROCclr__": 1,
    "__HIP_PLATFORM_NVIDIA__": UNDEFINED,
    "__HIP_PLATFORM_NVCC__": UNDEFINED,
    "__NVCC__": UNDEFINED,
    "__CUDA_ARCH_LIST__": UNDEFINED,
    "__CUDA_ARCH__": UNDEFINED,
    # nvcc's feature macros and cuda_fp*.h's type switches: no ROCm 7.2.4 header defines them
    **dict.fromkeys(
        (
            "__CUDA_ARCH_HAS_FEATURE__",
            "__CUDA_ARCH_SPECIFIC__",
            "__CUDA_ARCH_FAMILY_SPECIFIC__",
            "__CUDA_FP16_TYPES_EXIST__",
            "__CUDA_BF16_TYPES_EXIST__",
            "__CUDA_FP8_TYPES_EXIST__",
            "__CUDA_FP6_TYPES_EXIST__",
            "__CUDA_FP4_TYPES_EXIST__",
        ),
        UNDEFINED,
    ),
    "__HIP_DEVICE_COMPILE__": None,  # defined in the device pass only: both passes compile
    # the version macros of the ROCm release the tables describe (hip_version.h,
    # rocm_version.h and PyTorch's TORCH_HIP_VERSION of ROCm 7.2.4): cupy's `#if
    # !defined(__HIPCC__) || HIP_VERSION < 40400000` atomics are no HIP code (round 20: 4
    # false HZ318); another --target-rocm does not change which branches the rules read
    "HIP_VERSION": REFERENCE_HIP[0] * 10000000 + REFERENCE_HIP[1] * 100000 + REFERENCE_HIP[2],
    "HIP_VERSION_MAJOR": REFERENCE_HIP[0],
    "HIP_VERSION_MINOR": REFERENCE_HIP[1],
    "TORCH_HIP_VERSION": REFERENCE_HIP[0] * 100 + REFERENCE_HIP[1],
    "ROCM_VERSION": REFERENCE_ROCM[0] * 10000 + REFERENCE_ROCM[1] * 100 + REFERENCE_ROCM[2],
    "__HIP_PLATFORM_ROCM__": 1,
    "GGML_USE_HIPBLAS": 1,
    "GGML_USE_MUSA": UNDEFINED,
    "__CUDA__": UNDEFINED,  # clang's CUDA language mode; HIP mode defines __HIP__ instead
    # neither HIP-Clang nor a ROCm 7.2.4 header defines it (the device pass has __gfx942__):
    # relion's `#if !defined(__HIP_ARCH__) || __HIP_ARCH__ != gfx906` takes its empty first
    # branch, so the atomicAdd in the `#else` is no HIP code (round 28, a false HZ318)
    "__HIP_ARCH__": UNDEFINED,
    # only Visual Studio's IntelliSense parser defines it: ccminer's `#ifdef __INTELLISENSE__`
    # stubs (`#define __CUDA_ARCH__ 500`, fake texture reads) are compiled by no build
    "__INTELLISENSE__": UNDEFINED,
    # the build files' conversion removes -DTHRUST_CUB_WRAPPED_NAMESPACE (HB109: rocThrust
    # 7.2.4 does not build with it), so the HIP build never wraps Thrust: rmm's `#ifdef
    # THRUST_WRAPPED_NAMESPACE` block is no HIP code (round 26, a false HZ323)
    "THRUST_CUB_WRAPPED_NAMESPACE": UNDEFINED,
    "THRUST_WRAPPED_NAMESPACE": UNDEFINED,
    **macro_values(REFERENCE_CUDA),
    # the CUDA libraries' version macros: no ROCm 7.2.4 header defines them (hipBLAS, hipSPARSE,
    # hipFFT, hipRAND, hipSOLVER, hipCUB and MIOpen have their own), and convert keeps them
    **dict.fromkeys(
        (
            "CUBLAS_VERSION",
            "CUBLAS_VER_MAJOR",
            "CUSPARSE_VERSION",
            "CUSPARSE_VER_MAJOR",
            "CUFFT_VERSION",
            "CURAND_VERSION",
            "CUSOLVER_VERSION",
            "CUDNN_VERSION",
            "CUDNN_MAJOR",
            "CUB_VERSION",
        ),
        UNDEFINED,
    ),
}


# The two passes of a HIP compile for gfx942 (MI300X): the device pass defines the target's
# macros, the host pass none of them.  A branch is dead only where both passes skip it: in
# PyTorch's C10_WARP_SIZE and FBGEMM's kWarpSize, `#elif defined(__GFX9__) 64 #elif
# defined(__HIP_DEVICE_COMPILE__) 32 #else 64` never compiles its 32 for gfx942 (round 23).
_TARGET_MACROS = ("__HIP_DEVICE_COMPILE__", "__GFX9__", "__gfx942__", "__AMDGCN__", "__AMDGPU__")
DEVICE_PASS: Mapping[str, object] = dict.fromkeys(_TARGET_MACROS, 1)
HOST_PASS: Mapping[str, object] = dict.fromkeys(_TARGET_MACROS, UNDEFINED)


# What the project's CUDA build surely does not define: HIP's own macros.  Its other macros
# stay unknown (``__CUDACC__`` too: the host compiler builds its .cpp files), and a project's
# HIP switch (``hip_switch``) is undefined there.
CUDA_BUILD: Mapping[str, object] = {
    **{name: UNDEFINED for name, value in HIP_BUILD.items() if value == 1},
    **dict.fromkeys(
        (
            "HIP_VERSION",
            "HIP_VERSION_MAJOR",
            "HIP_VERSION_MINOR",
            "TORCH_HIP_VERSION",
            "ROCM_VERSION",
            "__HIP_PLATFORM_HCC__",
        ),
        UNDEFINED,
    ),
    "__HIP_DEVICE_COMPILE__": UNDEFINED,
    "__INTELLISENSE__": UNDEFINED,
}


# The macros a HIP compiler or HIP's headers define.  A file that tests one of them itself was
# written for both compilers, and there `__CUDACC__` names NVIDIA's alone (MMseqs2's libmarv
# builds its `.cu` files with hipcc: its `#ifdef __CUDACC__` atomics for `uint64_t`, which HIP
# declares already, are no HIP code; round 36, 7 false findings): it stays as written and HIP
# leaves it undefined (``conditions``, ``rewrite.identifiers``).
HIP_COMPILER_MACROS = frozenset(
    {
        "__HIPCC__",
        "__HIP__",
        "__HIP_PLATFORM_AMD__",
        "__HIP_PLATFORM_HCC__",
        "__HIP_PLATFORM_NVIDIA__",
        "__HIP_PLATFORM_NVCC__",
        "__HIP_DEVICE_COMPILE__",
    }
)
NVIDIA_COMPILER_MACRO = "__CUDACC__"


# Feature switches named after an NVIDIA architecture (ggml's TURING_MMA_AVAILABLE, a project's
# HOPPER_TMA or NV_PTX_...) are defined from __CUDA_ARCH__ tests that HIP never passes, and the
# RDNA target macros (__gfx1100__) are not defined when compiling for Instinct (gfx9): both are
# taken as undefined unless a -D flag or a definition HIP compiles says otherwise.
NOT_FOR_INSTINCT = re.compile(
    r"(?:^|_)(?:VOLTA|TURING|AMPERE|ADA|HOPPER|BLACKWELL|PASCAL|MAXWELL|KEPLER|NVIDIA|PTX|"
    r"CP_ASYNC|TMA|WGMMA|SM\d+)(?:_|$)"
    r"|^__gfx1\d{3}__$"  # RDNA (wave32) targets: not compiled for an Instinct GPU
)


# A project's own HIP/ROCm switch, the macro its HIP build defines and its CUDA build does not:
# PyTorch's USE_ROCM, ggml's GGML_USE_HIP, faiss' USE_AMD_ROCM, bitsandbytes' BNB_HIP,
# CTranslate2's CT2_USE_HIP, WITH_ROCM, convert --portable's HIP_COMPAT_HIP.  Recognised by its
# words (split at "_"): the last is HIP or ROCM, or one of those followed by BUILD, BACKEND or
# ENABLED.  A name with a word after it is about something else (HIP_VERSION, HIPBLAS_V2,
# __HIP_DEVICE_COMPILE__, a feature toggle such as BNB_HIP_BF16_VDOT2), and one with a word
# that negates or names another vendor (NO_HIP, DISABLE_ROCM, CUDA_OR_HIP) is not the switch.
_SWITCH_WORDS = frozenset({"HIP", "ROCM"})
_SWITCH_TAILS = frozenset({"BUILD", "BACKEND", "ENABLED"})
# rocThrust's `THRUST_DEVICE_SYSTEM_HIP` is a value (5) of its own, not a switch
_NOT_A_SWITCH = frozenset(
    {"NO", "NOT", "NON", "DISABLE", "DISABLED", "WITHOUT", "SKIP", "OR", "CUDA", "NV", "NVIDIA"}
    | {"THRUST"}
)


@functools.lru_cache(maxsize=4096)  # names of directive lines: few per project
def hip_switch(name: str) -> bool:
    """Whether ``name`` is spelled as a project's HIP/ROCm switch (see above), which the HIP
    build defines as 1 unless a ``-D`` flag or the file's own definition says otherwise."""
    words = name.strip("_").upper().split("_")
    if len(words) > 1 and words[-1] in _SWITCH_TAILS:
        words.pop()
    return words[-1] in _SWITCH_WORDS and not _NOT_A_SWITCH.intersection(words)
