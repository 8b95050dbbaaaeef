"""Headers the HIP build never includes: a tree's copies for one CUDA version each, chosen by
`#if CUDA_VERSION == 11080` / `#include "./libcuda-wrap_11.8.h"` (MegEngine's driver stub,
round 32: 3 false findings in its wrappers for CUDA 11.4 and 11.8).  The HIP build gives
`CUDA_VERSION` the value convert writes (``hip_build.HIP_BUILD``), so it skips each such
branch, and a header that only skipped branches include is none of the port's.

Only files with an include right under a version test are lexed and their branches decided;
every other include counts as one the HIP build makes.  Headers are named by base name (the
include graph's nodes, ``ProjectIndex.includes``): a header of that name that any file
includes in a branch the HIP build takes is kept.  Pure: the texts come from the caller."""

from __future__ import annotations

import re

from .frontend.conditions import hip_inactive
from .frontend.lexer import lex

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]", re.M)
_INCLUDE_TEXT = re.compile(_INCLUDE.pattern.decode("ascii"), re.M)  # offsets of the lexed text
# an include on the line right after a test of the CUDA version
_GATED = re.compile(
    rb"^[ \t]*#[ \t]*(?:el)?if\b[^\n]*\bCUDA(?:RT)?_VERSION\b[^\n]*\n[ \t]*#[ \t]*include\b",
    re.M,
)


def _base(path: bytes) -> str:
    return path.decode("utf-8", "replace").rsplit("/", 1)[-1]


class GatedIncludes:
    """Collects, file by file, the headers included where the HIP build takes the branch and
    where it skips it; ``skipped_only`` then names those only skipped branches include."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.skipped: set[str] = set()

    def add(self, data: bytes) -> None:
        if not _GATED.search(data):
            self.taken.update(_base(m.group(1)) for m in _INCLUDE.finditer(data))
            return
        text = data.decode("utf-8", "surrogateescape")
        lexed = lex(text)
        inactive = hip_inactive(lexed.tokens, lexed.directives)
        for m in _INCLUDE_TEXT.finditer(text):
            name = m.group(1).rsplit("/", 1)[-1]
            (self.skipped if m.start(1) in inactive else self.taken).add(name)

    def skipped_only(self) -> frozenset[str]:
        return frozenset(self.skipped - self.taken)
