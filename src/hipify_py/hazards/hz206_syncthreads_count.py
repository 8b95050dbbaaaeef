"""HZ206 syncthreads-vote

## What it detects
Calls of the block-wide vote barriers `__syncthreads_count`, `__syncthreads_and` and
`__syncthreads_or`.

## Why it breaks on AMD
HIP maps them (HIPIFY since HIP 3.7), but the HIP kernel-language reference of the ROCm 6
era still lists them as "under development". A port that relies on them should be verified on
the target (MI300X, gfx942) and ROCm version: check that the count covers all wavefronts of
the block, not one.

## Example
```cuda
int voters = __syncthreads_count(pred);    // HZ206
```

## How to fix
Verify with a test on the target. Where they are missing or slow, count with a per-wave
`__popcll(__ballot(pred))`, an `atomicAdd` into a `__shared__` counter, and `__syncthreads()`.
Suppress with `// hipify-py: ignore[HZ206]` once verified.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import calls
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_VOTES = frozenset({"__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})


@hazard_rule(
    "HZ206",
    "syncthreads-vote",
    Severity.WARNING,
    "__syncthreads_count/_and/_or: listed as under development in HIP, verify on the target",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, _VOTES):
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            f"`{c.name}` is mapped by HIP but documented as under development: verify the "
            f"block-wide result on the target (gfx942) and ROCm version",
        )
