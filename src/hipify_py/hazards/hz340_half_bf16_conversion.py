"""HZ340 half-bf16-conversion

## What it detects
A direct conversion between CUDA's half and bfloat16 types: a cast (`static_cast<__half>(b)`,
`__half(b)`, `(__nv_bfloat16)h`) of a variable declared with the other type, and a call of a
template with both a half and a bfloat16 type among its explicit arguments
(`convert<half, __nv_bfloat16>(n)`), the way conversion benchmarks instantiate a
`static_cast<To>(from)` kernel.

## Why it breaks on AMD
CUDA's `__nv_bfloat16` and `__half` convert to each other. In ROCm 7.2.4 neither
`__hip_bfloat16` nor `__half` has a conversion to the other: each converts to every arithmetic
type and the other has a constructor from each of them, so the cast is ambiguous ("conversion
from '__hip_bfloat16' to '_Float16' is ambiguous", "ambiguous conversion for static_cast from
'const __half' to '__hip_bfloat16'") and the converted file does not compile.

## Example
```cuda
__global__ void k(__half* d, const __nv_bfloat16* s) { d[0] = __half(s[0]); }  // HZ340
```

## How to fix
Convert through float, which is exact for bfloat16 and rounds once for half, as CUDA does:
`__float2half(__bfloat162float(b))`, `__float2bfloat16(__half2float(h))`; in a template,
`static_cast<To>(static_cast<float>(from))`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import scope_of
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

HALF = frozenset({"__half", "half", "__half2", "half2"})
BF16 = frozenset({"__nv_bfloat16", "nv_bfloat16", "__nv_bfloat162", "nv_bfloat162"})
WHY = "HIP's __half and __hip_bfloat16 have no conversion to each other (ambiguous)"


def _family(name: str) -> frozenset[str] | None:
    return HALF if name in HALF else BF16 if name in BF16 else None


def _declared(unit: Unit) -> dict[tuple[int, str], frozenset[str]]:
    """(scope, variable) -> type family, for variables and pointers declared as half or bf16."""
    toks = unit.tokens
    names: dict[tuple[int, str], frozenset[str]] = {}
    for i, t in enumerate(toks[:-1]):
        family = _family(t.text) if t.kind is Kind.IDENT else None
        if family is None or toks[i - 1].text in ("<", ",", "(") and toks[i + 1].text == ">":
            continue
        j = i + 1
        while j < len(toks) and toks[j].text in ("*", "&", "const", "__restrict__"):
            j += 1
        if j < len(toks) and toks[j].kind is Kind.IDENT and toks[j].text not in HALF | BF16:
            if j + 1 < len(toks) and toks[j + 1].text in ("=", ";", ",", ")", "[", "{"):
                names[(scope_of(unit, j), toks[j].text)] = family
    return names


def _template_args(unit: Unit, i: int) -> tuple[int, list[str]] | None:
    """For `name < ... > (` or `name < ... > <<<` at token i: (index of '>', the identifiers
    among the template arguments)."""
    toks = unit.tokens
    if i + 1 >= len(toks) or toks[i + 1].text != "<":
        return None
    depth, j = 0, i + 1
    while j < len(toks) and j < i + 40:
        text = toks[j].text
        depth += text == "<"
        depth -= text == ">"
        if depth == 0:
            break
        if text in (";", "{", "}"):
            return None
        j += 1
    if depth or j + 1 >= len(toks) or toks[j + 1].text not in ("(", "<<<", "<<"):
        return None
    return j, [t.text for t in toks[i + 2 : j] if t.kind is Kind.IDENT]


@hazard_rule(
    "HZ340",
    "half-bf16-conversion",
    Severity.ERROR,
    "direct conversion between half and bfloat16, which HIP's types do not provide",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (HALF & unit.identifiers and BF16 & unit.identifiers):
        return
    toks = unit.tokens
    declared = _declared(unit)
    for i, t in enumerate(toks):
        if t.kind is not Kind.IDENT or t.in_directive:
            continue
        target, operand = _cast_at(toks, i)
        if target and operand is not None:
            source = _family_of(unit, declared, operand)
            if source is not None and source is not target:
                yield report(
                    t.start,
                    toks[operand].end,
                    f"`{toks[operand].text}` cast to "
                    f"{'half' if target is HALF else 'bfloat16'}: {WHY}; convert "
                    "through float",
                )
            continue
        args = _template_args(unit, i) if target is None else None
        if args and HALF & set(args[1]) and BF16 & set(args[1]):
            yield report(
                t.start,
                toks[args[0]].end,
                f"`{t.text}` instantiated with both a half and a bfloat16 type: a conversion "
                f"between them in its body does not compile, {WHY}; convert through float",
            )


def _cast_at(toks: Sequence[Token], i: int) -> tuple[frozenset[str] | None, int | None]:
    """(the type family named at token ``i``, the operand's token when it is a cast to it):
    ``static_cast<T>(x)``, the functional cast ``T(x)`` or the C cast ``(T)x``."""
    target = _family(toks[i].text)
    if toks[i].text == "static_cast" and i + 4 < len(toks) and toks[i + 3].text == ">":
        return _family(toks[i + 2].text), i + 5
    if target and i + 2 < len(toks) and toks[i + 1].text == "(":
        return target, i + 2  # functional cast T(x)
    if target and toks[i - 1].text == "(" and i + 2 < len(toks) and toks[i + 1].text == ")":
        return target, i + 2  # C cast (T)x
    return target, None


def _family_of(
    unit: Unit, declared: dict[tuple[int, str], frozenset[str]], k: int
) -> frozenset[str] | None:
    """The type family of the variable at token ``k``: declared in its function, else at
    file scope."""
    toks = unit.tokens
    if k >= len(toks) or toks[k].kind is not Kind.IDENT:
        return None
    return declared.get((scope_of(unit, k), toks[k].text)) or declared.get((-1, toks[k].text))
