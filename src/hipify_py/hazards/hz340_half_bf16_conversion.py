"""HZ340 half-bf16-conversion

## What it detects
A direct conversion between CUDA's half and bfloat16 types: a cast (`static_cast<__half>(b)`,
`__half(b)`, `(__nv_bfloat16)h`) of a variable declared with the other type, and an
instantiation of a function template of the file with a half and a bfloat16 type where its
body casts a variable of one of its type parameters straight to the other
(`static_cast<To>(from)`, `To(from)`, `(To)from`) or instantiates such a template with its
own parameters there, the way conversion benchmarks launch a `static_cast<To>(from)` kernel
from `convert<half, __nv_bfloat16>(n)`. A template whose body converts through float
(`To((float)from)`), one defined elsewhere, an explicit specialisation (`template <> half
cast<half, __nv_bfloat16>(...)`, usually the through-float conversion itself) and the
instantiations it covers are not reported.

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

from ..analysis.functions import Func, functions, scope_of
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import split_args
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


def _template_args(unit: Unit, i: int) -> tuple[int, list[tuple[str, ...]]] | None:
    """For `name < ... > (` or `name < ... > <<<` at token i: (index of '>', the identifiers
    of each template argument)."""
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
    parts = split_args(toks, i + 2, j) or []
    return j, [
        tuple(t.text for t in toks[a.first : a.last + 1] if t.kind is Kind.IDENT) for a in parts
    ]


# a function template's direct casts: (target, source) positions among its type parameters
Conversions = dict[str, frozenset[tuple[int, int]]]
_LIST = 64  # tokens looked back from a function name for its `template <...>`


def _converting_templates(unit: Unit) -> Conversions:
    """The file's function templates whose body casts a variable of one type parameter straight
    to another (``static_cast<To>(s[0])`` with ``const From* s``), or instantiates such a
    template with its own parameters there (a host ``convert<To, From>`` launching
    ``cvt<To, From>``): the evidence that an instantiation with a half and a bf16 type there
    does not compile.  A body that goes through float (``To((float)x)``) or hands the value to
    a function whose template arguments are deduced is no evidence."""
    toks = unit.tokens
    found: dict[str, set[tuple[int, int]]] = {}
    forwards: list[tuple[str, str, dict[int, int]]] = []  # (template, callee, callee -> own)
    for f in functions(unit):
        params = _type_parameters(toks, f.name_index) if "template" in f.specifiers else {}
        if params:
            found.setdefault(f.name, set()).update(_direct_casts(toks, f, params))
            forwards += [(f.name, *g) for g in _instantiations(unit, f, params)]
    grew = True
    while grew:  # each round adds a pair or stops: at most as many rounds as pairs
        grew = False
        for name, callee, positions in forwards:
            for target, source in tuple(found.get(callee, ())):
                to, of = positions.get(target), positions.get(source)
                if to is not None and of is not None and to != of and (to, of) not in found[name]:
                    found[name].add((to, of))
                    grew = True
    return {name: frozenset(pairs) for name, pairs in found.items() if pairs}


def _direct_casts(toks: Sequence[Token], f: Func, params: dict[str, int]) -> set[tuple[int, int]]:
    """(target, source) positions of the casts in ``f``'s body from a variable of one type
    parameter to another."""
    typed = {}  # variable -> the position of its type parameter
    for k in range(f.params[0], f.close):
        if toks[k].text in params and (j := _declarator(toks, k)) is not None:
            typed[toks[j].text] = params[toks[k].text]
    pairs = set()
    for k in range(f.open, f.close):
        cast = _cast(toks, k) if toks[k].kind is Kind.IDENT else None
        if cast is None or cast[0] not in params:
            continue
        operand = cast[1]
        while operand < f.close and toks[operand].text == "(":  # `(To)(s[i])`
            operand += 1
        source = typed.get(toks[operand].text)
        if source is not None and source != params[cast[0]]:
            pairs.add((params[cast[0]], source))
    return pairs


def _instantiations(
    unit: Unit, f: Func, params: dict[str, int]
) -> Iterator[tuple[str, dict[int, int]]]:
    """The templates ``f``'s body instantiates with some of its own type parameters as
    arguments: (template, its argument position -> ``f``'s parameter position)."""
    toks = unit.tokens
    for k in range(f.open, f.close):
        if toks[k].kind is not Kind.IDENT or toks[k + 1].text != "<":
            continue
        args = _template_args(unit, k)
        positions = {
            n: params[a[0]]
            for n, a in enumerate(args[1] if args else ())
            if len(a) == 1 and a[0] in params
        }
        if positions:
            yield toks[k].text, positions


def _type_parameters(toks: Sequence[Token], name_i: int) -> dict[str, int]:
    """The type parameters of the ``template <...>`` declaring the function named at token
    ``name_i``: name -> position in the list."""
    k = name_i - 1
    while k > max(0, name_i - _LIST) and toks[k].text not in ("template", ";", "{", "}"):
        k -= 1
    if toks[k].text != "template" or toks[k + 1].text != "<":
        return {}
    depth, close = 0, k + 1
    while close < name_i:
        depth += {"<": 1, ">": -1, ">>": -2}.get(toks[close].text, 0)
        if depth <= 0:
            break
        close += 1
    params = {}
    for n, a in enumerate(split_args(toks, k + 2, close) or ()):
        group = toks[a.first : a.last + 1]
        names = [t.text for t in group if t.kind is Kind.IDENT]
        if names and names[0] in ("typename", "class") and len(names) > 1:
            params[names[1]] = n
    return params


def _specialisation(toks: Sequence[Token], i: int) -> bool:
    """The name at token ``i`` is declared by ``template <>`` (an explicit specialisation)."""
    k = i - 1
    while k > max(0, i - _LIST) and toks[k].text not in ("template", ";", "{", "}"):
        k -= 1
    return toks[k].text == "template" and k + 2 < i and toks[k + 1].text + toks[k + 2].text == "<>"


def _mixes(pairs: frozenset[tuple[int, int]], args: list[tuple[str, ...]]) -> bool:
    """One of the template's direct casts is between a half and a bf16 type in ``args``."""
    families = [{_family(x) for x in arg} - {None} for arg in args]
    return any(
        max(target, source) < len(args)
        and len(families[target]) == len(families[source]) == 1
        and families[target] != families[source]
        for target, source in pairs
    )


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
    converting = _converting_templates(unit)
    specialised: set[tuple[str, tuple[tuple[str, ...], ...]]] = set()
    for i, t in enumerate(toks):
        if t.kind is not Kind.IDENT or t.in_directive:
            continue
        cast = _cast(toks, i)
        target = _family(cast[0]) if cast else None
        if cast and target:
            source = _family_of(unit, declared, cast[1])
            if source is not None and source is not target:
                yield report(
                    t.start,
                    toks[cast[1]].end,
                    f"`{toks[cast[1]].text}` cast to "
                    f"{'half' if target is HALF else 'bfloat16'}: {WHY}; convert "
                    "through float",
                )
            continue
        args = _template_args(unit, i) if t.text in converting else None
        if args is None:
            continue
        key = (t.text, tuple(args[1]))
        if _specialisation(toks, i):
            specialised.add(key)  # its own body, not the template's, serves these arguments
        elif key not in specialised and _mixes(converting[t.text], args[1]):
            yield report(
                t.start,
                toks[args[0]].end,
                f"`{t.text}` instantiated with a half and a bfloat16 type where its body casts "
                f"one to the other: that does not compile, {WHY}; convert through float",
            )


def _cast(toks: Sequence[Token], i: int) -> tuple[str, int] | None:
    """(the type named, the operand's token) when token ``i`` starts a cast:
    ``static_cast<T>(x)``, the functional cast ``T(x)`` or the C cast ``(T)x``."""
    if toks[i].text == "static_cast":
        if i + 5 < len(toks) and toks[i + 1].text == "<" and toks[i + 3].text == ">":
            return toks[i + 2].text, i + 5
        return None
    if i + 2 < len(toks) and toks[i + 1].text == "(":
        return toks[i].text, i + 2  # functional cast T(x)
    if i > 0 and toks[i - 1].text == "(" and i + 2 < len(toks) and toks[i + 1].text == ")":
        return toks[i].text, i + 2  # C cast (T)x
    return None


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
