"""HZ201 syncwarp-its

## What it detects
A `__syncwarp()` that the lanes of a warp reach while diverged: inside an `if`, loop or
`switch` whose condition depends on the thread (`if (lane < 16) { ...; __syncwarp(); }`,
a loop over a per-lane count). A plain `__syncwarp()` that every lane reaches together
(between the shared-memory steps of a warp reduction) is right in HIP 7 and is not reported.

## Why it breaks on AMD
`__syncwarp` exists in HIP only since 7.0, and HIP does **not** implement independent thread
scheduling: the lanes of a wavefront execute in lock step. Code written for Volta+ that uses
`__syncwarp` to reconverge lanes after divergent, lane-dependent work (producer/consumer
handshakes between lanes of one warp, lane-level locks) relies on a guarantee AMD hardware does
not give. A plain `__syncwarp()` between shared-memory steps of a warp reduction is harmless.

## Example
```cuda
if (lane < 16) buf[lane] = v;
__syncwarp();             // HZ201: fine only if no lane waits for another one in divergent code
```

## How to fix
Check that no lane of a warp waits for another lane of the same warp while they are diverged.
For ROCm < 7.0, replace it with `__syncthreads()` or a wave barrier
(`__builtin_amdgcn_wave_barrier()`). Suppress with `// hipify-py: ignore[HZ201]` once checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import calls
from ..analysis.functions import enclosing_conditions, function_at
from ..analysis.taint import thread_taint
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ201", "syncwarp-its", Severity.INFO, "__syncwarp: HIP has no independent thread scheduling"
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, {"__syncwarp"}):
        func = function_at(unit, c.index)
        if func is None:
            continue
        taint = thread_taint(unit, func)
        if not any(
            taint.any(a, b) is not None for _kw, a, b in enclosing_conditions(unit, c.index, func)
        ):
            continue  # every lane reaches it together: a plain barrier, right in HIP 7
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            "`__syncwarp()` (HIP >= 7.0): HIP has no independent thread scheduling; "
            "check no lane waits on another lane of its warp in divergent code",
        )
