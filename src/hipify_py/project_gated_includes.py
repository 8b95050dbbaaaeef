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

So for a test of the project's own macros whose value the HIP build fixes
(``ProjectIndex.hip_values``, as the file's includes reach them): AsymGEMM's `#if
DG_FP8_COMPATIBLE and DG_TENSORMAP_COMPATIBLE`, the second `(CUDA_VERSION >= 12010)` in another
header, before the includes of its tensor-map kernels (round 41: 2 false HZ300).  Those
includes are decided once the index knows the values (``skipped_only``).

Likewise a CUDA-less fallback: `#ifdef HAVE_CUDA` / `#include <cuda.h>` / `#else` / `#include
"nocuda.h"` (HeavyDB, round 33: a false HZ321 at its stand-in `typedef int CUresult;`).  The
port is the build with CUDA on, which takes the branch that includes CUDA's header; the headers
of the `#else` are the CPU-only build's.  Only a project's own switch counts (no leading `_`): a
compiler's `#ifdef __CUDACC__` is off where g++ compiles the HIP build's `.cpp` files.
Pure: the texts come from the caller."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath

from .frontend.conditions import hip_inactive
from .frontend.directives import includes
from .frontend.lexer import lex
from .project_index import INCLUDE

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


# `#if COND` (a test of the project's macros), then includes right under it: group 1 is the
# condition, group 2 the includes
_MACRO_GATED = re.compile(
    rb"#[ \t]*if[ \t(!]+([A-Za-z_][^\n]*)\n((?:[ \t]*#[ \t]*include\b[^\n]*\n)+)"
)
_MOST_MACRO_GATES = 20_000  # recorded past this, a tree's macro-gated includes count as taken
Settings = Callable[[str], tuple[tuple[str, ...], frozenset[str]]]


class GatedIncludes:
    """Collects the files with version-gated includes and, in them, the headers included where
    the HIP build takes the branch and where it skips it; ``skipped_only`` then names those
    only skipped branches include."""

    def __init__(self) -> None:
        self.files: set[str] = set()  # base names of the files read here
        self.taken: set[str] = set()
        self.skipped: set[str] = set()
        # (path, condition, the base names it includes) of includes under a macro's test,
        # decided once the tree's macro values are known (``skipped_only``)
        self.macro_gated: list[tuple[str, str, tuple[str, ...]]] = []

    def add(self, path: str, data: bytes) -> None:
        gated = _GATED.search(data) is not None
        text = data.decode("utf-8", "surrogateescape") if gated or b"<cuda" in data else ""
        fallbacks = [range(m.start(1), m.end(1)) for m in _NO_CUDA_FALLBACK.finditer(text)]
        if not gated and not fallbacks:
            self._add_macro_gated(path, data)
            return
        self.files.add(PurePath(path).name)
        lexed = lex(text)
        inactive = hip_inactive(lexed.tokens, lexed.directives)
        for inc in includes(text, lexed.tokens, lexed.directives):
            skipped = inc.start in inactive or any(inc.start in f for f in fallbacks)
            (self.skipped if skipped else self.taken).add(PurePath(inc.path).name)

    def _add_macro_gated(self, path: str, data: bytes) -> None:
        """Record the includes right under an `#if` of the project's macros: AsymGEMM's
        `#if DG_FP8_COMPATIBLE and DG_TENSORMAP_COMPATIBLE` before its SM90 tensor-map
        kernels' headers, with `#define DG_TENSORMAP_COMPATIBLE (CUDA_VERSION >= 12010)` in
        another header, 0 where convert writes CUDA 12.0 (round 41: 2 false HZ300)."""
        if b"include" not in data:
            return
        for m in _MACRO_GATED.finditer(data):  # from its `#`, which the search skips to
            if len(self.macro_gated) >= _MOST_MACRO_GATES:
                return
            if data[data.rfind(b"\n", 0, m.start()) + 1 : m.start()].strip(b" \t"):
                continue  # not a directive: `#` inside a line
            names = tuple(PurePath(n.decode(errors="replace")).name for n in INCLUDE.findall(m[2]))
            self.macro_gated.append((path, m[1].decode(errors="replace"), names))

    def skipped_only(
        self, graph: tuple[tuple[str, tuple[str, ...]], ...], settings: Settings
    ) -> frozenset[str]:
        """``graph``: the tree's includes by base name (``ProjectIndex.includes``);
        ``settings``: the macro values and undefined names of the HIP build of a file
        (``ProjectIndex.hip_settings``), by which its macro-gated includes are decided."""
        skipped, taken = set(self.skipped), set(self.taken)
        gated: dict[str, set[str]] = {}  # file base name -> what it includes under a gate
        settled: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        for path, condition, names in self.macro_gated:
            values, undefined = settled.get(path) or settled.setdefault(path, settings(path))
            lexed = lex(f"#if {condition}\n#include <x>\n#endif\n")
            if len(lexed.directives) < 2:
                continue
            inactive = hip_inactive(lexed.tokens, lexed.directives, values, False, undefined)
            under = lexed.tokens[lexed.directives[1]].start in inactive
            (skipped if under else taken).update(names)
            gated.setdefault(PurePath(path).name, set()).update(names)
        if not skipped:
            return frozenset()
        elsewhere = {
            h
            for name, found in graph
            if name not in self.files
            for h in found
            if h not in gated.get(name, ())
        }
        return frozenset(skipped - taken - elsewhere)
