"""``--shard I/N``: a deterministic part of a tree's files, so N CI jobs each take one.

A file belongs to the shard its path (relative to the input root, as the output mirrors it)
hashes to, not to a position in a sorted list: adding or removing a file moves no other file
to another shard, and every machine splits the same tree the same way.  Files are not counted
per shard, so shards are equal in size only on average.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TypeVar

T = TypeVar("T")


class ShardError(ValueError):
    """A ``--shard`` value that is not I/N with 1 <= I <= N."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> (2, 4)."""
    index, sep, count = text.partition("/")
    if not (sep and index.strip().isdigit() and count.strip().isdigit()):
        raise ShardError(f"{text!r} is not I/N (e.g. 1/4)")
    i, n = int(index), int(count)
    if not 1 <= i <= n:
        raise ShardError(f"{text!r}: I must be between 1 and N")
    return i, n


def shard_of(rel: PurePath, count: int) -> int:
    """The shard (1..count) of a file at ``rel``."""
    digest = hashlib.sha256(rel.as_posix().encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def select(
    items: Sequence[T], shard: tuple[int, int] | None, rel: Callable[[T], PurePath]
) -> list[T]:
    """The items (at ``rel(item)``) of ``shard``, in their order; all of them for None."""
    if shard is None:
        return list(items)
    index, count = shard
    return [item for item in items if shard_of(rel(item), count) == index]
