"""Whether a point (a token index, a character offset) lies in one of a file's sorted,
disjoint ranges: the ``#include`` lines a ``<<<`` may sit on, the project's namespace bodies,
the branches the HIP build skips.  One bisection per question instead of a walk over the
ranges, written once here (the lowest layer that asks) for all of them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable


class Spans:
    """Half-open ranges ``[start, end)``, ascending and disjoint; ``i in spans`` is a binary
    search for the last range that starts at or before ``i``."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in spans:
            self._starts.append(start)
            self._ends.append(end)

    def __contains__(self, i: int) -> bool:
        k = bisect.bisect_right(self._starts, i) - 1
        return k >= 0 and i < self._ends[k]
