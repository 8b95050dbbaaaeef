"""The lane masks a tree declares 64 bits wide in code its HIP build compiles, and nowhere
narrower there (``ProjectIndex.wide_masks``): FBGEMM's `#if defined(USE_ROCM) static constexpr
uint64_t kFullWarpMask = ...` in a header, which the files that pass it to `__any_sync` do not
declare (round 23: 2 false HZ106).

Collected in the project index's pass over the tree's texts (``index_of``'s ``also``, called by
``discover``), as ``project_wavefronts`` is: this module reads type words with the analyses,
which sit above the index.  Pure: the texts come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .analysis.type_sizes import words_size
from .frontend.conditions import hip_inactive
from .frontend.lexer import Kind, Lexed, lex

# an integer type word, then a name holding "mask": a file that may declare a lane mask
_MASK_TYPED = re.compile(
    rb"(?:int|_t|long|u64|u32|uint)\s+(?:const\s+)?\w*[Mm][Aa][Ss][Kk]\w*\s*[={]"
)
# `#define NAME_MASK 0xffffffff` (the value and its suffix)
_MASK_DEFINE = re.compile(
    rb"#[ \t]*define[ \t]+(\w*[Mm][Aa][Ss][Kk]\w*)[ \t]+"
    rb"\(?(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)\)?[ \t]*$",
    re.M,
)
# words that end a declaration's type going backwards (`return x = ...`, `else m = ...`)
_NOT_TYPE_WORDS = frozenset({"return", "else", "case", "do", "goto"})
# words of a declaration that say nothing of its type's size
_SPECIFIERS = frozenset({"const", "constexpr", "static", "volatile", "inline", "__device__"})


class MaskWidths:
    """Collects, file by file, the widths of the masks the tree declares."""

    def __init__(self) -> None:
        self.widths: dict[str, set[int]] = {}
        self.defined: dict[str, set[int]] = {}  # the same of `#define NAME <number>`

    def add(self, path: str, data: bytes) -> None:
        """Read one file of the tree (``path`` unused: a mask is the tree's by its name)."""
        for m in _MASK_DEFINE.finditer(data):
            text = m.group(2)
            value = int(text, 16) if text[1:2] in (b"x", b"X") else int(text)
            self.defined.setdefault(m.group(1).decode("ascii"), set()).add(
                4 if value <= 0xFFFFFFFF and b"ll" not in m.group(3).lower() else 8
            )
        if not _MASK_TYPED.search(data):
            return
        for name, width in _declarations(lex(data.decode("utf-8", "replace"))):
            self.widths.setdefault(name, set()).add(width)

    def wide(self) -> frozenset[str]:
        """The names declared (or `#define`d) 64 bits wide, and never narrower, in code HIP
        compiles."""
        names = self.widths.keys() | self.defined.keys()
        return frozenset(
            n for n in names if self.widths.get(n, set()) | self.defined.get(n, set()) == {8}
        )

    def narrow(self) -> frozenset[str]:
        """The mask macros the tree defines as a 32-bit number, and never wider (GenomeWorks'
        `#define FULL_MASK 0xffffffff` in `cudapoa_structs.cuh`, which the files that pass it
        to `__shfl_sync` do not define: compile round 30)."""
        return frozenset(n for n, widths in self.defined.items() if widths == {4})


def _declarations(lexed: Lexed) -> Iterator[tuple[str, int]]:
    """(name, bytes) of each initialised declaration of an integer variable whose name holds
    "mask", in code the HIP build compiles: `constexpr uint64_t kFullWarpMask = ...`."""
    toks = lexed.tokens
    skipped = hip_inactive(toks, lexed.directives)
    for i in range(1, len(toks) - 1):
        t = toks[i]
        if (
            t.kind is not Kind.IDENT
            or "mask" not in t.text.lower()
            or toks[i + 1].text not in ("=", "{")
            or t.in_directive
            or t.start in skipped
        ):
            continue
        words = []
        k = i - 1
        while k >= 0 and toks[k].kind is Kind.IDENT and toks[k].text not in _NOT_TYPE_WORDS:
            if toks[k].text not in _SPECIFIERS:
                words.append(toks[k].text)
            k -= 1
        size = words_size(words[::-1]) if words else None
        if size is not None:
            yield t.text, size
