"""HZ205 grid-sync-launch

## What it detects
Grid-wide cooperative-groups synchronisation (`grid.sync()`, `cg::this_grid().sync()`,
`cg::sync(grid)`), however the kernel is launched: in a file with no cooperative launch
(`cudaLaunchCooperativeKernel`, `hipLaunchCooperativeKernel`, their multi-device forms,
`cudaLaunchAttributeCooperative`) the launch is missing; with one, the grid size must still be
validated for MI300X.

## Why it breaks on AMD
`grid.sync()` is only valid in a kernel started with a cooperative launch whose grid fits
on the device at once. With a normal `<<<>>>`/`hipLaunchKernelGGL` launch the grid barrier
deadlocks or returns without synchronising. HIP 7.0 added stricter validation and new error
codes for cooperative launches, so a grid that fit by luck on NVIDIA may now be rejected.

## Example
```cuda
cg::grid_group grid = cg::this_grid();
phase1(); grid.sync(); phase2();        // HZ205 if no cooperative launch is in this file
```

## How to fix
Launch the kernel with `hipLaunchCooperativeKernel` (size the grid with
`hipOccupancyMaxActiveBlocksPerMultiprocessor` x CU count) and check its error code, or split
the kernel at the grid barrier into two launches. Suppress the finding when the launch lives
in another file.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_COOP = frozenset(
    {
        "cudaLaunchCooperativeKernel",
        "hipLaunchCooperativeKernel",
        "cudaLaunchCooperativeKernelMultiDevice",
        "hipLaunchCooperativeKernelMultiDevice",
        "cudaLaunchAttributeCooperative",
        "hipLaunchAttributeCooperative",
        "cuLaunchCooperativeKernel",
        "hipModuleLaunchCooperativeKernel",
    }
)


@hazard_rule(
    "HZ205",
    "grid-sync-launch",
    Severity.WARNING,
    "grid-wide cooperative-groups sync: needs a cooperative launch sized for the device",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if "this_grid" not in ids and "grid_group" not in ids:
        return
    launched = bool(_COOP & ids)
    toks = unit.tokens
    grids = _grid_names(toks)
    for i in range(len(toks)):
        hit = _grid_sync_at(toks, i, grids)
        if hit:
            yield report(
                hit[0],
                hit[1],
                f"grid-wide `{hit[2]}`: HIP 7 rejects a cooperative launch whose grid exceeds "
                f"the co-resident blocks of the device; size it with "
                f"hipOccupancyMaxActiveBlocksPerMultiprocessor and check the error"
                if launched
                else f"grid-wide `{hit[2]}` needs a cooperative launch "
                f"(hipLaunchCooperativeKernel); none in this file",
            )


def _grid_names(toks: Sequence[Token]) -> set[str]:
    """Variables holding the grid group: ``cg::grid_group g = ...``, ``auto g =
    cg::this_grid();`` (their ``.sync()`` is a grid-wide barrier)."""
    grids: set[str] = set()
    for i, t in enumerate(toks):
        if t.kind is Kind.IDENT and t.text in ("this_grid", "grid_group"):
            j = i + 1
            if t.text == "grid_group" and j < len(toks) and toks[j].kind is Kind.IDENT:
                grids.add(toks[j].text)
            k = i - 1
            while k > 0 and toks[k].text in ("::", "cg", "cooperative_groups"):
                k -= 1
            if toks[k].text == "=" and toks[k - 1].kind is Kind.IDENT:
                grids.add(toks[k - 1].text)
    return grids


def _grid_sync_at(toks: Sequence[Token], i: int, grids: set[str]) -> tuple[int, int, str] | None:
    """(start, end, spelling) of a grid-wide barrier starting at token ``i``: ``g.sync()``,
    ``this_grid().sync()`` or ``cg::sync(g)``."""
    t = toks[i]
    if (
        t.kind is Kind.IDENT
        and t.text in grids
        and i + 3 < len(toks)
        and toks[i + 1].text in (".", "->")
        and toks[i + 2].text == "sync"
    ):
        return t.start, toks[i + 3].end, f"{t.text}.sync()"
    if (
        t.text == "this_grid"
        and i + 4 < len(toks)
        and toks[i + 3].text == "."
        and toks[i + 4].text == "sync"
    ):
        return t.start, toks[i + 4].end, "this_grid().sync()"
    if (
        t.text == "sync"
        and i + 2 < len(toks)
        and toks[i + 1].text == "("
        and toks[i + 2].text in grids
        and toks[i - 1].text == "::"
    ):
        return toks[i - 2].start, toks[i + 2].end, f"sync({toks[i + 2].text})"
    return None
