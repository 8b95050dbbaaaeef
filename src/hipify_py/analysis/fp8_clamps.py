"""Where an FP8 range literal only clamps a value: a bound of `fminf`/`max`/`clamp`, a side of a
comparison, or what a comparison's branch assigns (`if (x > 448.f) x = 448.f;`, `x > 448.f ?
448.f : x`).  Such a clamp before a saturating conversion changes no byte, whatever the format's
true maximum; a conversion written without saturation (`__NV_NOSAT`) in the same function makes
the bound matter again (values past the format's maximum become NaN)."""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .functions import function_at
from .tokens import enclosing_paren

_CLAMPS = frozenset({"fminf", "fmaxf", "fmin", "fmax", "min", "max", "clamp", "__saturatef"})
_COMPARISONS = frozenset({"<", ">", "<=", ">="})
_NO_SATURATION = frozenset({"__NV_NOSAT", "__HIP_NOSAT"})
# how far back a clamp's assignment looks for the comparison that guards it
_GUARD_SPAN = 24


def clamp_bound(unit: Unit, k: int) -> bool:
    """The number at token ``k`` only bounds a value, in a function that converts with
    saturation (none of its conversions says `__NV_NOSAT`)."""
    toks = unit.tokens
    func = function_at(unit, k)
    if func is None or any(
        toks[j].text in _NO_SATURATION for j in range(func.open + 1, func.close)
    ):
        return False
    first = _signed(toks, k)
    if _compared(toks, first, k):
        return True
    if toks[first - 1].text in ("(", ",") and toks[k + 1].text in (")", ","):
        open_ = enclosing_paren(toks, k, func.open)
        return open_ is not None and toks[open_ - 1].text in _CLAMPS
    if toks[first - 1].text in ("=", "?", ":") and toks[k + 1].text in (";", ":", ")"):
        lo = max(func.open, first - _GUARD_SPAN)
        return any(
            toks[j].kind is Kind.NUMBER
            and toks[j].text.rstrip("fFlL") == toks[k].text.rstrip("fFlL")
            and _compared(toks, _signed(toks, j), j)
            for j in range(lo, first)
        )
    return False


def _signed(toks: Sequence[Token], k: int) -> int:
    """Where the number at ``k`` starts with its unary sign, if it has one: the token before a
    sign cannot end an operand (`< -448.f`, `(-448.f`)."""
    if toks[k - 1].text not in ("-", "+"):
        return k
    before = toks[k - 2]
    return k - 1 if before.kind is Kind.PUNCT and before.text not in (")", "]") else k


def _compared(toks: Sequence[Token], first: int, last: int) -> bool:
    """Tokens ``first``..``last`` are one side of a comparison."""
    return toks[first - 1].text in _COMPARISONS or toks[last + 1].text in _COMPARISONS
