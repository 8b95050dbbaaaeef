"""Definitions for CUDA device functions that ROCm 7.2.4 lacks, inserted into the file using them.

Real projects failed for want of a handful of small CUDA functions HIP does not declare (issue
23): the cache-hinted loads/stores on vector types, the bf16 constructors
``__float2bfloat162_rn``/``__floats2bfloat162_rn``, ``__double2half``, the directed-rounding
``__fadd_rd``-style arithmetic, the SIMD byte intrinsics ``__dp4a``/``__vmaxs4``,
``CubDebugExit``, ``cg::reduce`` and the pipeline primitives of ``cuda_pipeline.h``.  Each has
an exact HIP expression, so the port writes it once, under the CUDA name, next to the file's
includes, instead of leaving a compile error. The shim keeps the CUDA name (the code reads as
before) and sits behind an ``#ifndef`` guard, so a header and its includer can both carry it.
What the shim drops is said in its comment (cache hints are performance hints; AMD's plain
load/store is the same value).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import function_at
from ..analysis.insertion import insertion_point
from ..analysis.tokens import match
from ..context import Context
from ..edits import Edit
from ..frontend.directives import Include, next_line
from ..frontend.directives import includes as directive_includes
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from ._shim_texts import (
    BF16_LDG,
    BF16_TYPES,
    CARVEOUT,
    CARVEOUT_NAMES,
    CG_MEMCPY_ASYNC,
    CG_REDUCE,
    HALF_ATOMIC_ADD,
    MAP_FLAGS,
    PIPELINE,
    ROUNDED,
    ROUNDED_OPS,
    ROUNDING,
    SYSTEM_WRAP,
)
from .enum_shims import DATA_SHIMS

RULE = "shims"

_LOAD_STORE = """\
// hipify-py shim: CUDA's cache-hinted loads/stores for every type (HIP 7.2 has them for
// __half only); the hint is dropped, the value is the same
template <class T> struct hipify_py_same { using type = T; };
template <class T> using hipify_py_t = typename hipify_py_same<T>::type;
template <class T> __device__ inline T __ldcs(const T* p) { return *p; }
template <class T> __device__ inline T __ldcg(const T* p) { return *p; }
template <class T> __device__ inline T __ldca(const T* p) { return *p; }
template <class T> __device__ inline T __ldlu(const T* p) { return *p; }
template <class T> __device__ inline T __ldcv(const T* p) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);  // read again, not a value the compiler kept
  return *p;
}
template <class T> __device__ inline void __stcs(T* p, hipify_py_t<T> v) { *p = v; }
template <class T> __device__ inline void __stcg(T* p, hipify_py_t<T> v) { *p = v; }
template <class T> __device__ inline void __stwb(T* p, hipify_py_t<T> v) { *p = v; }
template <class T> __device__ inline void __stwt(T* p, hipify_py_t<T> v) { *p = v; }
"""

_BF16 = """\
// hipify-py shim: CUDA bf16 constructors HIP 7.2's hip_bf16.h spells differently
#include <hip/hip_bf16.h>
static __host__ __device__ inline __hip_bfloat162 __float2bfloat162_rn(float a) {
  return __bfloat162bfloat162(__float2bfloat16(a));
}
static __host__ __device__ inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __halves2bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
static __host__ __device__ inline __hip_bfloat162 make_bfloat162(__hip_bfloat16 x,
                                                               __hip_bfloat16 y) {
  return __halves2bfloat162(x, y);
}
"""

_DOUBLE2HALF = """\
// hipify-py shim: one rounding from double to half (to nearest even), as CUDA's
#include <hip/hip_fp16.h>
static __host__ __device__ inline __half __double2half(double a) {
  __half_raw r;
  r.data = static_cast<_Float16>(a);
  return r;
}
"""

_HALF_TANH = """\
// hipify-py shim: CUDA 12.8's half-precision tanh (HIP 7.2 has none): tanhf, rounded once
#include <hip/hip_fp16.h>
__device__ inline __half htanh(__half a) { return __float2half(tanhf(__half2float(a))); }
__device__ inline __half2 h2tanh(__half2 a) {
  return __floats2half2_rn(tanhf(__low2float(a)), tanhf(__high2float(a)));
}
__device__ inline __half htanh_approx(__half a) { return htanh(a); }
__device__ inline __half2 h2tanh_approx(__half2 a) { return h2tanh(a); }
"""

_BYTES = """\
// hipify-py shim: CUDA's 4-byte SIMD intrinsics, byte by byte
__host__ __device__ inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 32; i += 8) c += (signed char)(a >> i) * (signed char)(b >> i);
  return c;
}
__host__ __device__ inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
  return c;
}
__host__ __device__ inline unsigned __vmaxs4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 32; i += 8) {
    signed char x = (signed char)(a >> i), y = (signed char)(b >> i);
    r |= (unsigned)(unsigned char)(x > y ? x : y) << i;
  }
  return r;
}
__host__ __device__ inline unsigned __vsub4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 32; i += 8) r |= (((a >> i) - (b >> i)) & 0xffu) << i;
  return r;
}
__host__ __device__ inline unsigned __vsubss4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 32; i += 8) {
    int d = (int)(signed char)(a >> i) - (int)(signed char)(b >> i);
    d = d < -128 ? -128 : (d > 127 ? 127 : d);
    r |= (unsigned)(unsigned char)d << i;
  }
  return r;
}
__host__ __device__ inline unsigned __vcmpeq4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 32; i += 8) r |= (((a >> i) & 0xffu) == ((b >> i) & 0xffu) ? 0xffu : 0u) << i;
  return r;
}
__host__ __device__ inline unsigned __vcmpne4(unsigned a, unsigned b) { return ~__vcmpeq4(a, b); }
"""

_CUB_DEBUG = """\
// hipify-py shim: CUB's CubDebugExit (prints the error, exits), which hipCUB lacks
#include <cstdio>
#include <cstdlib>
#define CubDebugExit(e)                                                              \\
  do {                                                                               \\
    hipError_t hipify_py_e = (e);                                                    \\
    if (hipify_py_e != hipSuccess) {                                                 \\
      std::fprintf(stderr, "%s(%d): %s\\n", __FILE__, __LINE__,                        \\
                   hipGetErrorString(hipify_py_e));                                  \\
      std::exit(1);                                                                  \\
    }                                                                                \\
  } while (0)
