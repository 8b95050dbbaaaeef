"""Shim texts of the arithmetic and host-runtime shims (``shims`` inserts them): CUDA's
directed-rounding operations, the system-scope wrapping atomics, and map-flag hints.  Kept
apart from the pass so that each stays small."""

from __future__ import annotations

# CUDA's directed-rounding arithmetic -> the device library's (ocml) operation: CUDA name
# stem, ocml operation, type, arity; rounding suffix d/u/z -> ocml's rtn/rtp/rtz.  A
# reciprocal is a division of 1 in that rounding (as clang's __clang_hip_math.h writes it).
ROUNDED_OPS = (
    ("__fadd", "add", "float", 2),
    ("__fsub", "sub", "float", 2),
    ("__fmul", "mul", "float", 2),
    ("__fdiv", "div", "float", 2),
    ("__fsqrt", "sqrt", "float", 1),
    ("__frcp", "div", "float", 1),
    ("__fmaf", "fma", "float", 3),
    ("__dadd", "add", "double", 2),
    ("__dsub", "sub", "double", 2),
    ("__dmul", "mul", "double", 2),
    ("__ddiv", "div", "double", 2),
    ("__dsqrt", "sqrt", "double", 1),
    ("__drcp", "div", "double", 1),
    ("__fma", "fma", "double", 3),
)
ROUNDING = {"d": "rtn", "u": "rtp", "z": "rtz"}


def rounded(stem: str, op: str, type_: str, arity: int, r: str) -> str:
    params = ", ".join(f"{type_} {v}" for v in "abc"[:arity])
    one = "1.0f" if type_ == "float" else "1.0"
    args = f"{one}, a" if stem.endswith("rcp") else ", ".join("abc"[:arity])
    bits = "f32" if type_ == "float" else "f64"
    call = f"__ocml_{op}_{ROUNDING[r]}_{bits}({args})"
    return f"__device__ inline {type_} {stem}_r{r}({params}) {{ return {call}; }}\n"


ROUNDED = (
    "// hipify-py shim: CUDA's directed-rounding arithmetic on the device library's own\n"
    + "".join(rounded(*o, r) for o in ROUNDED_OPS for r in ROUNDING)
)

MAP_FLAGS = """\
// hipify-py shim: cudaGraphicsResourceSetMapFlags (HIP 7.2 has none): its flags only promise
// how kernels will use the resource while mapped (read-only, write-discard); HIP maps without
#include <hip/hip_runtime_api.h>
static inline hipError_t cudaGraphicsResourceSetMapFlags(hipGraphicsResource_t, unsigned int) {
  return hipSuccess;
}
"""

SYSTEM_WRAP = """\
// hipify-py shim: CUDA's system-scope wrapping increment/decrement (HIP 7.2 has atomicInc and
// atomicDec at device scope only): a compare-and-swap loop with HIP's atomicCAS_system
__device__ inline unsigned int atomicInc_system(unsigned int* p, unsigned int v) {
  unsigned int old = *p, seen;
  do {
    seen = old;
    old = atomicCAS_system(p, seen, seen >= v ? 0u : seen + 1u);
  } while (old != seen);
  return old;
}
__device__ inline unsigned int atomicDec_system(unsigned int* p, unsigned int v) {
  unsigned int old = *p, seen;
  do {
    seen = old;
    old = atomicCAS_system(p, seen, (seen == 0u || seen > v) ? v : seen - 1u);
  } while (old != seen);
  return old;
}
"""
