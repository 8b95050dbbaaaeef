"""HZ331 vector-brace-short

## What it detects
A macro that defines vector operators (a helper_math.h-style header's
`DEFINE_VEC2_UNARY_OPS(TYPE)`), invoked with a vector type that has more components than the
brace list its body returns: `DEFINE_VEC2_UNARY_OPS(uint3)` expands to `uint3 operator-(const
uint3 &a) { return {-a.x, -a.y}; }` (CudaTextureGen, compile round 38: 10 translation units
failed with no finding).

## Why it breaks on AMD
CUDA's vector types are aggregates: a short brace list sets the other components to zero, and
nvcc accepts it. HIP's (`HIP_vector_type` in amd_hip_vector_types.h of ROCm 7.2.4) have
constructors taking one value or exactly one per component, so clang stops at "no matching
constructor for initialization of 'uint3'". `convert` writes out the missing zeros where the
list is in the file (`rewrite/vector_brace_init`); in a macro's body the same list serves
every invocation, of types of other sizes, so it is reported at the invocation instead.

## Example
```cuda
#define NEG2(T) __host__ __device__ T operator-(const T &a) { return {-a.x, -a.y}; }
NEG2(float2)
NEG2(uint3)   // HZ331: the list gives 2 of uint3's 3 components
```

## How to fix
Invoke the macro written for the type's size (`DEFINE_VEC3_UNARY_OPS(uint3)`), or write the
missing components out. A short list is most often a slip that CUDA's zeros hid.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.vector_braces import missing_components, returned_braces
from ..analysis.vector_operator_macros import invocations
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ331",
    "vector-brace-short",
    Severity.ERROR,
    "a macro's operator returns a brace list shorter than the vector type it is invoked with",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for m in invocations(unit):
        short = next(
            (
                (rank, rank - missing)
                for brace, rank in returned_braces(m.expansion)
                if (missing := missing_components(m.expansion, brace, rank))
            ),
            None,
        )
        if short is not None:
            rank, given = short
            yield report(
                toks[m.first].start,
                toks[m.last].end,
                f"`{toks[m.first].text}` returns a brace list of {given} values for a vector "
                f"of {rank} components: CUDA zeroes the rest, HIP's vector types take one "
                f"value per component (no matching constructor); invoke the macro for "
                f"{rank} components or write them out",
            )
