"""One build file as its passes see it: text, line index, comments, and where it lives."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from ..edits import Edit, LineIndex
from ..rules import Tally

# every build system's edits are counted together (their tags are ``build/<file kind>``)
BUILD_EDITS = Tally("build/", "build_file_edits", "build-file edits (CMake, Make, setup.py)")


class Span(NamedTuple):
    start: int
    end: int
    text: str


@dataclass
class BuildFile:
    path: str
    text: str
    kind: str  # "cmake", "make" or "setuptools"

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text)

    @cached_property
    def base_dir(self) -> Path:
        """The directory relative names in the file are resolved against (CMake's
        CMAKE_CURRENT_SOURCE_DIR, make's working directory, setup.py's directory)."""
        return Path(self.path).resolve().parent

    @cached_property
    def comments(self) -> list[Span]:
        """``#`` comments (CMake bracket comments too): passes leave them alone and inline
        ``# hipify-py: ignore[HB105]`` suppressions are read from them."""
        if self.kind == "setuptools":
            return _python_comments(self.text)
        return _hash_comments(self.text, cmake=self.kind == "cmake")

    def in_comment(self, offset: int) -> bool:
        return any(c.start <= offset < c.end for c in self.comments)

    @cached_property
    def newline(self) -> str:
        """The file's line ending: lines a pass inserts use it, so a CRLF file stays CRLF."""
        return "\r\n" if "\r\n" in self.text else "\n"

    def indent_at(self, offset: int) -> str:
        """The blanks before ``offset`` when only blanks precede it on its line ("" otherwise):
        a line inserted before or after a command lines up with it."""
        line, _ = self.lines.position(offset)
        start, _ = self.lines.line_span(line)
        indent = self.text[start:offset]
        return indent if not indent.strip() else ""


def _hash_comments(text: str, *, cmake: bool) -> list[Span]:
    """Comments outside quoted strings (and, for CMake, outside bracket arguments)."""
    out: list[Span] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif cmake and c == "[" and _bracket_open(text, i):
            i = _bracket_end(text, i)
        elif c == "#":
            if cmake and text.startswith("[", i + 1) and _bracket_open(text, i + 1):
                end = _bracket_end(text, i + 1)
            else:
                end = text.find("\n", i)
                end = n if end < 0 else end
            out.append(Span(i, end, text[i:end]))
            i = end
        else:
            i += 1
    return out


def _bracket_open(text: str, i: int) -> bool:
    j = i + 1
    while j < len(text) and text[j] == "=":
        j += 1
    return j < len(text) and text[j] == "["


def _bracket_end(text: str, i: int) -> int:
    """End offset of the CMake bracket argument/comment opened at ``i`` (``[==[ ... ]==]``)."""
    j = i + 1
    while text[j] == "=":
        j += 1
    close = "]" + "=" * (j - i - 1) + "]"
    end = text.find(close, j + 1)
    return len(text) if end < 0 else end + len(close)


def _python_comments(text: str) -> list[Span]:
    lines = LineIndex(text)
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                start = lines.offset(tok.start[0], tok.start[1] + 1)
                out.append(Span(start, start + len(tok.string), tok.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def outside(taken: Iterable[object], edits: Iterable[Edit]) -> Iterator[Edit]:
    """``edits`` that do not touch the edits in ``taken``: a flag rewritten or removed as a
    whole wins over renames inside it (``-ccbin=/usr/local/cuda/bin/gcc``)."""
    spans = [(e.start, e.end) for e in taken if isinstance(e, Edit)]
    for e in edits:
        if not any(s < e.end and e.start < end or s == e.start for s, end in spans):
            yield e


def cut_span(text: str, start: int, end: int, floor: int = 0) -> tuple[int, int]:
    """What removing the word at [start, end) removes: the blanks before it, or, for the first
    word on its line, the blanks after it (the line keeps its indentation)."""
    before = start
    while before > floor and text[before - 1] in " \t":
        before -= 1
    if before > floor and text[before - 1] not in "\r\n":
        return before, end
    after = end
    while after < len(text) and text[after] in " \t":
        after += 1
    return start, after


def tidy_cuts(text: str, proposals: list, rule: str) -> list:
    """Deletions that touch become one, and a line a deletion leaves blank goes with it."""
    cuts = sorted((p for p in proposals if isinstance(p, Edit) and not p.text), key=_span)
    merged: list[Edit] = []
    for cut in cuts:
        if merged and cut.start <= merged[-1].end:
            merged[-1] = Edit(merged[-1].start, max(merged[-1].end, cut.end), "", rule)
        else:
            merged.append(cut)
    out = [p for p in proposals if not (isinstance(p, Edit) and not p.text)]
    for cut in merged:
        line_start = text.rfind("\n", 0, cut.start) + 1
        line_end = text.find("\n", cut.end)
        rest = text[line_start : cut.start] + text[cut.end : max(line_end, cut.end)]
        if line_end >= 0 and not rest.strip():
            cut = Edit(line_start, line_end + 1, "", rule)
        elif line_end >= 0 and not text[cut.end : line_end].strip():  # last: the blanks before
            start = cut.start
            while start > line_start and text[start - 1] in " \t":
                start -= 1
            cut = Edit(start, line_end, "", rule)
        elif not text[line_start : cut.start].strip():  # first on its line: take the blanks after
            end = cut.end
            while end < len(text) and text[end] in " \t":
                end += 1
            cut = Edit(cut.start, end, "", rule)
        out.append(cut)
    return out


def _span(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end
