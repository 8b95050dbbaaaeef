"""Plain C/C++ headers the HIP compiler compiles, and that hold what clang rejects where GCC
(nvcc's host compiler) or a C++03 build accepted it (``ProjectIndex.clang_headers``).

A header with no CUDA in it is copied, not converted; but when a CUDA source of the tree
includes it (directly or through other headers), clang compiles it as part of that source.
tobiasvanderwerff's `support.h` defines `FATAL(msg, ...)` with `"[%s:%d] "msg"\\n"`, which its
C++03 nvcc build reads as a name and clang, as a reserved literal suffix (compile round 46: 4
silent TUs).  Such a header goes through the pipeline too, where only the fixes for clang
(``literal-suffix-space``, ``register-storage``) have anything to change.  The texts are only
screened for those constructs here; the rewrites read them properly.  Pure: the texts come
from the caller.
"""

from __future__ import annotations

import os.path
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from .frontend.unit import SOURCE_SUFFIXES

# a string literal with a name written against its closing quote, or a `register` variable
_CLANG_REJECTS = re.compile(rb'"(?:\\.|[^"\\\n])*"[A-Za-z]|\bregister\b')


class HostHeaders:
    """Collects, file by file, the tree's CUDA sources and the plain headers that need a fix
    for clang; ``compiled`` answers which of those headers a CUDA source reaches."""

    def __init__(self, is_cuda: Callable[[Path, bytes], bool]) -> None:
        self.is_cuda = is_cuda
        self.cuda: set[str] = set()
        self.needing: set[str] = set()

    def add(self, path: str, data: bytes) -> None:
        where = Path(path)
        if self.is_cuda(where, data):
            self.cuda.add(os.path.abspath(path))
        elif where.suffix.lower() not in SOURCE_SUFFIXES and _CLANG_REJECTS.search(data):
            self.needing.add(os.path.abspath(path))

    def compiled(self, edges: Iterable[tuple[str, tuple[str, ...]]] | None) -> frozenset[str]:
        """The headers of ``needing`` that the CUDA sources reach through ``edges`` (the
        include graph by absolute path, ``IncludeReach.edges``); none without the graph."""
        if not self.needing or edges is None:
            return frozenset()
        down = dict(edges)
        seen: set[str] = set()
        todo = list(self.cuda)
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(down.get(node, ()))
        return frozenset(self.needing & seen)
