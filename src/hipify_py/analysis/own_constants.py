"""Names a function or a class template declares itself: a local `constexpr int warpSize =
32;`, a template parameter named `warpSize`.  Code that uses such a name uses its own constant,
not HIP's run-time wavefront size, so the warp-size rules leave it alone."""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .functions import Func, class_bodies, declaration_head


def shadowed(toks: Sequence[Token], k: int, f: Func) -> bool:
    """`int warpSize = 32;` inside ``f``, or `template <int warpSize, ...>` before it (AMGX's
    `warpReduceSum<VectorSize>`): the name at token ``k`` is the function's own constant, not
    the hardware warp."""
    name = toks[k].text
    if declares_local(toks, f, name):
        return True
    return any(
        template_parameter(toks, j) for j in declaration_head(toks, f) if toks[j].text == name
    )


def declares_local(toks: Sequence[Token], f: Func, name: str) -> bool:
    """``f`` declares ``name`` in its parameters or body: `T name = ...` (`constexpr int
    WARP_SIZE = 64;`, `int width = 32)`), or `T name;` (kaldi's host `int warpSize;`, which
    `cudaDeviceGetAttribute` fills)."""
    return any(
        toks[j].text == name
        and toks[j - 1].kind is Kind.IDENT
        and toks[j - 1].text not in _NOT_TYPES
        and toks[j + 1].text in ("=", ";")
        for j in range(f.params[0] + 1, f.close)
    )


# words before a name that do not declare it (`return warpSize;`)
_NOT_TYPES = frozenset({"return", "case", "else", "throw", "sizeof", "delete", "co_return"})


def class_template_parameter(unit: Unit, k: int) -> bool:
    """The name at token ``k`` is a template parameter of a class template whose body holds it:
    RAFT's `template <int warpSize, int tpb> struct ReductionThinPolicy { static_assert(tpb %
    warpSize == 0); ... }` (round 21) uses its own constant, not HIP's `warpSize`."""
    toks, name = unit.tokens, unit.tokens[k].text
    for open_, close in class_bodies(unit):
        if not open_ < k < close:
            continue
        start = open_
        while start > 0 and toks[start - 1].text not in (";", "{", "}") and open_ - start < 256:
            start -= 1
        if any(toks[j].text == name and template_parameter(toks, j) for j in range(start, open_)):
            return True
    return False


def template_parameter(toks: Sequence[Token], j: int) -> bool:
    """Token ``j`` declares a template parameter: `int warpSize` followed by `,`, `>` or `=`
    inside a `template <...>` (a bracket depth walk back to the `template <`)."""
    if not (0 < j < len(toks) - 1 and toks[j - 1].kind is Kind.IDENT):
        return False
    if toks[j + 1].text not in (",", ">", "=") or toks[j - 1].text in ("return", "sizeof"):
        return False
    depth = 0
    for i in range(j - 1, max(j - 64, 0) - 1, -1):
        text = toks[i].text
        if text in (">", ")"):
            depth += 1
        elif text == "(":
            depth -= 1
        elif text == "<":
            if depth == 0:
                return i > 0 and toks[i - 1].text == "template"
            depth -= 1
        elif text in (";", "{", "}"):
            return False
    return False
