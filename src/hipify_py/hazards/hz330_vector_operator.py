"""HZ330 vector-operator-redefined

## What it detects
A user-defined operator on CUDA's built-in vector types (`float2`, `int4`, `uchar4`...), as the
`helper_math.h`-style headers of CUDA samples write them: `operator+=(float2&, float2)`,
`operator/(float2, float)`, `operator-(float4)`.

## Why it breaks on AMD
CUDA's vector types are plain structs without operators, so projects write their own. HIP's
(`HIP_vector_type` in amd_hip_vector_types.h of ROCm 7.2.4) already define every arithmetic,
compound-assignment, unary and comparison operator, element-wise, as `__host__ __device__`
functions.  Where HIP's is not a template (the compound assignments `+=`, `-=`, `*=`, `/=` and
the `*`, `/` of two vectors), a user `__host__ __device__` definition on two vectors of one
type is ambiguous with it at every call ("use of overloaded operator '+=' is ambiguous").

## Example
```cuda
__host__ __device__ void operator+=(float2& a, float2 b) { a.x += b.x; a.y += b.y; }  // HZ330
```

One diagnosis per file, at the first such definition the HIP build compiles: a
helper_math.h-style header has a hundred of them and one guard fixes them all; the others are
its dependent lines.

Not reported: an operator HIP's can only meet in a call with other argument types: where HIP's
is a template (the other binary operators, the integral compound assignments `^=`, `&=`, `|=`,
`%=`, `<<=`, `>>=`), the exact non-template user operator wins; a definition for one side only
(`__device__` or `__host__`: ccminer's `static __device__ void operator^=(uint2&, uint2)`,
round 10) wins too, since clang prefers the caller's own side to a `__host__ __device__`
function (compiled in test_vector_operator_guard); and an operator on a scalar or on another
vector type (`operator/(float2, float)`, GROMACS's `operator+=(float3&, float4)`) is the one
every call with those types uses.  Such operators lose to HIP's template only in a call with
other argument types (an `int` for a `float`), which the judges of eleven such findings
(rounds 5-27) found in no project.

An operator a macro defines (`COMPOUND_VEC3_OP(float3, float, -=)`) is judged in the macro's
expansion and reported at the invocation.

`convert` already guards the definitions it can prove element-wise (`a.x op b.x` per
component, one vector type, scalars of its element type: `rewrite/vector_operator_guard.py`);
this rule reports the others.

## How to fix
When the operator is element-wise after all, HIP's does the same: guard the definition with
`#if !defined(__HIP_PLATFORM_AMD__)`.  When it means something else (a complex product, a dot
product, mixed types), give it a name of its own and call that.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.diagnosis import first_of_file
from ..analysis.vector_operator_macros import invocations
from ..analysis.vector_operators import always_ambiguous, definitions, is_elementwise
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ330",
    "vector-operator-redefined",
    Severity.ERROR,
    "user operator on a CUDA vector type that HIP's vector types already define (ambiguous)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if "operator" not in unit.identifiers:
        return
    toks = unit.tokens
    defined = {
        d.at: (d.op, d.vector)
        for d in definitions(unit)
        if not is_elementwise(unit, d) and always_ambiguous(unit, d)
    }
    for m in invocations(unit):  # `VEC_OP(float3, *)`: reported at the invocation
        wrong = [
            d
            for d in m.operators
            if not is_elementwise(m.expansion, d) and always_ambiguous(m.expansion, d)
        ]
        if wrong:
            defined[m.first] = (wrong[0].op, wrong[0].vector)
    found = first_of_file(unit, list(defined))
    if found is None:
        return
    i = found.first
    op, vector = defined[i]
    hips = f"member `{vector}::operator{op}`" if op.endswith("=") else f"`operator{op}`"
    n = len(found.others)
    also = {0: "", 1: "; so is the one more such operator of this file"}.get(
        n, f"; so are the {n} more such operators of this file"
    )
    yield report(
        toks[i].start,
        toks[i + 1].end,
        f"`operator{op}` on `{vector}`: HIP's vector types define it (amd_hip_vector_types.h)"
        f"; this definition is always ambiguous with HIP's non-template {hips}{also}; "
        f"if they are element-wise, guard them with "
        f"`#if !defined(__HIP_PLATFORM_AMD__)`, else rename them{found.related.note}",
        extra=found.related.extra,
    )
