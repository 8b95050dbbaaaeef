"""Headers in directories that no source file of the tree reaches through its includes: a
backup copy (Magicube's `spmm_utils_N128_bk/` beside the `spmm_utils/` its sources include,
round 36: 3 false findings), a lint helper (wholegraph's `scripts/checks/`).  No build
compiles such a header, so its hazards are none of the port's.

A directory counts, not a header: a header nothing includes beside headers that are included
is most often one whose includer the build generates or that users include (NCCL's device
headers, cuVS's and SpargeAttn's kernel headers: judged true, round 33, when single headers
were dropped).  So does a directory of which a header includes a reached file of another
directory: it builds on the live code, from sources the build generates (cuVS's
`jit_lto_kernels/`, whose `.cu.in` templates CMake fills in, round 16: a judged-true HZ300),
where a backup copy or a lint helper includes only itself and the system.  Headers under an
`include/` directory are a library's public ones, for code outside the tree; a tree without
sources (a header-only library) reaches nothing and has no such directory.

An include is resolved as a compiler would from the includer's directory and then its
ancestors (the `-I` directories a project's build most often names); one that resolves so
nowhere reaches every file of the tree whose path ends with what it spells.  Pure: the texts
come from the caller; the scan is linear in each text."""

from __future__ import annotations

import os.path
from collections.abc import Iterator
from pathlib import Path

from .frontend.unit import SOURCE_SUFFIXES
from .project_index import INCLUDE

_MOST_INCLUDES = 500_000  # includes kept for the resolution after the pass, at most


class IncludeReach:
    """Collects, file by file, what each file of the tree includes."""

    def __init__(self) -> None:
        # each C-like file (absolute path) -> the paths it includes, as spelled
        self.includes: dict[str, list[str]] = {}
        self.kept = 0
        self._targets: dict[str, tuple[str, ...]] | None = None  # resolved once, after the adds

    def add(self, path: str, data: bytes) -> None:
        spelled = [m.group(1).decode("utf-8", "replace").strip() for m in INCLUDE.finditer(data)]
        self.kept += len(spelled)
        if self.kept <= _MOST_INCLUDES:
            self.includes[os.path.abspath(path)] = spelled

    def edges(self) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        """(file, what it includes) for each file of the tree: another file of the tree as
        ``_resolved`` finds it (absolute paths), else the base name of what it spells (a
        header outside the tree: `hip_runtime.h`, `optix.h`); None past the bound of includes
        kept."""
        if self.kept > _MOST_INCLUDES:
            return None
        # a file that includes nothing is no edge (nor a change of the digest)
        return tuple((f, found) for f, found in sorted(self._resolution().items()) if found)

    def _resolution(self) -> dict[str, tuple[str, ...]]:
        """Each file -> what its includes name (``_targets``), resolved once for ``edges`` and
        ``unreached`` alike."""
        if self._targets is None:
            paths = set(self.includes)
            by_name = _by_name(paths)
            self._targets = {
                f: tuple(_targets(f, spelled, paths, by_name))
                for f, spelled in self.includes.items()
            }
        return self._targets

    def unreached(self) -> frozenset[str]:
        """The headers (absolute paths) of directories none of whose files a source of the
        tree reaches, outside `include/` directories; none past the bound of includes kept."""
        if self.kept > _MOST_INCLUDES:
            return frozenset()
        paths = set(self.includes)
        sources = [p for p in paths if p.endswith(SOURCE_SUFFIXES)]
        if not sources:
            return frozenset()
        targets = self._resolution()  # a header outside the tree is a base name: no path
        seen, todo = set(sources), list(sources)
        while todo:
            for found in targets[todo.pop()]:
                if found not in seen and found in paths:
                    seen.add(found)
                    todo.append(found)
        live = {os.path.dirname(p) for p in seen}
        for p in paths - seen:  # code of the live tree's (cuVS's JIT fragments), not a copy
            here = os.path.dirname(p)
            if here not in live and any(
                found in seen and os.path.dirname(found) != here for found in targets[p]
            ):
                live.add(here)
        return frozenset(
            p
            for p in paths - seen
            if os.path.dirname(p) not in live and "include" not in Path(p).parent.parts
        )


def _by_name(paths: set[str]) -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = {}
    for p in sorted(paths):
        by_name.setdefault(os.path.basename(p), []).append(p)
    return by_name


def _targets(
    includer: str, spelled: list[str], paths: set[str], by_name: dict[str, list[str]]
) -> Iterator[str]:
    """What the includes ``spelled`` of ``includer`` name: files of the tree, or the base name
    of a header outside it."""
    for one in spelled:
        found = _resolved(includer, one, paths, by_name)
        yield from found or (os.path.basename(one),)


def _resolved(
    includer: str, spelled: str, paths: set[str], by_name: dict[str, list[str]]
) -> list[str]:
    """The files of the tree ``#include "spelled"`` in ``includer`` may name: the first found
    from its directory up, else every file whose path ends with what it spells."""
    d = os.path.dirname(includer)
    while True:
        found = os.path.normpath(os.path.join(d, spelled))
        if found in paths:
            return [found]
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
    tail = "/" + "/".join(part for part in spelled.split("/") if part not in ("", ".", ".."))
    return [p for p in by_name.get(os.path.basename(spelled), ()) if p.endswith(tail)]
