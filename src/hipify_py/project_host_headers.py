"""Plain C/C++ headers the HIP compiler compiles, and that hold what clang rejects where GCC
(nvcc's host compiler) or a C++03 build accepted it (``ProjectIndex.clang_headers``).

A header with no CUDA in it is copied, not converted; but when a CUDA source of the tree
includes it (directly or through other headers), clang compiles it as part of that source.
tobiasvanderwerff's `support.h` defines `FATAL(msg, ...)` with `"[%s:%d] "msg"\\n"`, which its
C++03 nvcc build reads as a name and clang, as a reserved literal suffix (compile round 46: 4
silent TUs).  Such a header goes through the pipeline too, where only the fixes for clang
(``literal-suffix-space``, ``register-storage``) have anything to change.  The texts are only
screened for those constructs here; the rewrites read them properly.  Whether an includer is
CUDA is asked only of the files that reach such a header, and only when there is one: the
caller reads and classifies them (most trees have none, and the scan for CUDA's names is the
costly part).  Pure: the texts and the answers come from the caller.
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
    """Collects, file by file, the plain headers that need a fix for clang; ``compiled``
    answers which of them a CUDA source reaches."""

    def __init__(self) -> None:
        self.needing: set[str] = set()

    def add(self, path: str, data: bytes) -> None:
        if Path(path).suffix.lower() not in SOURCE_SUFFIXES and _CLANG_REJECTS.search(data):
            self.needing.add(os.path.abspath(path))

    def compiled(
        self,
        edges: Iterable[tuple[str, tuple[str, ...]]] | None,
        is_cuda: Callable[[str], bool],
    ) -> frozenset[str]:
        """The headers of ``needing`` that a file ``is_cuda`` accepts reaches through
        ``edges`` (the include graph by absolute path, ``IncludeReach.edges``); none without
        the graph.  ``is_cuda`` is asked once per includer, and only of includers."""
        if not self.needing or edges is None:
            return frozenset()
        up: dict[str, list[str]] = {}
        for name, included in edges:
            for header in included:
                up.setdefault(header, []).append(name)
        answers: dict[str, bool] = {}
        out = set()
        for header in self.needing:
            seen: set[str] = set()
            todo = list(up.get(header, ()))
            while todo:
                node = todo.pop()
                if node in seen:
                    continue
                seen.add(node)
                if node not in answers:
                    answers[node] = node not in self.needing and is_cuda(node)
                if answers[node]:
                    out.add(header)
                    break
                todo.extend(up.get(node, ()))
        return frozenset(out)
