"""Where lines inserted at the top of a file go: the converted runtime ``#include`` and the
shims that must precede a file's first use of what they define.

Both passes insert at one point when a file has no include before that use; ``edits`` puts the
include's lines first.  A point above an include guard would make the inserted block the first
``#ifndef``/``#define`` pair of the file, read as its guard by the next run.
"""

from __future__ import annotations

import bisect

from ..frontend.directives import Include, next_line
from ..frontend.lexer import Kind
from ..frontend.unit import Unit


def include_guard(unit: Unit) -> tuple[int, int] | None:
    """(token index of ``#ifndef X``'s '#', of ``#define X``'s '#') for a file that opens with
    an include guard (a ``#pragma once`` may stand between the two), else None."""
    t = unit.tokens
    if len(t) < 6 or t[0].kind is not Kind.DIRECTIVE or t[1].text != "ifndef":
        return None
    name = t[2].text
    if name in unit.mapped:  # a CUDA name the conversion renames in the #ifndef, not the
        return None  # #define: no guard of the file, or the next run would disagree
    directives = [i for i, tok in enumerate(t[:40]) if tok.kind is Kind.DIRECTIVE][1:5]
    for i in directives:
        if i + 2 < len(t) and t[i + 1].text == "define" and t[i + 2].text == name:
            return 0, i
    return None


def guard_branch(unit: Unit) -> tuple[int, ...]:
    """The branch key of the code inside an include guard, or () when there is none."""
    return (1,) if include_guard(unit) is not None else ()


def insertion_point(unit: Unit, found: list[Include]) -> int:
    """After a leading ``#pragma once``; else inside the include guard; else before the first
    include outside conditionals; else before the first line of code."""
    tokens = unit.tokens
    text = unit.text
    if (
        len(tokens) > 2
        and tokens[0].kind is Kind.DIRECTIVE
        and tokens[1].text == "pragma"
        and tokens[2].text == "once"
    ):
        return _after_directive(unit, 0)
    guard = include_guard(unit)
    if guard is not None:
        ifndef, define = guard
        # right after `#define X` when it follows `#ifndef X`; else right after `#ifndef X`
        return _after_directive(unit, define if define == ifndef + 3 else ifndef)
    outside = _outside_code(unit)
    for inc in found:
        if not inc.branch and inc.start < outside:
            return inc.start
    top = 1 if text.startswith("\ufeff") else 0
    if not tokens:
        return top
    first_code = tokens[0].start
    line = max(text.rfind("\n", 0, first_code), text.rfind("\r", 0, first_code)) + 1
    # a line that continues a spliced one (``\`` at the end of the line above) is no place
    # for a directive: the #include would become part of that line
    spliced = text[:line].rstrip("\r\n").endswith("\\")
    return top if spliced else max(line, top)


def _outside_code(unit: Unit) -> int:
    """The offset of the first bracket the file's code opens: an include past it may be
    inside a statement (FK20-CUDA's `asm volatile(` / `#include "asm.inc"`, compile round
    41), no place for the runtime header."""
    return next(
        (t.start for t in unit.tokens if not t.in_directive and t.text in ("{", "(", "[")),
        len(unit.text),
    )


def _after_directive(unit: Unit, hash_at: int) -> int:
    """The start of the line after the directive whose '#' is token ``hash_at``, continuation
    lines included (an #include put after ``#pragma once\\`` would continue the pragma); the top
    of the file when that line would not stand on its own."""
    tokens = unit.tokens
    last = hash_at
    while (
        last + 1 < len(tokens)
        and tokens[last + 1].in_directive
        and tokens[last + 1].kind is not Kind.DIRECTIVE
    ):
        last += 1
    at = next_line(unit.text, max(tokens[last].start, tokens[last].end - 1))
    return at if _stands_alone(unit, at) else (1 if unit.text.startswith("\ufeff") else 0)


_OPEN_ENDED = (Kind.STRING, Kind.CHAR, Kind.COMMENT)


def _stands_alone(unit: Unit, at: int) -> bool:
    """A line inserted at ``at`` is a line of its own in the next run: the line before does not
    continue into it and no token or comment (an unterminated ``/*`` or literal) spans it."""
    text = unit.text
    prev = at - 1  # the last character of the line before, past one line ending
    prev -= prev >= 0 and text[prev] == "\n"
    prev -= prev >= 0 and text[prev] == "\r"
    if prev >= 0 and text[prev] == "\\":
        return False
    comments = unit.comments
    for found, k in (
        (unit.tokens, unit.token_covering(at - 1)),
        (comments, bisect.bisect_right(comments, at - 1, key=lambda t: t.start) - 1),
    ):
        # a token reaching the end of the file (an unterminated raw string) takes in
        # whatever is appended after it
        if k >= 0 and (
            found[k].end > at or found[k].end == at == len(text) and found[k].kind in _OPEN_ENDED
        ):
            return False
    return True
