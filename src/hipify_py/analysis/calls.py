"""Calls of named functions and intrinsics found from tokens, and the warp intrinsics rules
look for."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass

from ..frontend.unit import Unit
from .tokens import match, occurrences, split

SHUFFLES = {  # name -> index of the width argument
    "__shfl": 2,
    "__shfl_up": 2,
    "__shfl_down": 2,
    "__shfl_xor": 2,
    "__shfl_sync": 3,
    "__shfl_up_sync": 3,
    "__shfl_down_sync": 3,
    "__shfl_xor_sync": 3,
}


BALLOTS = frozenset(
    {
        "__ballot",
        "__ballot_sync",
        "__activemask",
        "__ballot64",
        "__lanemask_lt",
        "__lanemask_le",
        "__lanemask_gt",
        "__lanemask_ge",
        "__lanemask_eq",
        "__match_any_sync",
        "__match_all_sync",
    }
)


MASKED_SYNC = frozenset(
    {
        "__shfl_sync",
        "__shfl_up_sync",
        "__shfl_down_sync",
        "__shfl_xor_sync",
        "__ballot_sync",
        "__any_sync",
        "__all_sync",
        "__uni_sync",
        "__match_any_sync",
        "__match_all_sync",
        "__syncwarp",
        "__reduce_add_sync",
        "__reduce_min_sync",
        "__reduce_max_sync",
        "__reduce_and_sync",
        "__reduce_or_sync",
        "__reduce_xor_sync",
    }
)


@dataclass(frozen=True)
class Call:
    name: str
    index: int  # token index of the name
    open: int
    close: int
    args: tuple[tuple[int, int], ...]  # token ranges [first, end)


def calls(unit: Unit, names: Collection[str]) -> Iterator[Call]:
    """Every call ``name(...)`` of one of ``names`` (also in macro bodies and #if branches)."""
    toks = unit.tokens
    present = set(names) & unit.identifiers
    if not present:
        return
    for i in occurrences(unit, present):
        t = toks[i]
        if (
            i + 1 < len(toks)
            and toks[i + 1].text == "("
            and not (i > 0 and toks[i - 1].text in (".", "->"))
        ):
            close = match(toks, i + 1)
            if close is None:
                continue
            yield Call(t.text, i, i + 1, close, tuple(split(toks, i + 2, close)))
