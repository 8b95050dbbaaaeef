"""Where a tree's files use a warp-size constant in code of hardware wavefronts: what decides
a header's constant that the header never uses itself (HZ107; llm.c's `cuda_common.h` defines
`WARP_SIZE 32U`, which its includers use only in 32-lane groups, round 18).

Collected in the project index's pass over the tree's texts (``index_of``'s ``also``, called
by ``discover``: this module needs the analyses, which sit above the index).  Only files that
name a constant some file of the tree defines as 32 are analysed, after the pass: their texts
are kept until then, up to a bound (past it the uses stay unknown, and HZ107 decides as for a
file alone).  Pure: the texts come from the caller."""

from __future__ import annotations

import re

from .analysis.shuffle_width import HARDWARE_NAMES
from .analysis.warp_constants import COMMENTED, COMPARED, WARP_NAME
from .analysis.wavefronts import wavefront_constants
from .frontend.unit import Unit
from .mappings.index import MappingIndex
from .project_calls import WORD_BYTES

# every name ``WARP_NAME`` matches holds one of these
_PARTS = (b"warp", b"lane", b"wave", b"simd")
# what follows a name defined as a number: `#define W 32`, `W = 32`, `W{32}`, `W = (32u)`
_AS_NUMBER = re.compile(rb"[ \t]*(?:=[ \t]*|\{[ \t]*|[ \t])[ \t(]*(\d+)[uUlL]*(?![\w.])")
_COMMENTED = re.compile(COMMENTED.pattern.encode("ascii"), COMMENTED.flags & re.I)
_KEPT_BYTES = 64 << 20  # texts kept for the analysis after the pass, at most


class WavefrontUses:
    """Collects, file by file, what ``uses`` needs."""

    def __init__(self) -> None:
        self.defined_32: set[str] = set()
        self.homes_32: dict[str, set[str]] = {}  # name -> base names of the files defining it
        self.defined_other: set[str] = set()  # defined as another number somewhere
        self.kept: list[tuple[str, bytes]] = []
        self.kept_bytes = 0
        self.overflow = False

    def add(self, path: str, data: bytes) -> None:
        """Read one file of the tree: one that names no lane, warp or wavefront at all
        neither defines such a constant nor works in wavefronts."""
        low = data.lower()
        if not any(part in low for part in _PARTS):
            return
        words = warp_words(data, low)
        for word in words:
            values = _defined_values(data, word)
            if 32 in values:
                self.defined_32.add(word)
                self.homes_32.setdefault(word, set()).add(path.rsplit("/", 1)[-1])
            if values - {32}:
                self.defined_other.add(word)
        self.defined_32 |= _commented_32(data, low)
        if self.overflow:
            return
        self.kept_bytes += len(data)
        if self.kept_bytes > _KEPT_BYTES:
            self.overflow = True
            self.kept.clear()
            return
        self.kept.append((path, data))

    def constants(self) -> frozenset[str]:
        """The names the tree defines as 32 and never as another number; not `warpSize` and
        the like, which where a file does not define them are the hardware's."""
        return frozenset(self.defined_32 - self.defined_other - HARDWARE_NAMES)

    def homes(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(name, the base names of the files that define it as 32) of each constant."""
        return tuple(sorted((n, tuple(sorted(h))) for n, h in self.homes_32.items()))

    def uses(self, mappings: MappingIndex) -> tuple[tuple[str, str], ...] | None:
        """(name, file) of each constant some file defines as 32 that another file, not
        defining it, uses in code of hardware wavefronts; None past the bound."""
        if self.overflow:
            return None
        out: set[tuple[str, str]] = set()
        constants = self.constants()
        for path, data in self.kept:
            if any(name.encode("ascii") in data for name in self.defined_32):
                text = data.decode("utf-8", "replace")
                unit = Unit(path, text, mappings, tree_warp_constants=constants)
                wanted = self.defined_32 & unit.identifiers
                out.update((name, path) for name in wavefront_constants(unit, wanted))
                unit.release()
        return tuple(sorted(out))


def warp_words(data: bytes, low: bytes) -> frozenset[str]:
    """The words of ``data`` (``low``: lower-cased) that may name a warp-size constant
    (``WARP_NAME``), found from substring searches (a case-blind pattern of alternatives tried
    at every byte took 14 s over FasterTransformer's 959 files)."""
    out = set()
    for part in _PARTS:
        at = low.find(part)
        while at >= 0:
            start, end = at, at + len(part)
            while start and low[start - 1] in WORD_BYTES:
                start -= 1
            while end < len(low) and low[end] in WORD_BYTES:
                end += 1
            if WARP_NAME.match(low[start:end].decode("ascii")):
                out.add(data[start:end].decode("ascii"))
            at = low.find(part, end)
    return frozenset(out)


def _commented_32(data: bytes, low: bytes) -> set[str]:
    """Short names defined as 32 that their line comment calls the warp size (HeCBench rsmt's
    `static const int WS = 32;  // warp size`, ``warp_constants.COMMENTED``)."""
    if b"warp" not in low:
        return set()
    return {
        m.group(1).decode("ascii")
        for m in _COMMENTED.finditer(data)
        if not COMPARED.search(m.group(2).decode("ascii", "replace"))
    }


def _defined_values(data: bytes, word: str) -> set[int]:
    """The numbers the occurrences of ``word`` in ``data`` are followed by, as a definition
    writes them (the rule's own reading, ``warp_constants.definitions``, decides which are
    reported; this picks the names to follow)."""
    name = word.encode("ascii")
    out = set()
    at = data.find(name)
    while at >= 0:
        end = at + len(name)
        boundary = (not at or data[at - 1] not in WORD_BYTES) and (
            end == len(data) or data[end] not in WORD_BYTES
        )
        m = _AS_NUMBER.match(data, end) if boundary else None
        if m:
            out.add(int(m.group(1)))
        at = data.find(name, end)
    return out
