"""The kernel a ``<<<`` launches, read from the tokens before it: one answer for every rule
that asks which kernel a launch starts (HZ109 geometry, HZ205 grid sync, HZ401 LDS)."""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward


def launched_name(tokens: Sequence[Token], opener: int) -> str | None:
    """The kernel name before the ``<<<`` at ``opener`` (`k<<<`, `k<T, 4><<<`), or None."""
    i = opener - 1
    if i > 0 and tokens[i].text in (">", ">>"):
        opening = match_angle_backward(tokens, i)
        if opening is None:
            return None
        i = opening - 1
    return tokens[i].text if i >= 0 and tokens[i].kind is Kind.IDENT else None
