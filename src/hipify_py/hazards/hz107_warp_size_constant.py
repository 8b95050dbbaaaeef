"""HZ107 warp-size-constant-32

## What it detects
A named constant that states the warp size as 32: `#define WARP_SIZE 32`,
`constexpr int kWarpSize = 32;`, `static const int THREADS_PER_WARP = 32;`,
`enum { kWarpLanes = 32 };`. The name must say it is a warp size (warp/lanes per warp), or its
line comment must (`static const int WS = 32; // warp size`), so tile sizes and block sizes of
32 are not reported. A definition in a branch the HIP build never
compiles (the `#else` of an `__HIP_PLATFORM_AMD__` test) is not reported either.

## Why it breaks on AMD
MI300X (gfx942, CDNA3) wavefronts have **64** lanes and CDNA cannot run wave32. Every use of the
constant (lane ids, warp counts, per-warp strides, shared-memory slots per warp) then describes
half a wavefront: reductions drop lanes 32-63 and per-warp slots collide. The definition is the
one place to fix, so the uses are not reported again by HZ101 or HZ102 (shuffle loops bounded by
the constant): the finding lists them as dependent lines (notes in text output, related
locations in SARIF). A constant used only in functions that work in consistent 32-lane groups
(lane and group ids both derived from it, shuffles of width 32) is not reported: such code
computes the same on a 64-lane wavefront, which simply holds two groups.

## Example
```cuda
#define WARP_SIZE 32            // HZ107
int lane = threadIdx.x % WARP_SIZE;
```

## How to fix
Choose the value per platform where the constant is defined:
```cuda
#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64            // CDNA (gfx9); RDNA is 32: prefer warpSize at run time
#else
#define WARP_SIZE 32
#endif
```
or use `warpSize` (a run-time value since HIP 7.0) where no compile-time constant is needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..context import Context
from ..findings import Severity
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule
from ._functions import function_at
from ._values import int_value
from ._warp_model import GROUP32, model_at, related

WARP_NAME = re.compile(
    r"^(?:k_?|c_?|g_?|)(?:warp_?size|warp_?sz|warp_?width|warp_?len(?:gth)?|warp_?lanes|"
    r"warp_?threads|threads_?per_?warp|lanes_?per_?warp|num_?lanes|n_?lanes|lanes|warp|"
    r"num_?threads_?per_?warp|threads_?in_?warp|wave_?size|wavefront_?size|simd_?width|"
    r"cuda_?warp_?size|warp_?size_?static)$",
    re.I | re.M,
)


# `static const int WS = 32; // warp size`: a short name its comment says is the warp size
_COMMENTED = re.compile(
    r"\b(\w+)\s*(?:=\s*)?\(?\s*32[uU]?\s*\)?\s*;?[ \t]*//[^\n]*\bwarp[ _-]?size\b", re.I
)


def definitions(unit: Unit) -> list[tuple[str, int, int]]:
    """(name, first token, value token) of every warp-size-named constant defined as 32."""
    cached = unit.__dict__.get("_hz107_defs")
    if cached is not None:
        return cached
    toks = unit.tokens
    inactive = inactive_in(unit)
    out: list[tuple[str, int, int]] = []
    n = len(toks)
    positions = unit.identifier_positions
    names = set(WARP_NAME.findall(unit.identifier_lines))
    names.update(n for n in _COMMENTED.findall(unit.text) if n in positions)
    named = sorted(i for name in names for i in positions[name])
    for i in named:
        t = toks[i]
        if i + 2 >= n:
            continue
        if t.start in inactive:
            continue
        prev, nxt = toks[i - 1] if i else None, toks[i + 1]
        value = None
        if prev is not None and prev.text == "define" and t.in_directive:
            # object-like `#define NAME 32` (one token body)
            if unit.text[t.end : t.end + 1] == "(":
                continue
            if nxt.in_directive and nxt.kind is Kind.NUMBER and not _more_in_directive(toks, i + 2):
                value = i + 1
        elif not t.in_directive and nxt.text in ("=", "{") and prev is not None:
            j = i + 2
            if j < len(toks) and toks[j].text == "(":
                j += 1
            if (
                j + 1 < len(toks)
                and toks[j].kind is Kind.NUMBER
                and toks[j + 1].text in (";", ",", "}", ")")
            ):
                if _declares(toks, i):
                    value = j
        if value is not None and int_value(toks[value].text) == 32:
            out.append((t.text, i, value))
    unit.__dict__["_hz107_defs"] = out
    return out


def _more_in_directive(toks: Sequence[Token], j: int) -> bool:
    return j < len(toks) and toks[j].in_directive and toks[j].kind is not Kind.DIRECTIVE


def _declares(toks: Sequence[Token], i: int) -> bool:
    """`const`/`constexpr` declaration, or an enumerator, of the name at token i."""
    k = i - 1
    while k >= 0 and toks[k].kind is Kind.IDENT and toks[k].text not in ("return",):
        if toks[k].text in ("constexpr", "const", "enum"):
            return True
        k -= 1
    if toks[k].text in ("{", ",") and k >= 1:  # enumerator: enum { WARP_SIZE = 32 }
        j = k
        while j > 0 and toks[j].text not in (";", "}") and toks[j].text != "enum":
            j -= 1
        return toks[j].text == "enum"
    return False


def reported_names(unit: Unit) -> frozenset[str]:
    """Names whose definition HZ107 reports (their uses are not reported again)."""
    return frozenset(name for name, _, _ in definitions(unit))


@hazard_rule(
    "HZ107",
    "warp-size-constant-32",
    Severity.ERROR,
    "named warp-size constant defined as 32 (wavefronts are 64 wide on MI300X)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for name, i, value in definitions(unit):
        uses = [k for k in unit.identifier_positions[name] if k != i]
        models = {model_at(unit, k) for k in uses if function_at(unit, k) is not None}
        if models == {GROUP32}:
            continue  # every kernel using it works in consistent 32-lane groups
        more = related(unit, uses, i)
        yield report(
            toks[i].start,
            toks[value].end,
            f"`{name}` is defined as 32 lanes: MI300X (gfx942) wavefronts have 64; define it "
            f"per platform (64 on AMD CDNA) or use warpSize at run time, which also fixes "
            f"the lines that use it{more.note}",
            extra=more.extra,
        )
