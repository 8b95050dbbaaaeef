"""Headers the HIP build never includes: a tree's copies for one CUDA version each, chosen by
`#if CUDA_VERSION == 11080` / `#include "./libcuda-wrap_11.8.h"` (MegEngine's driver stub,
round 32: 3 false findings in its wrappers for CUDA 11.4 and 11.8).  The HIP build gives
`CUDA_VERSION` the value convert writes (``hip_build.HIP_BUILD``), so it skips each such
branch, and a header that only skipped branches include is none of the port's.

Only files with an include right under a version test are lexed and their branches decided
(by the includes parser convert uses); the includes of every other file are the project
index's graph (``ProjectIndex.includes``), all taken.  Headers are named by base name, the
graph's nodes: a header of that name that any file includes in a branch the HIP build takes is
kept.  Pure: the texts come from the caller."""

from __future__ import annotations

import re
from pathlib import PurePath

from .frontend.conditions import hip_inactive
from .frontend.directives import includes
from .frontend.lexer import lex

# an include on the line right after a test of the CUDA version
_GATED = re.compile(
    rb"^[ \t]*#[ \t]*(?:el)?if\b[^\n]*\bCUDA(?:RT)?_VERSION\b[^\n]*\n[ \t]*#[ \t]*include\b",
    re.M,
)


class GatedIncludes:
    """Collects the files with version-gated includes and, in them, the headers included where
    the HIP build takes the branch and where it skips it; ``skipped_only`` then names those
    only skipped branches include."""

    def __init__(self) -> None:
        self.files: set[str] = set()  # base names of the files read here
        self.taken: set[str] = set()
        self.skipped: set[str] = set()

    def add(self, path: str, data: bytes) -> None:
        if not _GATED.search(data):
            return
        self.files.add(PurePath(path).name)
        text = data.decode("utf-8", "surrogateescape")
        lexed = lex(text)
        inactive = hip_inactive(lexed.tokens, lexed.directives)
        for inc in includes(text, lexed.tokens, lexed.directives):
            (self.skipped if inc.start in inactive else self.taken).add(PurePath(inc.path).name)

    def skipped_only(self, graph: tuple[tuple[str, tuple[str, ...]], ...]) -> frozenset[str]:
        """``graph``: the tree's includes by base name (``ProjectIndex.includes``)."""
        if not self.skipped:
            return frozenset()
        elsewhere = {h for name, found in graph if name not in self.files for h in found}
        return frozenset(self.skipped - self.taken - elsewhere)
