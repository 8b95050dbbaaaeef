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


Declarations = dict[tuple[int, str], list[tuple[int, frozenset[str] | None]]]
_DECLARATOR_END = frozenset({"=", ";", ",", ")", "[", "{"})
_NOT_A_TYPE = frozenset({"return", "case", "else", "do", "goto", "throw", "co_return"})


def _declared(unit: Unit) -> Declarations:
    """(scope, variable) -> its declarations in order, as (token, type family), for the
    variables some declaration gives a half or bf16 type; a declaration of the same name with
    another type (``__half_raw res``) has the family None, so the nearest one decides."""
    toks = unit.tokens
    names: Declarations = {}
    for i, t in enumerate(toks[:-1]):
        family = _family(t.text) if t.kind is Kind.IDENT else None
        if family is None or toks[i - 1].text in ("<", ",", "(") and toks[i + 1].text == ">":
            continue
        j = _declarator(toks, i)
        if j is not None and toks[j].text not in HALF | BF16:
            names.setdefault((scope_of(unit, j), toks[j].text), []).append((j, family))
    for name in {name for _, name in names}:
        for j in unit.identifier_positions.get(name, ()):
            typ = _type_before(toks, j)
            if typ is not None and _family(toks[typ].text) is None and _ends_declarator(toks, j):
                names.setdefault((scope_of(unit, j), name), []).append((j, None))
    for declarations in names.values():
        declarations.sort()
    return names


def _declarator(toks: Sequence[Token], i: int) -> int | None:
    """The declared name after the type at token ``i`` (past ``*``, ``&``, qualifiers)."""
    j = i + 1
    while j < len(toks) and toks[j].text in ("*", "&", "const", "__restrict__"):
        j += 1
    if j < len(toks) and toks[j].kind is Kind.IDENT and _ends_declarator(toks, j):
        return j
    return None


def _ends_declarator(toks: Sequence[Token], j: int) -> bool:
    return j + 1 < len(toks) and toks[j + 1].text in _DECLARATOR_END


def _type_before(toks: Sequence[Token], j: int) -> int | None:
    """The type identifier a declaration of the name at token ``j`` starts with, if any."""
    k = j - 1
    while k > 0 and toks[k].text in ("*", "&", "const", "__restrict__"):
        k -= 1
    if k >= 0 and toks[k].kind is Kind.IDENT and toks[k].text not in _NOT_A_TYPE:
        return k
    return None


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


def _family_of(unit: Unit, declared: Declarations, k: int) -> frozenset[str] | None:
    """The type family of the variable at token ``k``: its nearest declaration before it in
    its function, else at file scope."""
    toks = unit.tokens
    if k >= len(toks) or toks[k].kind is not Kind.IDENT:
        return None
    for scope in (scope_of(unit, k), -1):
        before = [family for at, family in declared.get((scope, toks[k].text), ()) if at < k]
        if before:
            return before[-1]
    return None
