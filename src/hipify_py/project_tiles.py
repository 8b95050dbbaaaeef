"""The tree's integer constants that size cooperative-groups tiles: cuda_llm_ops sizes its
`cg::tiled_partition<kRmsNormBackwardThreadsPerBlock>` with a `constexpr int` of another
header, 256 threads, which HIP's tiles cannot hold (HZ208; compile round 43, a silent TU).
Only names some file uses as a tile size are kept, each with the one value the tree gives it
(a name defined twice with different values is unknown).  Pure: the texts come from the
caller, and each is read once, linearly."""

from __future__ import annotations

import re

# `tiled_partition<NAME>` / `thread_block_tile<NAME, ...>`: the name that sizes the tile
_TILE_SIZE = re.compile(rb"\b(?:tiled_partition|thread_block_tile)\s*<\s*([A-Za-z_]\w*)\s*[,>]")
# `#define NAME 256`, `constexpr int NAME = 256;` (`static`, `const`, unsigned and sized ints)
_CONSTANT = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?([0-9]+)[uU]?\)?[ \t]*$"
    rb"|\b(?:constexpr|const)[ \t]+(?:static[ \t]+)?(?:unsigned[ \t]+|signed[ \t]+)?"
    rb"(?:int|long|short|unsigned|size_t|std::size_t|u?int(?:32|64)_t)[ \t]+"
    rb"([A-Za-z_]\w*)[ \t]*=[ \t]*([0-9]+)[uU]?[ \t]*;",
    re.M,
)


class TileConstants:
    """Collects, file by file, the names that size tiles and the constants defined as
    numbers; ``found`` pairs them (``ProjectIndex.tile_constants``)."""

    def __init__(self) -> None:
        self.sizes: set[str] = set()
        self.values: dict[str, set[int]] = {}

    def add(self, data: bytes) -> None:
        if b"tiled_partition" in data or b"thread_block_tile" in data:
            self.sizes.update(m.group(1).decode("ascii") for m in _TILE_SIZE.finditer(data))
        for m in _CONSTANT.finditer(data):
            name, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            self.values.setdefault(name.decode("ascii"), set()).add(int(value))

    def found(self) -> tuple[tuple[str, int], ...]:
        return tuple(
            (name, min(self.values[name]))
            for name in sorted(self.sizes)
            if len(self.values.get(name, ())) == 1
        )
