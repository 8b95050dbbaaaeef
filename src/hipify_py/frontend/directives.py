"""Preprocessor lines read from the lexer's tokens: the one place that walks ``#if`` nesting,
finds ``#include`` targets and ``#define`` values.

The rewrite passes (``rewrite/headers``, ``rewrite/version_gates``), the HIP branch evaluator
(``frontend/conditions``) and ``verify`` (which follows a converted tree's includes) all read
directives through these functions, so they agree on what a directive line is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .lexer import Kind, Token, lex

CONDITIONAL_OPEN = frozenset({"if", "ifdef", "ifndef"})
CONDITIONAL_NEXT = frozenset({"elif", "else", "elifdef", "elifndef"})

# `#define NAME` in a file's raw bytes: the tree-wide scans read every file without lexing it.
# At the start of a line, so a commented-out `//#define NAME` defines nothing (specfem3d's
# `//#define USE_TEXTURES_FIELDS`, round 33)
DEFINED_NAME = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)

# on the directive's own line only: a path that ran on over a line break (or a lone CR) would
# cover code the identifier pass renames.  A `/*` or `//` between `<` and `>` is undefined
# behaviour, and the lexer reads a comment there (possibly to the end of the file): such a line
# is not an include to rewrite, or its rewrite would turn that comment back into code.
_TARGET = re.compile(r'#[ \t]*include(?:_next)?[ \t]*(<((?:[^>\r\n/]|/(?![*/]))*)>|"([^"\r\n]*)")')


class Line(NamedTuple):
    """One preprocessor line: its ``#`` (token ``at``), its ``word`` (``if``, ``define``, "" for
    a null directive) and the tokens after the word up to the end of the logical line."""

    at: int  # index in ``tokens`` of the '#'
    word: str
    body: Sequence[Token]
    start: int  # offset of the '#'
    end: int  # offset just past the line's last token
    after: int  # index in ``tokens`` just past the line's last token


class Define(NamedTuple):
    """A `#define` line's parts: its name, its parameters' names (None for an object-like
    macro; `NAME(` with no space makes it function-like) and its replacement tokens."""

    name: Token
    params: list[str] | None
    body: Sequence[Token]


def define_of(line: Line) -> Define | None:
    """``line``'s macro definition, or None for another directive or a `#define` of nothing."""
    if line.word != "define" or not line.body:
        return None
    name, rest = line.body[0], line.body[1:]
    if not rest or rest[0].text != "(" or rest[0].start != name.end:
        return Define(name, None, rest)
    close = next((k for k, t in enumerate(rest) if t.text == ")"), len(rest) - 1)
    params = [t.text for t in rest[1:close] if t.kind is Kind.IDENT]
    return Define(name, params, rest[close + 1 :])


def branch_bounds(word: Callable[[int], str], at: int, end: int) -> list[int]:
    """The directive positions of the ``#if`` at position ``at`` (``word(k)`` is the word of
    directive ``k``): its line, each ``#elif``/``#else`` of the same level, and its ``#endif``;
    the list stops short when no ``#endif`` comes before position ``end``."""
    bounds, depth = [at], 0
    for k in range(at + 1, end):
        w = word(k)
        if w in CONDITIONAL_OPEN:
            depth += 1
        elif depth and w == "endif":
            depth -= 1
        elif not depth and w in ("elif", "else", "endif"):
            bounds.append(k)
            if w == "endif":
                break
    return bounds


def lines(tokens: Sequence[Token], directives: Sequence[int]) -> list[Line]:
    """Every preprocessor line, in order (``directives``: the lexer's for ``tokens``).

    Kept for the last token list asked about: the headers pass, the HIP branch evaluator,
    the macro-definition finder and the structure check all read the same file's lines."""
    if _lines_cache[0] is not tokens:
        _lines_cache[:] = [tokens, list(_lines(tokens, directives))]
    return _lines_cache[1]


_lines_cache: list = [None, None]  # [tokens, their lines]


def forget_lines(tokens: Sequence[Token]) -> None:
    """Drop the lines kept for ``tokens`` (they hold the list)."""
    if _lines_cache[0] is tokens:
        _lines_cache[:] = [None, None]


def _lines(tokens: Sequence[Token], directives: Sequence[int]) -> Iterator[Line]:
    n = len(tokens)
    for d in directives:
        has_word = d + 1 < n and tokens[d + 1].in_directive
        word = tokens[d + 1].text if has_word else ""
        end = d + 2 if has_word else d + 1
        while end < n and tokens[end].in_directive and tokens[end].kind is not Kind.DIRECTIVE:
            end += 1
        body = tokens[d + 2 : end] if has_word else ()
        yield Line(d, word, body, tokens[d].start, tokens[end - 1].end, end)


