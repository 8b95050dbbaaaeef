"""Headers the HIP build never includes: a tree's copies for one CUDA version each, chosen by
`#if CUDA_VERSION == 11080` / `#include "./libcuda-wrap_11.8.h"` (MegEngine's driver stub,
round 32: 3 false findings in its wrappers for CUDA 11.4 and 11.8).  The HIP build gives
`CUDA_VERSION` the value convert writes (``hip_build.HIP_BUILD``), so it skips each such
branch, and a header that only skipped branches include is none of the port's.

Only files with an include right under a version test are lexed and their branches decided
(by the includes parser convert uses); the includes of every other file are the project
index's graph (``ProjectIndex.includes``), all taken.  Headers are named by base name, the
graph's nodes: a header of that name that any file includes in a branch the HIP build takes is
kept.

Likewise a CUDA-less fallback: `#ifdef HAVE_CUDA` / `#include <cuda.h>` / `#else` / `#include
"nocuda.h"` (HeavyDB, round 33: a false HZ321 at its stand-in `typedef int CUresult;`).  The
port is the build with CUDA on, which takes the branch that includes CUDA's header; the headers
of the `#else` are the CPU-only build's.  Only a project's own switch counts (no leading `_`): a
compiler's `#ifdef __CUDACC__` is off where g++ compiles the HIP build's `.cpp` files.
Pure: the texts come from the caller."""

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


# `#ifdef SWITCH` (`#if SWITCH`, `#if defined(SWITCH)`; not `!SWITCH`), includes among which
# one of CUDA's runtime or driver headers, `#else`, then includes only up to the `#endif`:
# group 1 is that `#else` part
_NO_CUDA_FALLBACK = re.compile(
    r"^[ \t]*#[ \t]*if(?:def)?[ \t(]+(?:defined[ \t(]*)?[A-Za-z]\w*[^\n]*\n"
    r"(?:[ \t]*#[ \t]*include\b[^\n]*\n)*?"
    r"[ \t]*#[ \t]*include[ \t]*<cuda(?:_runtime(?:_api)?)?\.h>[^\n]*\n"
    r"(?:[ \t]*#[ \t]*include\b[^\n]*\n)*"
    r"[ \t]*#[ \t]*else\b[^\n]*\n"
    r"((?:[ \t]*#[ \t]*include\b[^\n]*\n)+)"
    r"[ \t]*#[ \t]*endif",
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
        gated = _GATED.search(data) is not None
        if not gated and b"<cuda" not in data:
            return
        text = data.decode("utf-8", "surrogateescape")
        fallbacks = [range(m.start(1), m.end(1)) for m in _NO_CUDA_FALLBACK.finditer(text)]
        if not gated and not fallbacks:
            return
        self.files.add(PurePath(path).name)
        lexed = lex(text)
        inactive = hip_inactive(lexed.tokens, lexed.directives)
        for inc in includes(text, lexed.tokens, lexed.directives):
            skipped = inc.start in inactive or any(inc.start in f for f in fallbacks)
            (self.skipped if skipped else self.taken).add(PurePath(inc.path).name)

    def skipped_only(self, graph: tuple[tuple[str, tuple[str, ...]], ...]) -> frozenset[str]:
        """``graph``: the tree's includes by base name (``ProjectIndex.includes``)."""
        if not self.skipped:
            return frozenset()
        elsewhere = {h for name, found in graph if name not in self.files for h in found}
        return frozenset(self.skipped - self.taken - elsewhere)
