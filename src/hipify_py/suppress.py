"""Inline suppression: ``// hipify-py: ignore[ID, ID2]`` on the line or the line before.

A bare ``// hipify-py: ignore`` silences every rule on that line.  IDs match like ``check
--ignore``: case-insensitively and by prefix (``ignore[hz1]`` silences every HZ1xx rule, ``ALL``
every rule); ``policy.kept_in_file`` applies them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .buildfiles.unit import BuildFile
    from .frontend.unit import Unit

_IGNORE = re.compile(r"hipify-py:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?")


def suppressed_rules(unit: Unit | BuildFile) -> dict[int, set[str] | None]:
    """Line -> rule IDs silenced on that line (None = all), from comments on it or above it."""
    out: dict[int, set[str] | None] = {}
    for comment in unit.comments:
        m = _IGNORE.search(comment.text)
        if not m:
            continue
        ids = (
            None
            if m.group(1) is None
            else {s.strip().upper() for s in m.group(1).split(",") if s.strip()}
        )
        first = unit.lines.position(comment.start)[0]
        last = unit.lines.position(comment.end)[0]
        line_start, _ = unit.lines.line_span(first)
        alone = not unit.text[line_start : comment.start].strip()
        # a comment on a line of its own covers the next line; a trailing one only its own
        for line in (first, last + 1) if alone else (first,):
            if line in out and (out[line] is None or ids is None):
                out[line] = None
            else:
                out[line] = (out.get(line) or set()) | (ids or set()) if ids is not None else None
    return out
