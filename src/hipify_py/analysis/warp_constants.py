"""Named warp-size constants defined as 32 (`#define WARP_SIZE 32`, `constexpr int kWarpSize =
32;`, `enum { kWarpLanes = 32 };`, or a short name its line comment calls the warp size).
HZ107 reports their definitions; HZ101 and HZ102 leave the uses of these names alone, because
the definition is the one place to fix."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .values import int_value

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
