"""CMake's command syntax: each ``name(args)`` invocation of a CMakeLists.txt with its argument
words, quoted or bracketed, comments skipped.  Read by the converter (``cmake.py``), the target
rules (``cmake_targets.py``) and the include-directory reader (``include_dirs.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .unit import BuildFile, _bracket_end, _bracket_open


@dataclass
class Arg:
    text: str  # the argument's content (without quotes)
    start: int
    end: int
    quoted: bool


@dataclass
class Command:
    name: str
    start: int  # offset of the name
    open: int  # offset of "("
    close: int  # offset of ")"
    args: list[Arg]


def commands(unit: BuildFile) -> list[Command]:
    """The file's command invocations with their arguments (comments skipped)."""
    text, n = unit.text, len(unit.text)
    out: list[Command] = []
    ident = re.compile(r"[A-Za-z_]\w*")
    i = 0
    while i < n:
        c = text[i]
        if c == "#":
            i = _comment_end(unit, i)
            continue
        m = ident.match(text, i)
        if not m:
            i += 1
            continue
        j = m.end()
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] != "(":
            i = m.end()
            continue
        args, close = _arguments(unit, j)
        out.append(Command(m.group().lower(), i, j, close, args))
        i = close + 1
    return out


def _arguments(unit: BuildFile, open_: int) -> tuple[list[Arg], int]:
    """The arguments of the command whose ``(`` is at ``open_``, and the offset of its ``)``
    (the file's end when it is missing); nested parentheses are not arguments."""
    text, n = unit.text, len(unit.text)
    args: list[Arg] = []
    depth = 0
    i = open_ + 1
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _comment_end(unit, i)
        elif c == "(":
            depth += 1
            i += 1
        elif c == ")":
            if depth == 0:
                return args, i
            depth -= 1
            i += 1
        elif c == '"':
            j = _scan(text, i + 1, '"')
            args.append(Arg(text[i + 1 : j], i + 1, j, True))
            i = j + 1
        elif c == "[" and _bracket_open(text, i):
            end = _bracket_end(text, i)
            args.append(Arg(text[i:end], i, end, True))
            i = end
        else:
            j = _scan(text, i, ' \t\r\n()#"')
            args.append(Arg(text[i:j], i, j, False))
            i = j
    return args, n


def _comment_end(unit: BuildFile, i: int) -> int:
    """Where the comment that starts at ``i`` ends: a bracket comment after its close, a line
    comment at its line's end (or the file's)."""
    end = next((cm.end for cm in unit.comments if cm.start == i), unit.text.find("\n", i))
    return len(unit.text) if end < 0 else end


def _scan(text: str, i: int, stops: str) -> int:
    """The offset of the first character of ``stops`` from ``i`` on (the text's end if none),
    stepping over backslash escapes (``\\"`` does not end a quoted argument)."""
    n = len(text)
    while i < n and text[i] not in stops:
        i += 2 if text[i] == "\\" else 1
    return i