"""

_BRKPT = """\
// hipify-py shim: CUDA's device breakpoint __brkpt (HIP 7.2 has none); without a debugger it
// stops the kernel with an error, as this trap does
__device__ inline void __brkpt() { __builtin_trap(); }
"""

_QUALIFIERS = """\
// hipify-py shim: CUDA qualifiers HIP does not spell (kernel parameters are constant on AMD
// already; CUDART_CB is a calling convention only on Windows; __device_builtin__ marks CUDA's
// own declarations, which a project may repeat; __builtin_align__ is CUDA's alignment)
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef CUDART_CB
#define CUDART_CB
#endif
#ifndef __device_builtin__
#define __device_builtin__
#endif
#ifndef __builtin_align__
#define __builtin_align__(n) __attribute__((aligned(n)))
#endif
"""

_CUDART_VERSION = """\
// hipify-py shim: cuBLAS's cublasGetCudartVersion (hipBLAS has none): the HIP runtime's version
#include <hip/hip_runtime_api.h>
#include <cstddef>
static inline size_t cublasGetCudartVersion() {
  int v = 0;
  return hipRuntimeGetVersion(&v) == hipSuccess ? static_cast<size_t>(v) : 0;
}
"""

# shim -> (guard macro, text, names whose use needs it)
SHIMS: dict[str, tuple[str, str, frozenset[str]]] = {
    "load_store": (
        "HIPIFY_PY_SHIM_LOAD_STORE",
        _LOAD_STORE,
        frozenset({"__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv"})
        | frozenset({"__stcs", "__stcg", "__stwb", "__stwt"}),
    ),
    "cudart_version": (
        "HIPIFY_PY_SHIM_CUDART_VERSION",
        _CUDART_VERSION,
        frozenset({"cublasGetCudartVersion"}),
    ),
    "bf16": (
        "HIPIFY_PY_SHIM_BF16",
        _BF16,
        frozenset({"__float2bfloat162_rn", "__floats2bfloat162_rn", "make_bfloat162"}),
    ),
    "half_tanh": (
        "HIPIFY_PY_SHIM_HALF_TANH",
        _HALF_TANH,
        frozenset({"htanh", "h2tanh", "htanh_approx", "h2tanh_approx"}),
    ),
    "double2half": ("HIPIFY_PY_SHIM_DOUBLE2HALF", _DOUBLE2HALF, frozenset({"__double2half"})),
    "rounded": (
        "HIPIFY_PY_SHIM_ROUNDED",
        ROUNDED,
        frozenset(f"{o[0]}_r{r}" for o in ROUNDED_OPS for r in ROUNDING),
    ),
    "bytes": (
        "HIPIFY_PY_SHIM_BYTES",
        _BYTES,
        frozenset({"__dp4a", "__vmaxs4", "__vsub4", "__vsubss4", "__vcmpeq4", "__vcmpne4"}),
    ),
    "cub_debug": ("HIPIFY_PY_SHIM_CUB_DEBUG", _CUB_DEBUG, frozenset({"CubDebugExit"})),
    "brkpt": ("HIPIFY_PY_SHIM_BRKPT", _BRKPT, frozenset({"__brkpt"})),
    "qualifiers": (
        "HIPIFY_PY_SHIM_QUALIFIERS",
        _QUALIFIERS,
        frozenset({"__grid_constant__", "CUDART_CB", "__device_builtin__", "__builtin_align__"}),
    ),
    "system_wrap": (
        "HIPIFY_PY_SHIM_SYSTEM_WRAP",
        SYSTEM_WRAP,
        frozenset({"atomicInc_system", "atomicDec_system"}),
    ),
    "map_flags": (
        "HIPIFY_PY_SHIM_MAP_FLAGS",
        MAP_FLAGS,
        frozenset({"cudaGraphicsResourceSetMapFlags"}),
    ),
    "cg_reduce": (
        "HIPIFY_PY_SHIM_CG_REDUCE",
        CG_REDUCE,
        frozenset({"reduce", "inclusive_scan", "exclusive_scan"}),
    ),
    "cg_memcpy_async": (
        "HIPIFY_PY_SHIM_CG_MEMCPY_ASYNC",
        CG_MEMCPY_ASYNC,
        frozenset({"memcpy_async", "wait", "wait_prior"}),
    ),
    "carveout": ("HIPIFY_PY_SHIM_CARVEOUT", CARVEOUT, CARVEOUT_NAMES),
    "pipeline": (
        "HIPIFY_PY_SHIM_PIPELINE",
        PIPELINE,
        frozenset({"__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior"}),
    ),
}
# shims whose name is common (atomicAdd on int/float is HIP's own): inserted only where the file
# also names one of the types they add overloads for, and defines none of its own
TYPED_SHIMS: dict[str, tuple[str, str, frozenset[str], frozenset[str]]] = {
    "half_atomic_add": (
        "HIPIFY_PY_SHIM_HALF_ATOMIC_ADD",
        HALF_ATOMIC_ADD,
        frozenset({"atomicAdd"}),
        frozenset({"__half", "__half2", "half", "half2"}) | BF16_TYPES,
    ),
    "bf16_ldg": ("HIPIFY_PY_SHIM_BF16_LDG", BF16_LDG, frozenset({"__ldg"}), BF16_TYPES),
}
_HOST_MATH = """\
// hipify-py shim: CUDA math functions callable on the host too (HIP declares them for the
// device only): the same formula in host code, the device keeps HIP's own
#include <cmath>
static __host__ inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static __host__ inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
static __host__ inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
static __host__ inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static __host__ inline float normcdff(float x) { return 0.5f * std::erfc(-x * 0.70710678f); }
static __host__ inline double normcdf(double x) {
  return 0.5 * std::erfc(-x * 0.7071067811865475244);
}
"""
# shims whose names HIP has for the device: inserted only where the file calls one from host
# code (a host or host-device function, or outside any function)
HOST_SHIMS: dict[str, tuple[str, str, frozenset[str]]] = {
    "host_math": (
        "HIPIFY_PY_SHIM_HOST_MATH",
        _HOST_MATH,
        frozenset({"rsqrtf", "rsqrt", "rcbrtf", "rcbrt", "normcdff", "normcdf"}),
    ),
}
_MIXED_MIN_MAX = """\
// hipify-py shim: CUDA's min/max of an int and an unsigned int (unsigned, as CUDA's
// math_functions.hpp defines them); HIP has no such overload and picks min(double, double)
__host__ __device__ inline unsigned int min(int a, unsigned int b) {
  return (unsigned int)a < b ? (unsigned int)a : b;
}
__host__ __device__ inline unsigned int min(unsigned int a, int b) {
  return a < (unsigned int)b ? a : (unsigned int)b;
}
__host__ __device__ inline unsigned int max(int a, unsigned int b) {
  return (unsigned int)a > b ? (unsigned int)a : b;
}
__host__ __device__ inline unsigned int max(unsigned int a, int b) {
  return a > (unsigned int)b ? a : (unsigned int)b;
}
"""
MIXED_MIN_MAX_GUARD = "HIPIFY_PY_SHIM_MIXED_MIN_MAX"
# unsigned operands a min/max argument can hold: the thread-geometry built-ins (unsigned int
# in CUDA) and unsigned literals; with a signed other argument CUDA picks its unsigned overload
_UNSIGNED_BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
# every name a shim defines: HZ300 does not report them
# the members of cooperative groups the `cg_*` shims define: a call counts only as cg::NAME
CG_ONLY = frozenset().union(*(names for key, (_, _, names) in SHIMS.items() if key[:3] == "cg_"))
SHIMMED = frozenset().union(*(names for _, _, names in SHIMS.values())) - CG_ONLY
CG_NAMESPACES = frozenset({"cg", "cooperative_groups"})
# used inside error-check macros: a use in a #define body needs the shim too
_IN_MACROS = frozenset({"CubDebugExit", "cublasGetCudartVersion", "__brkpt"})  # assert macros
# names used without a call
OBJECT_LIKE = frozenset({"__grid_constant__", "CUDART_CB", "__device_builtin__"}) | CARVEOUT_NAMES


def _uses(unit: Unit, names: frozenset[str]) -> list[int]:
    """Token indices of calls to ``names`` (``cg::reduce`` only when qualified by a cg name)."""
    toks = unit.tokens
    found = []
    for name in names & unit.identifiers:
        for i in unit.identifier_positions[name]:
            if toks[i].in_directive and name not in _IN_MACROS:
                continue
            if name in CG_ONLY and not (
                i >= 2 and toks[i - 1].text == "::" and toks[i - 2].text in CG_NAMESPACES
            ):
                continue
            if name in OBJECT_LIKE or (i + 1 < len(toks) and toks[i + 1].text in ("(", "<")):
                found.append(i)
    return found


def _defines(unit: Unit, guard: str, names: frozenset[str]) -> bool:
    """The file already carries the shim (converted before) or defines the names itself."""
    return guard in unit.identifiers or any(
        i > 0 and unit.tokens[i - 1].text == "define"
        for n in names & unit.identifiers
        for i in unit.identifier_positions[n]
    )


def _defines_overload(unit: Unit, names: frozenset[str], types: frozenset[str]) -> bool:
    """The file declares one of ``names`` returning one of ``types`` (its own overload)."""
    return any(
        i > 0 and unit.tokens[i - 1].text in types
        for n in names & unit.identifiers
        for i in unit.identifier_positions[n]
    )


_HOST_RETURNS = frozenset({"float", "double"})  # `float rsqrtf(`: the file defines its own


def _in_host_code(unit: Unit, i: int) -> bool:
    """Token ``i`` is compiled for the host: in a host or host-device function or outside
    every function (a kernel or ``__device__`` function is device code only)."""
    func = function_at(unit, i)
    return func is None or func.is_host


def _mixed_min_max(unit: Unit) -> list[int]:
    """``min``/``max`` calls (not members, not ``std::``) with an argument holding an unsigned
    built-in or literal, in a file that defines neither as a macro or function of its own."""
    toks = unit.tokens
    found = []
    for name in {"min", "max"} & unit.identifiers:
        for i in unit.identifier_positions[name]:
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and prev.text == "define":
                return []  # a min/max macro: the shim would not survive it
            if toks[i].in_directive or i + 1 >= len(toks) or toks[i + 1].text != "(":
                continue
            if prev is not None and prev.text in (".", "->", "::"):
                continue
            if prev is not None and prev.kind is Kind.IDENT and prev.text != "return":
                return []  # `T min(...)`: the file declares its own
            close = match(toks, i + 1)
            args = toks[i + 2 : close] if close is not None else []
            if any(t.text in _UNSIGNED_BUILTINS or _is_unsigned_literal(t.text) for t in args):
                found.append(i)
    return found


def _is_unsigned_literal(text: str) -> bool:
    return text[:1].isdigit() and text.rstrip("lL")[-1:] in ("u", "U")


# a shim a file needs: (offset of its first use, include guard, shim text)
_Pending = tuple[int, str, str]


@rewrite_pass("shims", order=50)
def shims(unit: Unit, ctx: Context) -> Iterator[Edit]:
    pending = [*_table_shims(unit), *_data_shims(unit), *_mixed_min_max_shim(unit)]
    pending += _host_shims(unit)
    if not pending:
        return
    nl = unit.newline
    found = directive_includes(unit.text, unit.tokens, unit.directives)
    at_offset: dict[int, str] = {}
    for first_use, guard, text in sorted(pending):
        at = shim_position(unit, found, first_use)
        body = text.replace("\n", nl)
        # HIP's NVIDIA backend includes CUDA's own headers, which define what a shim stands in
        # for: there the shim would be a redefinition
        nvidia = f"#if !defined(__HIP_PLATFORM_NVIDIA__){nl}{body}#endif{nl}"
        block = f"#ifndef {guard}{nl}#define {guard}{nl}{nvidia}#endif{nl}"
        at_offset[at] = at_offset.get(at, "") + block
    for at, block in at_offset.items():
        yield Edit(at, at, block, RULE)


def _wanted(unit: Unit, guard: str, text: str, names: frozenset[str]) -> _Pending | None:
    """A shim for ``names`` when the file uses one of them and defines none itself."""
    uses = _uses(unit, names)
    if uses and not _defines(unit, guard, names):
        return unit.tokens[min(uses)].start, guard, text
    return None


def _table_shims(unit: Unit) -> list[_Pending]:
    """The shims of ``SHIMS``, and of ``TYPED_SHIMS`` where the file names their types and
    does not declare its own overload for them."""
    wanted = [_wanted(unit, guard, text, names) for guard, text, names in SHIMS.values()]
    wanted += [
        _wanted(unit, guard, text, names)
        for guard, text, names, types in TYPED_SHIMS.values()
        if types & unit.identifiers and not _defines_overload(unit, names, types)
    ]
    return [w for w in wanted if w is not None]


def _data_shims(unit: Unit) -> list[_Pending]:
    """The enums of ``DATA_SHIMS`` a file names anywhere (a type or value, not only a call)."""
    out = []
    for guard, (text, names) in DATA_SHIMS.items():
        uses = [i for n in names & unit.identifiers for i in unit.identifier_positions[n]]
        if uses and not _defines(unit, guard, names):
            out.append((unit.tokens[min(uses)].start, guard, text))
    return out


def _mixed_min_max_shim(unit: Unit) -> list[_Pending]:
    """The mixed signed/unsigned ``min``/``max`` overloads, unless the file has them."""
    mixed = _mixed_min_max(unit)
    if mixed and MIXED_MIN_MAX_GUARD not in unit.identifiers:
        return [(unit.tokens[min(mixed)].start, MIXED_MIN_MAX_GUARD, _MIXED_MIN_MAX)]
    return []


def _host_shims(unit: Unit) -> list[_Pending]:
    """The ``HOST_SHIMS`` used in host code, unless the file defines its own version."""
    pending: list[_Pending] = []
    for guard, text, names in HOST_SHIMS.values():
        uses = [i for i in _uses(unit, names) if _in_host_code(unit, i)]
        if (
            uses
            and not _defines_overload(unit, names, _HOST_RETURNS)
            and guard not in unit.identifiers
        ):
            pending.append((unit.tokens[min(uses)].start, guard, text))
    return pending


def shim_position(unit: Unit, found: list[Include], first_use: int) -> int:
    """Where a shim goes: after the last unconditional include before its first use that
    stands alone on its line (after `#include <x> /* ...` the next line is inside that
    comment, where the next run would not see the shim), or where the runtime include goes
    when there is none (after it: edits orders the two)."""
    before = [inc for inc in found if inc.line_end <= first_use and not inc.branch and inc.alone]
    if not before:
        return insertion_point(unit, found)
    at = before[-1].line_end
    if not unit.text[:at].endswith(("\n", "\r")):
        at = next_line(unit.text, at)
    return at
