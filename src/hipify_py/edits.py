"""Edits over the original text, applied once, with a map back to original positions.

Every rule proposes ``Edit`` values instead of changing text, so the written file, the dry-run
diff, the statistics and the mapping of compiler errors back to CUDA lines all come from one
list.  Two edits that touch the same bytes are a bug in a rule and raise ``EditConflict``.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, count, repeat
from operator import add


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    text: str
    rule: str
    # Whole lines inserted at one point go in the order of their passes (``rules.Pass.order``,
    # stamped by ``pipeline.proposals_of``): the runtime #include (headers) before the shims
    # that use what it declares, both before a guard that opens above the first definition.
    # Not part of an edit's identity: the same edit proposed twice is applied once.
    rank: int = field(default=0, compare=False)


class EditConflict(ValueError):
    """Two rules proposed edits over overlapping ranges of the same file."""


def _is_line_insert(edit: Edit) -> bool:
    """An insertion of whole lines (an ``#include``, an annotation comment)."""
    return edit.start == edit.end and edit.text.endswith(("\n", "\r"))


def _checked(edits: Iterable[Edit]) -> list[Edit]:
    """The edits in application order; raises ``EditConflict`` if two touch the same bytes.

    Two insertions at one point compose in one way only when one of them inserts whole lines
    and the other text inside a line (``#include`` above a launch that starts the file): the
    lines go first; or when both insert lines, from passes of different ranks (``Edit.rank``).
    Any other pair at one point has no defined order and is a conflict.
    """
    ordered = sorted(set(edits), key=lambda e: (e.start, e.end, not _is_line_insert(e), e.rank))
    for before, after in zip(ordered, ordered[1:], strict=False):
        overlaps = after.start < before.end
        same_point_inserts = before.start == before.end == after.start == after.end
        if same_point_inserts and _is_line_insert(before) != _is_line_insert(after):
            same_point_inserts = False
        elif same_point_inserts and _is_line_insert(before) and after.rule != before.rule:
            same_point_inserts = before.rank == after.rank
        if overlaps or same_point_inserts:
            raise EditConflict(
                f"edits overlap: {before.rule} [{before.start},{before.end}) and "
                f"{after.rule} [{after.start},{after.end})"
            )
    return ordered


@dataclass(frozen=True)
class Applied:
    """The result of applying edits: the new text and how to find where it came from."""

    text: str
    edits: tuple[Edit, ...]
    # For each edit, (new_start, new_end) of its replacement in the new text.
    _new_starts: tuple[int, ...]
    _new_ends: tuple[int, ...]

    def original_offset(self, new_offset: int) -> int:
        """Where a position in the new text came from in the original text.

        Inside a replacement, the answer is the start of the replaced range (the best a reader
        can be shown); between replacements the shift is exact.
        """
        i = bisect.bisect_right(self._new_starts, new_offset) - 1
        if i < 0:
            return new_offset
        edit = self.edits[i]
        if new_offset < self._new_ends[i]:
            return edit.start
        return edit.end + (new_offset - self._new_ends[i])


def apply_edits(text: str, edits: Iterable[Edit]) -> Applied:
    ordered = _checked(edits)
    parts: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    pos = 0
    out_len = 0
    for edit in ordered:
        chunk = text[pos : edit.start]
        parts.append(chunk)
        out_len += len(chunk)
        new_starts.append(out_len)
        parts.append(edit.text)
        out_len += len(edit.text)
        new_ends.append(out_len)
        pos = edit.end
    parts.append(text[pos:])
    return Applied("".join(parts), tuple(ordered), tuple(new_starts), tuple(new_ends))


def _line_lengths(text: str) -> Iterator[int]:
    """The lengths of ``text.split("\\n")``, split a slice at a time: the whole split held a
    string per line."""
    pos = 0
    while True:
        cut = text.find("\n", pos + _SLICE) if pos + _SLICE < len(text) else -1
        if cut < 0:
            yield from map(len, text[pos:].split("\n"))
            return
        yield from map(len, text[pos:cut].split("\n"))
        pos = cut + 1


_SLICE = 1 << 20


class LineIndex:
    """Offsets to 1-based (line, column) and back, for one text.

    A line ends at ``\n``, ``\r\n`` or a lone ``\r`` (old Mac line endings), as it does for the
    compiler: a CR-only file has as many lines for us as for clang.
    """

    def __init__(self, text: str) -> None:
        # arrays: 16 bytes a line (a file of 8 million continued lines held 640 MB in lists)
        self._starts = array("q", [0])
        self._len = len(text)
        if "\r" in text:
            self._starts.extend(m.end() for m in _LINE_END.finditer(text))
            self._ends = array("q", (m.start() for m in _LINE_END.finditer(text)))
            return
        # line k ends at the sum of the lengths of lines 0..k plus its k newlines (in C)
        self._ends = array("q", map(add, accumulate(_line_lengths(text)), count()))
        self._ends.pop()  # the end of the text, not of a line
        self._starts.extend(map(add, self._ends, repeat(1)))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def offset(self, line: int, column: int = 1) -> int:
        line = max(1, min(line, len(self._starts)))
        return min(self._starts[line - 1] + column - 1, self._len)

    def line_start(self, offset: int) -> int:
        """The offset where the line holding ``offset`` starts."""
        return self._starts[bisect.bisect_right(self._starts, offset) - 1]

    def line_span(self, line: int) -> tuple[int, int]:
        """(start, end) offsets of a 1-based line, without its line ending."""
        start = self._starts[line - 1]
        end = self._ends[line - 1] if line < len(self._starts) else self._len
        return start, end


_LINE_END = re.compile(r"\r\n?|\n")
