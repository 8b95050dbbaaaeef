"""Removing one keyword the HIP compiler rejects (`register`, a misplaced `__restrict__`, a
`const` assigned again), with the blanks after it, so the line keeps its layout."""

from __future__ import annotations

from ..edits import Edit
from ..frontend.unit import Unit


def drop_word(unit: Unit, i: int, rule: str) -> Edit:
    """The edit that deletes token ``i`` and the spaces and tabs that follow it."""
    text = unit.text
    end = unit.tokens[i].end
    while end < len(text) and text[end] in " \t":
        end += 1
    return Edit(unit.tokens[i].start, end, "", rule)
