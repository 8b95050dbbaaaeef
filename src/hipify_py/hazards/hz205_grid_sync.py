"""HZ205 grid-sync-launch

## What it detects
Grid-wide cooperative-groups synchronisation (`grid.sync()`, `cg::this_grid().sync()`,
`cg::sync(grid)`) in a kernel that the same file launches the ordinary way (`<<<...>>>`,
`hipLaunchKernelGGL`) and nowhere cooperatively (`cudaLaunchCooperativeKernel`,
`hipLaunchCooperativeKernel`, their multi-device forms, `cudaLaunchAttributeCooperative`).
A kernel launched in another file, or through a project macro, is not reported (judged on
apex and nccl: their cooperative launches sat in launch helpers of other headers), and
neither is one with a cooperative launch: CUDA already requires that launch, and a grid too
large for the device fails it on both vendors.

## Why it breaks on AMD
`grid.sync()` is only valid in a kernel started with a cooperative launch whose grid fits
on the device at once. With a normal `<<<>>>`/`hipLaunchKernelGGL` launch the grid barrier
deadlocks or returns without synchronising.

## Example
```cuda
__global__ void k(float* x) { cg::grid_group grid = cg::this_grid(); x[0] = 1; grid.sync(); }
void run(float* x) { k<<<80, 256>>>(x); }   // HZ205 at grid.sync()
```

## How to fix
Launch the kernel with `hipLaunchCooperativeKernel` (size the grid with
`hipOccupancyMaxActiveBlocksPerMultiprocessor` x CU count) and check its error code, or split
the kernel at the grid barrier into two launches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import function_at
from ..analysis.launches import launched_name
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

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
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if ("this_grid" not in ids and "grid_group" not in ids) or _COOP & ids:
        return
    toks = unit.tokens
    plain = _plain_launches(unit)
    if not plain:
        return
    grids = _grid_names(toks)
    for i in range(len(toks)):
        hit = _grid_sync_at(toks, i, grids)
        func = function_at(unit, i) if hit else None
        if hit and func is not None and func.name in plain:
            line = unit.lines.position(toks[plain[func.name]].start)[0]
            yield report(
                hit[0],
                hit[1],
                f"grid-wide `{hit[2]}` in `{func.name}`, which line {line} launches the "
                f"ordinary way: it needs a cooperative launch (hipLaunchCooperativeKernel)",
            )


def _plain_launches(unit: Unit) -> dict[str, int]:
    """Kernel name -> token of its first ordinary launch in the file: `k<<<`, `k<T><<<`,
    `hipLaunchKernelGGL(k, ...)`."""
    toks = unit.tokens
    found: dict[str, int] = {}
    for o in unit.launch_openers:
        name = launched_name(toks, o)
        if name is not None:
            found.setdefault(name, o - 1)
    for i in unit.identifier_positions.get("hipLaunchKernelGGL", ()):
        if i + 2 < len(toks) and toks[i + 1].text == "(" and toks[i + 2].kind is Kind.IDENT:
            found.setdefault(toks[i + 2].text, i)
    return found


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
