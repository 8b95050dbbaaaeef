"""Token navigation for rules and rewrite passes: brackets, statements, operands, argument
ranges, and one finding per line.

Everything works on the raw token list (every preprocessor branch, CUDA and HIP alike); what a
helper computes once per file is kept on the ``Unit`` (``cached``) so that twenty rules share
one scan.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from ..findings import Finding
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_backward, match_forward, split_args
from ..frontend.unit import Unit

T = TypeVar("T")

CONTROL = frozenset(
    {
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "sizeof",
        "decltype",
        "alignof",
        "__attribute__",
        "__launch_bounds__",
        "__declspec",
        "defined",
        "static_assert",
        "noexcept",
        "typeid",
        "alignas",
    }
)
# the C++ cast keywords: `static_cast<T*>(p)` is `p` for where a value goes
CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"})


def cached(unit: Unit, key: str, make: Callable[[], T]) -> T:
    """``make()``, computed once per unit and kept on it under ``key``."""
    value = unit.__dict__.get(key)
    if value is None:
        value = make()
        unit.__dict__[key] = value
    return value


def occurrences(unit: Unit, names: Iterable[str]) -> list[int]:
    """Token indices of every occurrence of ``names``, ascending: taken from the lexer's
    identifier index, so a rule visits its candidate sites instead of every token."""
    positions = unit.identifier_positions
    return sorted(i for name in names for i in positions.get(name, ()))


def inside(sites: Sequence[int], open_: int, close: int) -> Sequence[int]:
    """The ascending token indices ``sites`` strictly between ``open_`` and ``close`` (a
    function's braces), found by binary search."""
    return sites[bisect.bisect_right(sites, open_) : bisect.bisect_left(sites, close)]


match = match_forward  # the shared bracket matcher (frontend.syntax)


match_back = match_backward


def enclosing_paren(toks: Sequence[Token], j: int, floor: int) -> int | None:
    """The `(` whose parentheses hold token ``j`` inside its statement (a call's, an
    assertion's), or None: the walk back stops at `;`, `{`, `}` or token ``floor``."""
    depth = 0
    for k in range(j - 1, floor, -1):
        text = toks[k].text
        if text in (";", "{", "}"):
            return None
        depth += (text == ")") - (text == "(")
        if depth < 0:
            return k
    return None


def statement_end(toks: Sequence[Token], j: int, limit: int) -> int:
    """Last token index of the statement starting at j (a block or up to ';')."""
    if j < len(toks) and toks[j].text == "{":
        return match(toks, j) or limit
    depth = 0
    while j < limit:
        x = toks[j].text
        if x in ("(", "[", "{"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
        elif x == ";" and depth <= 0:
            return j
        j += 1
    return limit


def operand_before(tokens: Sequence[Token], op: int) -> tuple[int, int] | None:
    """Token range [first, op) of the primary/postfix expression left of operator ``op``."""
    j = op - 1
    first = None
    while j >= 0:
        t = tokens[j]
        if t.text in (")", "]"):
            k = match_back(tokens, j)
            if k is None:
                return None
            first = k
            j = k - 1
            if j >= 0 and tokens[j].kind is Kind.IDENT and tokens[j].text not in CONTROL:
                continue  # call or subscript: f(...) / a[...]
            if j >= 0 and tokens[j].text in ("]", ")") and tokens[first].text == "[":
                continue
            break
        if t.kind in (Kind.IDENT, Kind.NUMBER):
            first = j
            j -= 1
            if j >= 0 and tokens[j].text in (".", "->", "::"):
                j -= 1
                continue
            break
        break
    return None if first is None else (first, op)


def split(tokens: Sequence[Token], first: int, end: int) -> list[tuple[int, int]]:
    """Top-level comma split of tokens[first:end] as [first, end) token ranges."""
    return [(arg.first, arg.last + 1) for arg in split_args(tokens, first, end) or ()]


def template_close(toks: Sequence[Token], j: int) -> int | None:
    """The `>` closing the template arguments the `<` at token ``j`` opens; None for a
    comparison: its `>` must come before the statement or condition ends, and a name, `::`,
    `(`, `{`, `;` or `>` follow it."""
    depth = 0
    for k in range(j + 1, min(j + 100, len(toks) - 1)):
        text = toks[k].text
        if text in (";", "{", "}", "&&", "||", "?") or (text == ")" and not depth):
            return None
        depth += (text == "(") - (text == ")")
        if text == ">" and not depth:
            nxt = toks[k + 1]
            return k if nxt.kind is Kind.IDENT or nxt.text in ("::", "(", "{", ";", ">") else None
    return None


def text_of(unit: Unit, first: int, end: int) -> str:
    toks = unit.tokens
    if end <= first:
        return ""
    return " ".join(unit.text[toks[first].start : toks[end - 1].end].split())


def statement_bounds(tokens: Sequence[Token], i: int, lo: int, hi: int) -> tuple[int, int]:
    """Token range [first, last] of the statement holding token i (between ';', '{', '}')."""
    a = i
    while a > lo and tokens[a - 1].text not in (";", "{", "}"):
        a -= 1
    b = i
    while b < hi and tokens[b].text not in (";", "{", "}"):
        b += 1
    return a, b


def has_ident(toks: Sequence[Token], names: set[str] | frozenset[str]) -> bool:
    return any(t.kind is Kind.IDENT and t.text in names for t in toks)


def one_per_line(findings: Iterable[Finding], unit: Unit) -> Iterator[Finding]:
    """The first finding on each line (``a.major > 8 || a.minor > 0`` is one problem)."""
    seen: set[int] = set()
    for f in findings:
        line = unit.lines.position(f.start)[0]
        if line not in seen:
            seen.add(line)
            yield f