@dataclass(frozen=True)
class Include:
    start: int  # start of the '#'
    line_end: int  # end of the line, including its newline
    path: str
    path_start: int  # the delimiters '<' or '"' included
    path_end: int
    angled: bool
    branch: tuple[int, ...]  # the #if branches enclosing it (a key per branch, outermost first)
    # nothing but the include (and a // comment) on its line, which does not continue onto the
    # next one: the line can be deleted without changing what the next line is
    alone: bool = True


def includes(text: str, tokens: Sequence[Token], directives: Sequence[int]) -> list[Include]:
    """Every ``#include`` / ``#include_next`` with its target and enclosing branches."""
    found: list[Include] = []
    stack: list[int] = []
    counter = 0
    for line in lines(tokens, directives):
        word = line.word
        if word in CONDITIONAL_OPEN:
            counter += 1
            stack.append(counter)
        elif word in CONDITIONAL_NEXT:
            counter += 1
            if stack:
                stack[-1] = counter
        elif word == "endif":
            if stack:
                stack.pop()
        elif word in ("include", "include_next"):
            m = _TARGET.match(text, line.start)
            if m is None:
                continue
            angled = m.group(2) is not None
            line_end = next_line(text, line.start)
            rest = text[m.end() : line_end].strip()
            alone = not rest.endswith("\\") and (not rest or rest.startswith("//"))
            found.append(
                Include(
                    line.start,
                    line_end,
                    m.group(2) if angled else m.group(3),
                    m.start(1),
                    m.end(1),
                    angled,
                    tuple(stack),
                    alone,
                )
            )
    return found


def include_targets(text: str) -> list[str]:
    """The paths a file includes (``<a/b.h>`` and ``"c.h"`` alike), in order."""
    lexed = lex(text)
    return [inc.path for inc in includes(text, lexed.tokens, lexed.directives)]


def next_line(text: str, offset: int) -> int:
    """The offset just past the end of the line holding ``offset`` (its newline included)."""
    m = _LINE_END.search(text, offset)
    return m.end() if m else len(text)


_LINE_END = re.compile(r"\r\n?|\n")


def defined_names(tokens: Sequence[Token], directives: Sequence[int]) -> set[str]:
    """Every macro name a ``#define`` line defines, in any branch."""
    return {
        line.body[0].text
        for line in lines(tokens, directives)
        if line.word == "define" and line.body and line.body[0].kind is Kind.IDENT
    }


def macro_numbers(text: str) -> dict[str, int]:
    """``#define NAME <integer>`` values of a header (``hip_version.h``), the last one winning."""
    lexed = lex(text)
    out: dict[str, int] = {}
    for line in lines(lexed.tokens, lexed.directives):
        body = line.body
        if line.word == "define" and len(body) == 2 and body[1].kind is Kind.NUMBER:
            value = integer(body[1].text)
            if value is not None:
                out[body[0].text] = value
    return out


def integer(literal: str) -> int | None:
    """The value of a C integer literal (``12000``, ``0x7fU``, ``10L``), None for others."""
    try:
        return int(literal.rstrip("uUlL"), 0)
    except ValueError:
        return None


def defined_span(toks: Sequence[Token], i: int) -> tuple[int, int] | None:
    """Byte span of ``defined NAME`` / ``defined ( NAME )`` around token i, if it is one."""
    if i >= 1 and toks[i - 1].text == "defined":
        return toks[i - 1].start, toks[i].end
    if (
        i >= 2
        and toks[i - 1].text == "("
        and toks[i - 2].text == "defined"
        and i + 1 < len(toks)
        and toks[i + 1].text == ")"
    ):
        return toks[i - 2].start, toks[i + 1].end
    return None


ARCH = "__CUDA_ARCH__"


def device_pass_test(word: str, body: Sequence[Token]) -> bool:
    """The directive (``word``, ``body``) asks whether this is the device pass, not for an
    architecture: ``#ifdef __CUDA_ARCH__``, or an ``#if``/``#elif`` whose every
    ``__CUDA_ARCH__`` is a defined-test (``defined(__CUDA_ARCH__) && X``).  The branch
    evaluator and the pass that rewrites such tests for HIP ask this one question."""
    if word in ("ifdef", "ifndef"):
        return len(body) == 1 and body[0].text == ARCH
    uses = [k for k, t in enumerate(body) if t.text == ARCH]
    return (
        word in ("if", "elif")
        and bool(uses)
        and all(defined_span(body, k) is not None for k in uses)
    )
