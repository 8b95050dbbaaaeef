"""HZ330 vector-operator-redefined

## What it detects
A user-defined operator on CUDA's built-in vector types (`float2`, `int4`, `uchar4`...), as the
`helper_math.h`-style headers of CUDA samples write them: `operator+=(float2&, float2)`,
`operator/(float2, float)`, `operator-(float4)`.

## Why it breaks on AMD
CUDA's vector types are plain structs without operators, so projects write their own. HIP's
(`HIP_vector_type` in amd_hip_vector_types.h of ROCm 7.2.4) already define every arithmetic,
compound-assignment, unary and comparison operator, element-wise.  A user compound
assignment (`+=`, `/=`...) is then always ambiguous with HIP's member ("use of overloaded
operator '+=' is ambiguous"); a binary or unary one is ambiguous or silently loses to HIP's
template whenever the argument types differ from its signature (an `int` or `double` scalar).

## Example
```cuda
__device__ void operator+=(float2& a, float2 b) { a.x += b.x; a.y += b.y; }  // HZ330
```

One diagnosis per file, at the first such definition the HIP build compiles: a
helper_math.h-style header has a hundred of them and one guard fixes them all; the others are
its dependent lines.

## How to fix
When the operator is element-wise (as in helper_math.h), HIP's does the same: guard the
definition with `#if !defined(__HIP_PLATFORM_AMD__)`.  When it means something else (a complex
product, a dot product), give it a name of its own and call that.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..analysis.diagnosis import first_of_file
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

VECTOR = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]")
COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
HIP_DEFINES = COMPOUND | frozenset(
    {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "~", "==", "!=", "++", "--"}
)


def _definitions(unit: Unit) -> Iterator[tuple[int, str, str]]:
    """(operator token index, operator text, first parameter's vector type) per definition."""
    toks = unit.tokens
    for i in unit.identifier_positions.get("operator", ()):
        if toks[i].in_directive or i + 2 >= len(toks):
            continue
        j = i + 1
        while j < len(toks) and toks[j].kind is not Kind.IDENT and toks[j].text not in "(;{":
            j += 1
        op = "".join(t.text for t in toks[i + 1 : j])
        if op not in HIP_DEFINES or j >= len(toks) or toks[j].text != "(":
            continue
        close = unit.lexed.brackets.get(j)
        if close is None:
            continue
        params = [t.text for t in toks[j + 1 : close]]
        first = params[: params.index(",")] if "," in params else params
        vector = next((w for w in first if VECTOR.fullmatch(w)), None)
        k = close + 1
        while k < len(toks) and toks[k].text in ("const", "noexcept", "constexpr"):
            k += 1
        if vector is not None and k < len(toks) and toks[k].text == "{":
            yield i, op, vector


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
    defined = {i: (op, vector) for i, op, vector in _definitions(unit)}
    found = first_of_file(unit, list(defined))
    if found is None:
        return
    i = found.first
    op, vector = defined[i]
    if op in COMPOUND:
        why = f"always ambiguous with HIP's member `{vector}::operator{op}`"
    else:
        why = "ambiguous with, or silently replaced by, HIP's element-wise template when "
        why += "a call's argument types differ from this signature"
    n = len(found.others)
    also = {0: "", 1: "; so is the one more such operator of this file"}.get(
        n, f"; so are the {n} more such operators of this file"
    )
    yield report(
        toks[i].start,
        toks[i + 1].end,
        f"`operator{op}` on `{vector}`: HIP's vector types define it (amd_hip_vector_types.h)"
        f"; this definition is {why}{also}; if they are element-wise, guard them with "
        f"`#if !defined(__HIP_PLATFORM_AMD__)`, else rename them{found.related.note}",
        extra=found.related.extra,
    )
