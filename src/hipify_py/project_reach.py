"""Headers no source file of the tree reaches through its includes: a vendored copy's headers
the project never includes (mistral.rs keeps flashinfer's `permuted_smem.cuh`, which includes
`mma.cuh`, and includes neither; round 33: a false HZ300 and a false HZ310 in `mma.cuh`).  No
build compiles such a header, so its hazards are none of the port's.

Read from the tree's include graph by base name (``ProjectIndex.includes``), which takes every
branch and merges files of one name: a header is unreached only when no file of its name is
reached.  A tree without sources (a header-only library) reaches nothing and has no unreached
headers; headers under an `include/` directory are a library's public ones, for code outside
the tree (``project_backends.not_the_projects``).  Pure."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .frontend.unit import SOURCE_SUFFIXES


def unreached_headers(
    files: Iterable[Path], graph: tuple[tuple[str, tuple[str, ...]], ...]
) -> frozenset[str]:
    """The base names of the headers among ``files`` that no source file reaches in ``graph``
    (file name -> the file names it includes)."""
    children = dict(graph)
    names = {f.name for f in files}
    sources = [n for n in names if n.endswith(SOURCE_SUFFIXES)]
    if not sources:
        return frozenset()
    seen, todo = set(sources), list(sources)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return frozenset(n for n in names - seen if not n.endswith(SOURCE_SUFFIXES))
