"""Declarations that let libclang parse CUDA (or HIP) without any SDK installed.

The PyPI libclang wheel ships no resource headers and users porting away from NVIDIA often have
no CUDA toolkit, so the hermetic parse blanks every ``#include`` and force-includes this stub:
the CUDA keywords as attributes, the built-in vector types and index variables, the launch
configuration hook clang lowers ``<<<...>>>`` into, and a declaration for each mapped API name
the file uses (built from the mapping tables, so unknown-identifier noise disappears).
The CUDA version macros (``CUDA_VERSION``, ``CUDART_VERSION``, ``__CUDACC_VER_MAJOR__``, ...)
have the values of ``frontend/cuda_release``, the values ``rewrite/version_gates`` writes into
the converted code, so ``--skip-inactive`` keeps the branches the converted gates select
(``-DCUDA_VERSION=...`` overrides one).  The cuBLAS and cuSPARSE version macros are those of
CUDA 12.6, the newest release the mapping tables describe.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..mappings import MappingIndex
from .cuda_release import VERSION_MACROS
from .lexer import KEYWORDS

BASE = r"""
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __CUDACC__ 1
#define __HIPCC__ 1
#define NULL 0
@VERSIONS@#ifndef CUSPARSE_VERSION
#define CUSPARSE_VERSION 12504
#endif
#ifndef CUBLAS_VERSION
#define CUBLAS_VERSION 120604
#endif
typedef decltype(sizeof(0)) size_t;
typedef decltype((char*)0 - (char*)0) ptrdiff_t;
typedef signed char int8_t; typedef unsigned char uint8_t;
typedef short int16_t; typedef unsigned short uint16_t;
typedef int int32_t; typedef unsigned int uint32_t;
typedef long long int64_t; typedef unsigned long long uint64_t;
typedef long intptr_t; typedef unsigned long uintptr_t;
#ifdef __cplusplus
namespace std {
using ::size_t; using ::ptrdiff_t; using ::int8_t; using ::uint8_t; using ::int16_t;
using ::uint16_t; using ::int32_t; using ::uint32_t; using ::int64_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t;
}
#endif
@VECTORS@
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1)
      : x(x), y(y), z(z) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
struct __hipify_index { unsigned int x, y, z; };
extern const __device__ __hipify_index threadIdx, blockIdx, blockDim, gridDim;
extern const __device__ int warpSize;
typedef struct CUstream_st* cudaStream_t;
typedef struct ihipStream_t* hipStream_t;
typedef int cudaError_t;
typedef int hipError_t;
extern "C" int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0,
                                           cudaStream_t stream = 0);
extern "C" int __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shmem, void* stream);
extern "C" int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t);
#define __syncthreads() __hipify_sync()
__device__ void __hipify_sync();
"""

_VECTOR_TYPES = (
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "float",
    "double",
)


def _vector_types() -> str:
    base = {
        "uchar": "unsigned char",
        "ushort": "unsigned short",
        "uint": "unsigned int",
        "ulong": "unsigned long",
        "longlong": "long long",
        "ulonglong": "unsigned long long",
    }
    out = []
    for name in _VECTOR_TYPES:
        scalar = base.get(name, name)
        out.append(f"struct {name}1 {{ {scalar} x; }};")
        out.append(f"struct {name}2 {{ {scalar} x, y; }};")
        out.append(f"struct {name}3 {{ {scalar} x, y, z; }};")
        out.append(f"struct alignas(16) {name}4 {{ {scalar} x, y, z, w; }};")
    return "\n".join(out) + "\n"


def _version_macros() -> str:
    return "".join(
        f"#ifndef {name}\n#define {name} {value}\n#endif\n"
        for name, value in VERSION_MACROS.items()
    )


_PRELUDE = BASE.replace("@VECTORS@", _vector_types()).replace("@VERSIONS@", _version_macros())
_ALREADY = KEYWORDS | frozenset(
    {
        "dim3",
        "uint3",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "warpSize",
        "cudaStream_t",
        "hipStream_t",
        "cudaError_t",
        "hipError_t",
        "cudaLaunchKernel",
        "__syncthreads",
    }
)


def _kind_of(name: str, mappings: MappingIndex) -> str | None:
    """Kind of a CUDA name, or of a HIP name (so HIP sources parse as cleanly as CUDA ones)."""
    entry = mappings.get(name)
    if entry is not None:
        return entry.kind
    named = mappings.by_hip(name)
    return named[-1].kind if named else None


def stub_for(names: Iterable[str], mappings: MappingIndex) -> str:
    """The prelude plus one permissive declaration per known API name in ``names``."""
    decls: list[str] = [_PRELUDE]
    for name in sorted(set(names) - _ALREADY):
        kind = _kind_of(name, mappings)
        if kind is None or name.startswith("__") and kind not in ("device_function", "function"):
            continue
        if kind in ("function", "device_function"):
            decls.append(f"__host__ __device__ int {name}(...);")
        elif kind == "type":
            decls.append(
                f"struct __hipify_{name} {{ int x, y, z, w; }}; typedef __hipify_{name} {name};"
            )
        elif kind == "enum":
            decls.append(f"constexpr int {name} = 0;")
        elif kind == "macro" and not name.startswith("__"):
            decls.append(f"constexpr int {name} = 0;")
    return "\n".join(decls) + "\n"
