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
COMMENTED = re.compile(
    r"\b(\w+)\s*(?:=\s*)?\(?\s*32[uU]?\s*\)?\s*;?[ \t]*//([^\n]*)\bwarp[ _-]?size\b", re.I
)
# a comment that measures the value against the warp size rather than calling it one:
# `stride_factor = 32; // Should be >= warpSize for good effect` (100-days-of-cuda, round 42)
COMPARED = re.compile(r"[<>]|\b(?:multiple|least|most|greater|less|more|than|times)\b", re.I)


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
    names.update(
        n
        for n, said in COMMENTED.findall(unit.text)
        if n in positions and not COMPARED.search(said)
    )
    named = sorted(i for name in names for i in positions[name])
    for i in named:
        if i + 1 >= n or toks[i].start in inactive:
            continue  # `#define WARP_SIZE 32` may end the file
        value = _value_of(toks, i)
        if value is not None and int_value(toks[value].text) == 32:
            out.append((toks[i].text, i, value))
    unit.__dict__["_hz107_defs"] = out
    return out


def _value_of(toks: Sequence[Token], i: int) -> int | None:
    """The number token that the name at token ``i`` is defined as: `#define NAME 32` (one
    token body, not a function-like macro), `const int NAME = 32;`, `NAME = (32)` of an
    enum; None for anything else."""
    t, nxt = toks[i], toks[i + 1]
    prev = toks[i - 1] if i else None
    if prev is None:
        return None
    if prev.text == "define" and t.in_directive:
        if nxt.start == t.end and nxt.text == "(":
            return None  # a function-like macro
        if nxt.in_directive and nxt.kind is Kind.NUMBER and not _more_in_directive(toks, i + 2):
            return i + 1
        return None
    if t.in_directive or nxt.text not in ("=", "{"):
        return None
    j = i + 2
    if j < len(toks) and toks[j].text == "(":
        j += 1
    if (
        j + 1 < len(toks)
        and toks[j].kind is Kind.NUMBER
        and toks[j + 1].text in (";", ",", "}", ")")
        and _declares(toks, i)
    ):
        return j
    return None


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


def uses(unit: Unit, name: str, at: int) -> tuple[list[int], list[int]]:
    """The uses of the constant ``name`` defined at token ``at``: those that name it (not in
    an `#ifndef NAME` test or a redefinition), and those that reach it through a macro
    whose body names it (`#define ROUND(n) (((n) + WARP_SIZE - 1) / WARP_SIZE)`, two levels
    deep), where the code that uses the value is."""
    direct = _named(unit, name, at)
    reached, seen = list(direct), {name}
    for _ in range(2):
        macros = {m for k in reached if (m := _macro_of(unit.tokens, k)) and m not in seen}
        seen |= macros
        reached += [j for m in macros for j in _named(unit, m, -1)]
    return direct, reached


def _named(unit: Unit, name: str, at: int) -> list[int]:
    """The uses HIP compiles: not those in a branch it skips (the CUDA samples'
    tf32TensorCoreGemm uses `WARP_SIZE` only under `#if __CUDA_ARCH__ >= 800`, round 21)."""
    toks = unit.tokens
    inactive = inactive_in(unit)
    out = []
    for k in unit.identifier_positions.get(name, ()):
        if k == at or toks[k].start in inactive:
            continue
        word, macro = _directive(toks, k)
        if word in ("ifdef", "ifndef", "undef", "if", "elif", "defined") or (
            word == "define" and macro == k
        ):
            continue
        if not _in_assertion(toks, k):
            out.append(k)
    return out


_ASSERTION_REACH = 200  # tokens looked back for the assertion a use is an argument of


def _in_assertion(toks: Sequence[Token], k: int) -> bool:
    """Token ``k`` is in the arguments of an assertion (`assert`, a project's `curassert`,
    `static_assert`): it checks a bound, computes nothing (High-Performance-BVH-Builder's
    `curassert(warp_n_clusters <= WARP_SIZE, ...)`, round 43: a false HZ107)."""
    depth = 0
    for j in range(k - 1, max(0, k - _ASSERTION_REACH), -1):
        text = toks[j].text
        if text == ")":
            depth += 1
        elif text == "(":
            if (
                depth == 0
                and toks[j - 1].kind is Kind.IDENT
                and "assert" in toks[j - 1].text.lower()
            ):
                return True
            depth = max(0, depth - 1)
        elif text in (";", "{", "}"):
            return False
    return False


def _directive(toks: Sequence[Token], k: int) -> tuple[str, int]:
    """The directive word around token ``k`` and the token index of its first operand, or
    ("", -1) outside directives."""
    if not toks[k].in_directive:
        return "", -1
    j = k
    while j > 0 and toks[j].kind is not Kind.DIRECTIVE:
        j -= 1
    return (toks[j + 1].text if j + 1 < len(toks) else ""), j + 2


def _macro_of(toks: Sequence[Token], k: int) -> str | None:
    """The macro whose `#define` body holds token ``k``."""
    word, macro = _directive(toks, k)
    if word != "define" or macro >= k:
        return None
    return toks[macro].text


def reported_names(unit: Unit) -> frozenset[str]:
    """Names of the file's warp-size constants: the definition is the one place to fix (HZ107
    reports it where the constant meets the hardware wavefront), so HZ101 and HZ102 do not
    report their uses again; nor those of the tree's constants a header defines."""
    return frozenset(name for name, _, _ in definitions(unit)) | unit.tree_warp_constants
