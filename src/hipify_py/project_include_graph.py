"""The tree's include graph, and the questions rules ask of it: what a file reaches through
its includes, and which files only sources of a library with no ROCm port reach.

Its nodes are the tree's files by absolute path, each include resolved as a compiler would
(``ProjectIndex.include_paths``, from ``project_reach``), and headers outside the tree by base
name (`hip_runtime.h`, `optix.h`).  Past the bound of includes the index keeps, they are base
names (``ProjectIndex.includes``): two `common.h` are one node then, an over-approximation (a
file looks reached by more files than it is, never by fewer).  ``node`` names a file as the
graph does.  Pure: built from the index's tuples.
"""

from __future__ import annotations

import os.path
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet


class IncludeGraph:
    """``includes``: (file, the files it includes), by absolute path where ``by_path``, else by
    base name."""

    def __init__(self, includes: Iterable[tuple[str, tuple[str, ...]]], by_path: bool) -> None:
        self.by_path = by_path
        self.down: dict[str, tuple[str, ...]] = dict(includes)
        self.up: dict[str, list[str]] = {}
        for name, included in self.down.items():
            for header in included:
                self.up.setdefault(header, []).append(name)
        self._reached: dict[frozenset[str], frozenset[str]] = {}
        self._named: dict[str, frozenset[str]] = {}
        self._below_includers: dict[frozenset[str], frozenset[str]] = {}

    def node(self, path: str) -> str:
        """The graph's name of the tree's file ``path``."""
        return os.path.abspath(path) if self.by_path else os.path.basename(path)

    def included(self, key: str, wanted: Callable[[str], bool]) -> frozenset[str]:
        """The included files ``wanted`` accepts, found once per ``key`` (the question's
        name: the answer to `wanted` must not change between calls)."""
        found = self._named.get(key)
        if found is None:
            found = self._named[key] = frozenset(filter(wanted, self.up))
        return found

    def below(self, names: Iterable[str]) -> set[str]:
        """``names`` and the files they include, directly or through headers."""
        return _closure(names, self.down)

    def reaches(self, names: AbstractSet[str], wanted: Callable[[str], bool]) -> bool:
        """One of the files ``names`` (``node``'s names) is or includes, directly or through
        headers, a file ``wanted`` accepts."""
        return any(wanted(name) for name in self.below(names))

    def reached_from(self, name: str, headers: frozenset[str]) -> bool:
        """A file that includes one of ``headers`` is or includes, directly or through other
        headers, the file ``name`` (what such files reach is found once per ``headers``)."""
        below = self._below_includers.get(headers)
        if below is None:
            includers = (n for n, included in self.down.items() if headers.intersection(included))
            below = self._below_includers[headers] = frozenset(self.below(includers))
        return name in below

    def reached_only_from(self, name: str, headers: frozenset[str]) -> bool:
        """Some file includes the file ``name``, and every file that nothing includes (a
        source) and that reaches it also reaches one of ``headers``: cuda-volprim's
        `bit_vector.h` and `environment_map.h`, which only its OptiX programs and OptiX host
        code reach (round 37: 2 false findings in code no HIP build compiles)."""
        if not headers or name not in self.up:
            return False
        reached = self._reached.get(headers)
        if reached is None:  # what the sources that reach none of ``headers`` reach
            sources = [n for n in self.down if n not in self.up]
            above = self._above(headers)
            reached = frozenset(self.below(n for n in sources if n not in above))
            self._reached[headers] = reached
        return name not in reached

    def _above(self, names: Iterable[str]) -> set[str]:
        """``names`` and the files that include them, directly or through headers."""
        return _closure(names, self.up)


def _closure(names: Iterable[str], edges: Mapping[str, Sequence[str]]) -> set[str]:
    """``names`` and every file ``edges`` lead to from them."""
    seen = set(names)
    todo = list(seen)
    while todo:
        for other in edges.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen
