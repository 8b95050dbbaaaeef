"""The `__ffsll`/`__ffs` calls whose argument is a 64-bit `long` (`uint64_t`, `int64_t`,
`size_t`, `long`): a variable, a cast (C-style or `static_cast`), or an element of a pointer or
array of such a type.  HIP overloads `__ffsll` for `long long` and `unsigned long long` (and
`__ffs` for `int` and `unsigned int`); a `long` converts equally well to both, so the call is
ambiguous on HIP-Clang, while CUDA's single overload takes it.  The ``ffs-cast`` conversion
casts the argument to CUDA's parameter type; HZ317 reports the call where that is not done."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .calls import Call, calls
from .functions import function_at
from .tokens import cached, match

_LONG = frozenset(
    {"uint64_t", "int64_t", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
)
# CUDA's only overload of each: a cast to it makes HIP's call the conversion CUDA's makes
CUDA_PARAMETER = {"__ffsll": "long long", "__ffs": "int"}


class AmbiguousFfs(NamedTuple):
    """One ambiguous call: the call, its argument's type words (last word first, as read
    backwards) and the offset where the cast to ``cast`` goes."""

    call: Call
    words: list[str]
    at: int
    cast: str


def ambiguous_ffs(unit: Unit) -> list[AmbiguousFfs]:
    """Every `__ffsll`/`__ffs` call of the file on a 64-bit `long` argument, found once."""
    return cached(unit, "_ambiguous_ffs", lambda: list(_find(unit)))


def _find(unit: Unit) -> list[AmbiguousFfs]:
    toks = unit.tokens
    out = []
    for c in calls(unit, set(CUDA_PARAMETER)):
        if len(c.args) != 1:
            continue
        words = _argument_type(unit, c)
        if words and _is_long(words):
            a = c.args[0][0]
            out.append(AmbiguousFfs(c, words, toks[a].start, CUDA_PARAMETER[c.name]))
    return out


def _argument_type(unit: Unit, c: Call) -> list[str] | None:
    """The type words of the call's argument, where they can be read."""
    toks = unit.tokens
    a, b = c.args[0]
    arg = toks[a:b]
    if arg[0].text == "(" and len(arg) > 3 and arg[-1].kind is Kind.IDENT:
        close = next((k for k, t in enumerate(arg) if t.text == ")"), None)
        return [t.text for t in reversed(arg[1:close])] if close is not None else None
    if arg[0].text == "static_cast" and len(arg) > 4 and arg[1].text == "<":
        close = next((k for k, t in enumerate(arg) if t.text == ">"), None)
        return [t.text for t in reversed(arg[2:close])] if close is not None else None
    func = function_at(unit, c.index)
    lo = func.params[0] if func else 0
    if len(arg) == 1 and arg[0].kind is Kind.IDENT:
        return _declared_type(toks, arg[0].text, lo, c.index)
    if arg[0].kind is Kind.IDENT and arg[1].text == "[" and match(toks, a + 1) == b - 1:
        return _element_type(toks, arg[0].text, lo, c.index)
    return None


def _declared_type(toks: Sequence[Token], name: str, lo: int, hi: int) -> list[str] | None:
    """Type words of the last declaration of ``name`` in tokens[lo:hi]."""
    found = None
    for k in range(lo, hi):
        t = toks[k]
        if t.kind is Kind.IDENT and t.text == name and toks[k + 1].text in ("=", ";", ",", ")"):
            words: list[str] = []
            j = k - 1
            while j >= lo and (toks[j].kind is Kind.IDENT or toks[j].text in ("::", "*", "&")):
                if toks[j].text in ("*", "&"):
                    words = []
                    break
                words.append(toks[j].text)
                j -= 1
            if words:
                found = words
    return found


def _element_type(toks: Sequence[Token], name: str, lo: int, hi: int) -> list[str] | None:
    """Type words of the elements of ``name`` declared in tokens[lo:hi] as a pointer
    (`const int64_t* masks`) or an array (`int64_t m[4]`): `__ffsll(masks[i])`."""
    found = None
    for k in range(lo + 1, hi):
        if toks[k].text != name:
            continue
        if toks[k + 1].text == "[":
            j = k - 1
        elif toks[k - 1].text == "*" and toks[k - 2].text != "*":
            j = k - 2
        else:
            continue
        words: list[str] = []
        while j >= lo and (toks[j].kind is Kind.IDENT or toks[j].text == "::"):
            words.append(toks[j].text)
            j -= 1
        if words and toks[j].text in ("(", ",", ";", "{", "}"):
            found = words
    return found


def _is_long(words: list[str]) -> bool:
    """The type words name a 64-bit `long` (one `long`, or a typedef of one)."""
    if set(words) & _LONG:
        return True
    return words.count("long") == 1
