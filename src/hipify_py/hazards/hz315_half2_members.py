"""HZ315 half2-members

## What it detects
Member access `.x` / `.y` on a variable declared (in the same function, or at file scope) as
`half2` or `__half2` (and `__nv_bfloat162` / `__hip_bfloat162`), when `--target-rocm` is
below 7.0.

## Why it breaks on AMD
Older HIP releases exposed the members of `half2` as `unsigned short` bit patterns (the raw
storage), not `__half` values: `h.x` compiled but yielded the raw bits converted to a number,
so arithmetic on it gave different results than on CUDA (hipify-clang warns about the same
pattern). The ROCm 7.2 header `amd_hip_fp16.h` declares `__half x, y;` in `__half2`, as CUDA
does, so the rule is silent for ROCm 7 targets (on ggml's HIP build, every finding it made
for ROCm 7 was a false positive).

## Example
```cuda
__half2 h = __floats2half2_rn(a, b);
float lo = __half2float(h.x);      // HZ315
```

## How to fix
Use the intrinsics: `__low2half(h)`, `__high2half(h)`, `__low2float(h)`, `__high2float(h)`,
or `reinterpret_cast<__half&>(h.x)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import scope_of
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_TYPES = frozenset({"half2", "__half2", "__nv_bfloat162", "__hip_bfloat162", "nv_bfloat162"})


@hazard_rule(
    "HZ315",
    "half2-members",
    Severity.WARNING,
    "half2 .x/.y members are raw unsigned short bits in HIP",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if ctx.options.target_rocm >= (7, 0) or not (_TYPES & unit.identifiers):
        return
    toks = unit.tokens
    names = _half2_variables(unit)
    if not names:
        return
    for i, t in enumerate(toks[:-3]):
        if (
            t.kind is not Kind.IDENT
            or toks[i + 1].text != "."
            or toks[i + 2].text not in ("x", "y")
            or toks[i + 3].text in ("[", "(")  # a member array or call, not the half
        ):
            continue
        kind = names.get((scope_of(unit, i), t.text)) or names.get((-1, t.text))
        if kind:
            yield report(
                t.start,
                toks[i + 2].end,
                f"`{t.text}.{toks[i + 2].text}` on {kind}: HIP stores the "
                f"halves as unsigned short bits; use __low2half/__high2half",
            )


def _half2_variables(unit: Unit) -> dict[tuple[int, str], str]:
    """(scope, name) -> type of every variable declared with a half2 type; scope: the
    function body's ``{`` token, or -1 at file scope (a name means that variable only there)."""
    toks = unit.tokens
    names: dict[tuple[int, str], str] = {}
    for i, t in enumerate(toks):
        if t.kind is Kind.IDENT and t.text in _TYPES and toks[i - 1].text not in ("<", ","):
            _declare(unit, i, names)
    return names


def _declare(unit: Unit, i: int, names: dict[tuple[int, str], str]) -> None:
    """Record in ``names`` each name declared by the half2 type at token ``i``:
    ``half2 a, b = x, c[4];`` declares a, b and c."""
    toks = unit.tokens
    j = i + 1
    while j < len(toks) and toks[j].text in ("&", "const", "__restrict__"):
        j += 1
    while j < len(toks) and toks[j].kind is Kind.IDENT:
        names[(scope_of(unit, j), toks[j].text)] = toks[i].text
        j += 1
        if j < len(toks) and toks[j].text in ("=", "["):
            j = _initializer_end(toks, j)
        if j < len(toks) and toks[j].text == ",":
            j += 1
            continue
        break


def _initializer_end(toks: Sequence[Token], j: int) -> int:
    """The next top-level ``,``, ``;`` or ``)`` from token ``j``: the end of an initializer or
    array bound, where the next declarator (or the end of the declaration) starts."""
    depth = 0
    while j < len(toks) and not (depth == 0 and toks[j].text in (",", ";", ")")):
        depth += toks[j].text in ("(", "[", "{")
        depth -= toks[j].text in (")", "]", "}")
        j += 1
    return j
