"""HZ208 tile-over-wavefront

## What it detects
A cooperative-groups tile larger than a wavefront: `cg::tiled_partition<256>(block)` or
`thread_block_tile<128>`, the size a number or a constant the file defines (or another
header of the tree, when the tree is checked), above 64.

## Why it breaks on AMD
CUDA partitions a thread block into tiles of up to 1024 threads (the tiles above 32 live in
shared memory).  HIP's tiles hold at most one wavefront, 64 threads on MI300X (gfx942):
ROCm 7.2.4's `thread_block_tile_base` rejects a larger size with a `static_assert` ("Tile
size is either not a power of 2 or greater than the wavefront size"), so the file does not
compile (cuda_llm_ops' `tiled_partition<kRmsNormBackwardThreadsPerBlock>` with 256 threads,
compile round 43).

## Example
```cuda
auto tile = cg::tiled_partition<256>(cg::this_thread_block());   // HZ208
float sum = cg::reduce(tile, v, cg::plus<float>());
```

## How to fix
Reduce in tiles of one wavefront or less (`tiled_partition<64>`, or `<32>` to keep CUDA's
grouping), write each tile's result to shared memory, `__syncthreads()`, and let the first
tile combine them; or use hipCUB's `BlockReduce`, which does this for a whole block.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import template_close
from ..analysis.values import evaluate
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import INSTANTIATED, Proposal, Report, hazard_rule

WAVEFRONT = 64  # lanes of an MI300X (gfx942) wavefront: the largest tile HIP allows
_TILES = ("tiled_partition", "thread_block_tile")


@hazard_rule(
    "HZ208",
    "tile-over-wavefront",
    Severity.ERROR,
    "cooperative-groups tile larger than a wavefront (HIP's tiles hold at most 64 threads)",
    bites=INSTANTIATED,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for name in _TILES:
        for i in unit.identifier_positions.get(name, ()):
            if i + 1 >= len(toks) or toks[i + 1].text != "<" or toks[i].in_directive:
                continue
            close = template_close(toks, i + 1)
            if close is None:
                continue
            end = next((k for k in range(i + 2, close) if toks[k].text == ","), close)
            size = evaluate(unit, i + 2, end)
            if size is None and end == i + 3:  # a constant of another file of the tree
                size = dict(ctx.project.tile_constants).get(toks[i + 2].text)
            if size is not None and size > WAVEFRONT:
                yield report(
                    toks[i].start,
                    toks[close].end,
                    f"`{name}<{size}>`: HIP's tiles hold at most a wavefront (64 threads on "
                    "MI300X), and ROCm 7.2.4 rejects a larger one with a static_assert; reduce "
                    "in tiles of 64 or fewer and combine their results through shared memory",
                )
