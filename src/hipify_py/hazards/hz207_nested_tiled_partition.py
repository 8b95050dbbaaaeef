"""HZ207 nested-tiled-partition

## What it detects
A cooperative-groups `tiled_partition` of a group that is itself a tiled partition:
`auto t4 = cg::tiled_partition<4>(t32);` where `t32` came from `tiled_partition<32>(block)`,
or the two calls nested in one expression. A tile of the thread block is not reported: HIP
supports tiles of up to a wavefront (64 threads on MI300X).

## Why it breaks on AMD
HIP supports partitioning a tile further only from HIP 7.1; on older ROCm the nested call does
not compile, and ROCm 7.0 added stricter validation of cooperative-groups use.

## Example
```cuda
auto warp = cg::tiled_partition<32>(block);
auto quad = cg::tiled_partition<4>(warp);     // HZ207 (needs HIP 7.1)
```

## How to fix
Target ROCm 7.1 or later for nested partitions, or partition the thread block directly
(`tiled_partition<4>(block)`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import match
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule


def _partitions(unit: Unit) -> Iterator[tuple[int, tuple[int, int], str]]:
    """(name index, argument token range, variable name or '') of each tiled_partition call"""
    toks = unit.tokens
    for i in unit.identifier_positions.get("tiled_partition", ()):
        j = i + 1
        if j < len(toks) and toks[j].text == "<":  # the tile size
            while j < len(toks) and toks[j].text != ">":
                j += 1
            j += 1
        if j >= len(toks) or toks[j].text != "(":
            continue
        end = match(toks, j)
        if end is None:
            continue
        var = ""
        k = i - 1
        while k > 0 and toks[k].text in ("::", "cg", "cooperative_groups"):
            k -= 1
        if toks[k].text == "=" and toks[k - 1].kind is Kind.IDENT:
            var = toks[k - 1].text
        yield i, (j + 1, end), var


@hazard_rule(
    "HZ207",
    "nested-tiled-partition",
    Severity.WARNING,
    "tiled_partition of a tile: nested partitions need HIP 7.1",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if "tiled_partition" not in unit.identifiers:
        return
    toks = unit.tokens
    found = list(_partitions(unit))
    tiles = {var for _, _, var in found if var}
    nested_ok = ctx.options.target_rocm >= (7, 1)
    for i, (a, b), _var in found:
        arg = [t.text for t in toks[a:b]]
        inner = "tiled_partition" in arg or (len(arg) == 1 and arg[0] in tiles)
        if inner:
            when = "from HIP 7.1 only" if nested_ok else "not before HIP 7.1 (--target-rocm)"
            yield report(
                toks[i].start,
                toks[b].end,
                f"nested `tiled_partition` of tile `{' '.join(arg)}`: supported {when}; "
                f"partition the thread block directly for older ROCm",
            )
