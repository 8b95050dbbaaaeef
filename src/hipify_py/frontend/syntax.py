"""Token navigation shared by all rules: bracket matching and argument splitting.

Works on the raw token list (every preprocessor branch), so it must tolerate broken code: every
search is bounded and returns None instead of raising when brackets do not balance.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import NamedTuple

from ..frontend.lexer import Kind, Token

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}
_STATEMENT_END = {";"}


def match_forward(tokens: Sequence[Token], i: int) -> int | None:
    """Index of the bracket closing tokens[i] ('(' '[' '{'), or None.

    From code, preprocessor lines in between are skipped (an ``#if`` inside an argument list
    does not end it); from inside a macro body, the search never leaves that body.
    """
    if len(tokens) >= _TABLE_FROM:
        return _tables(tokens, forward=True).get(i)
    return _match(tokens, i, range(i + 1, len(tokens)), _OPEN, _CLOSE)


def match_backward(tokens: Sequence[Token], i: int) -> int | None:
    """Index of the bracket opening tokens[i] (')' ']' '}'), or None."""
    if len(tokens) >= _TABLE_FROM:
        return _tables(tokens, forward=False).get(i)
    return _match(tokens, i, range(i - 1, -1, -1), _CLOSE, _OPEN)


def _match(tokens: Sequence[Token], i: int, order: range, opens: dict, closes: dict) -> int | None:
    want = [opens[tokens[i].text]]
    inside = tokens[i].in_directive
    for j in order:
        tok = tokens[j]
        if tok.kind is not Kind.PUNCT or (tok.in_directive and not inside):
            continue
        if inside and not tok.in_directive:
            return None
        text = tok.text
        if text in opens:
            want.append(opens[text])
        elif text in closes:
            if want[-1] != text:
                return None
            want.pop()
            if not want:
                return j
    return None


# From this many tokens on, every bracket's match is computed in one pass and kept: a search
# per call from an unclosed bracket would scan to the end of the file each time, and rules
# that walk a broken file bracket by bracket would take quadratic time.
_TABLE_FROM = 256
_table_cache: list = [None, None, None]  # [tokens, forward table, backward table]


class _Table(NamedTuple):
    found: dict[int, int]
    # every bracket matched and no search cut short: the other direction's table is this
    # one's inverse, so it need not be computed
    balanced: bool


def know_brackets(tokens: Sequence[Token], forward: dict[int, int], balanced: bool) -> None:
    """The forward table the lexer built for ``tokens`` (``Lexed.brackets``): kept, so no pass
    over the brackets is made for it (the backward table is its inverse when balanced)."""
    _table_cache[:] = [tokens, _Table(forward, balanced), None]


def forget_brackets(tokens: Sequence[Token]) -> None:
    """Drop the tables kept for ``tokens`` (they hold the list)."""
    if _table_cache[0] is tokens:
        _table_cache[:] = [None, None, None]


def _tables(tokens: Sequence[Token], forward: bool) -> dict[int, int]:
    if _table_cache[0] is not tokens:
        _table_cache[:] = [tokens, None, None]
    slot = 1 if forward else 2
    table = _table_cache[slot]
    if table is None:
        other = _table_cache[3 - slot]
        if other is not None and other.balanced:
            table = _Table({b: a for a, b in other.found.items()}, True)
        else:
            table = _match_all(tokens, forward)
        _table_cache[slot] = table
    return table.found


_BRACKETS = frozenset("()[]{}")
token_text = attrgetter("text")


def spelled(tokens: Sequence[Token], texts: Container[str]) -> list[int]:
    """Indices of the tokens spelled as one of ``texts`` (brackets, operators, keywords),
    ascending, by a scan that runs in C."""
    return list(compress(range(len(tokens)), map(texts.__contains__, map(token_text, tokens))))


def _match_all(tokens: Sequence[Token], forward: bool) -> _Table:
    """What ``_match`` answers for every bracket, in one pass (absent: None).

    One stack for code and one for the macro body being read: brackets pending on a stack share
    every later event, so a mismatched closer fails all of them at once, and code punctuation
    ends every search that started inside a directive.  Only bracket tokens are visited (picked
    out at C speed); the code punctuation between two brackets of a directive is looked for
    only while that directive has brackets pending."""
    opens, closes = (_OPEN, _CLOSE) if forward else (_CLOSE, _OPEN)
    at = spelled(tokens, _BRACKETS)
    if not forward:
        at.reverse()
    found: dict[int, int] = {}
    code: list[int] = []
    directive: list[int] = []
    balanced = True
    previous = -1  # the last directive bracket visited
    for j in at:
        tok = tokens[j]
        if tok.kind is not Kind.PUNCT:
            continue
        if tok.in_directive:
            if directive and _code_punctuation_between(tokens, previous, j):
                directive.clear()
                balanced = False
            previous = j
            stack = directive
        else:
            if directive:
                directive.clear()
                balanced = False
            stack = code
        text = tok.text
        if text in opens:
            stack.append(j)
        elif text in closes:
            if stack and opens[tokens[stack[-1]].text] == text:
                found[stack.pop()] = j
            else:
                stack.clear()
                balanced = False
    return _Table(found, balanced and not code and not directive)


def _code_punctuation_between(tokens: Sequence[Token], a: int, b: int) -> bool:
    lo, hi = (a, b) if a < b else (b, a)
    return any(t.kind is Kind.PUNCT and not t.in_directive for t in tokens[lo + 1 : hi])


def match_angle_backward(tokens: Sequence[Token], i: int) -> int | None:
    """Index of the '<' opening template arguments that end at tokens[i] ('>' or '>>')."""
    depth = 0
    directive = tokens[i].in_directive
    j = i
    while j >= 0:
        tok = tokens[j]
        text = tok.text
        if tok.in_directive != directive or text in _STATEMENT_END or text == "{":
            return None
        if text == ">":
            depth += 1
        elif text == ">>":
            depth += 2
        elif text == "<":
            depth -= 1
            if depth == 0:
                return j
        elif tok.kind is Kind.PUNCT and text in _CLOSE:
            k = match_backward(tokens, j)
            if k is None:
                return None
            j = k
        j -= 1
    return None


@dataclass(frozen=True, slots=True)
class Arg:
    first: int  # token index of the first token
    last: int  # token index of the last token

    def span(self, tokens: Sequence[Token]) -> tuple[int, int]:
        return tokens[self.first].start, tokens[self.last].end

    def text(self, tokens: Sequence[Token], source: str) -> str:
        start, end = self.span(tokens)
        return source[start:end]


def split_args(tokens: Sequence[Token], first: int, end: int) -> list[Arg] | None:
    """Split tokens[first:end] at top-level commas (brackets and template angles respected).

    Returns [] for an empty range and None when brackets do not balance.
    """
    args: list[Arg] = []
    start = first
    j = first
    while j < end:
        past = _past_group(tokens, j, first, end)
        if past == _UNBALANCED:
            return None
        if past is not None:
            j = past
            continue
        if tokens[j].text == ",":
            if j == start:
                return None
            args.append(Arg(start, j - 1))
            start = j + 1
        j += 1
    if start < end:
        args.append(Arg(start, end - 1))
    elif args:
        return None  # trailing comma
    return args


_UNBALANCED = -1


def _past_group(tokens: Sequence[Token], j: int, first: int, end: int) -> int | None:
    """The index just past the bracketed group that opens at ``j`` (brackets, a launch
    configuration, template angles), whose commas are not the argument list's: None when
    none opens there, ``_UNBALANCED`` when a bracket or launch does not close before ``end``
    (an unclosed ``<`` is a less-than)."""
    text = tokens[j].text
    if tokens[j].kind is Kind.PUNCT and text in _OPEN:
        k = match_forward(tokens, j)
        return _UNBALANCED if k is None or k >= end else k + 1
    if text == "<<<":  # a launch configuration inside an argument: its commas are its own
        k = _match_launch_config(tokens, j, end)
        return _UNBALANCED if k is None else k + 1
    if text == "<" and j > first and _looks_like_template_open(tokens, j, end):
        k = _match_angle_forward(tokens, j, end)
        return None if k is None else k + 1
    return None


def _match_launch_config(tokens: Sequence[Token], j: int, end: int) -> int | None:
    """The ``>>>`` closing the ``<<<`` at j (nested launches counted), before ``end``."""
    depth = 0
    for k in range(j, end):
        text = tokens[k].text
        if text == "<<<":
            depth += 1
        elif text == ">>>":
            depth -= 1
            if depth == 0:
                return k
    return None


def _looks_like_template_open(tokens: Sequence[Token], j: int, end: int) -> bool:
    prev = tokens[j - 1]
    return prev.kind is Kind.IDENT and prev.text not in {"return", "sizeof"}


def _match_angle_forward(tokens: Sequence[Token], j: int, end: int) -> int | None:
    """The '>' closing a template '<' at j, unless the run looks like a comparison."""
    depth = 0
    k = j
    while k < end:
        text = tokens[k].text
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
        elif text == ">>":
            depth -= 2
            if depth < 0:
                return None
        elif text in ("&&", "||", ";", "{", "}", "?"):
            return None
        elif text in _OPEN:
            m = match_forward(tokens, k)
            if m is None:
                return None
            k = m
        if depth == 0:
            return k
        k += 1
    return None


def call_args(tokens: Sequence[Token], i: int) -> list[Arg] | None:
    """Arguments of the call whose name is tokens[i], or None if it is not a call."""
    if i + 1 >= len(tokens) or tokens[i + 1].text != "(":
        return None
    close = match_forward(tokens, i + 1)
    if close is None:
        return None
    return split_args(tokens, i + 2, close)


def opener_width(tokens: Sequence[Token], i: int) -> int:
    """1 for a ``<<<`` at tokens[i], 2 for ``<< <`` (a launch as clang-format may leave it:
    ``<<`` then ``<`` is no C++ expression, so it opens a launch), else 0."""
    text = tokens[i].text
    if text == "<<<":
        return 1
    if text != "<<" or i + 1 >= len(tokens):
        return 0
    nxt = tokens[i + 1]
    return 2 if nxt.text == "<" and nxt.kind is Kind.PUNCT else 0


def closer_width(tokens: Sequence[Token], i: int) -> int:
    """1 for ``>>>`` at tokens[i], 2 for ``>> >`` or ``> >>`` (the spaced forms), else 0."""
    text = tokens[i].text
    if text == ">>>":
        return 1
    if text not in (">>", ">") or i + 1 >= len(tokens):
        return 0
    return 2 if tokens[i + 1].text == {">>": ">", ">": ">>"}[text] else 0


def launch_config_end(
    tokens: Sequence[Token], chevron: int, inner: Mapping[int, int | None]
) -> int | None:
    """Index of the last token of the ``>>>`` (or ``>> >``) that closes the launch
    configuration opened at ``chevron``, skipping bracketed groups, and the launches nested in
    it by ``inner`` (the ends of every later opener); None where a statement, a block or the
    directive ends first (``Unit.launch_config_ends`` keeps the answers)."""
    j = chevron + opener_width(tokens, chevron)
    directive = tokens[chevron].in_directive
    while j < len(tokens):
        tok = tokens[j]
        text = tok.text
        if tok.in_directive != directive or text in (";", "}"):
            return None
        width = closer_width(tokens, j)
        if width:
            return j + width - 1
        if opener_width(tokens, j):  # a launch inside the configuration (rewritten on its own)
            end = inner.get(j)
            if end is None:
                return None
            j = end
        elif tok.kind is Kind.PUNCT and text in ("(", "[", "{"):
            k = match_forward(tokens, j)
            if k is None:
                return None
            j = k
        j += 1
    return None
