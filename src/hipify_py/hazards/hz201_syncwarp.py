"""HZ201 syncwarp-its

## What it detects
`__syncwarp()` in **both** arms of an `if`/`else` whose condition differs between the lanes
of a warp: lanes on either side meet at the `__syncwarp` of their own arm to exchange data
(`if (lane < 16) { buf[lane] = a; __syncwarp(); ... } else { __syncwarp(); b = buf[lane - 16]; }`).
A `__syncwarp()` that every lane reaches together, or one in a branch or loop that only some
lanes enter (a barrier among the lanes that are there), is right on AMD and not reported;
neither is a condition on values that are the same for every lane of a warp (`threadIdx.y`
rows of 32 lanes, a value read back from shared memory: `analysis.uniformity`).

## Why it breaks on AMD
`__syncwarp` exists in HIP since 7.0 (a wavefront fence and `s_wave_barrier` in ROCm 7.2.4),
but HIP does **not** implement independent thread scheduling: a wavefront runs one arm of a
divergent `if` to its end, with the other lanes masked off, and only then the other arm. On
Volta+ the two groups of lanes meet at their `__syncwarp` calls and each sees what the other
wrote before it; on AMD the first arm runs past its `__syncwarp` before the second arm has
written anything, so it reads stale data (and a lane that spins waiting for the other arm
hangs).

## Example
```cuda
if (lane < 16) { buf[lane] = v; __syncwarp(); w = buf[lane + 16]; }   // HZ201
else           { buf[lane] = v; __syncwarp(); w = buf[lane - 16]; }
```

## How to fix
Put the exchange where all lanes are converged: write, `__syncwarp()` (or nothing, on AMD)
after the `if`, then read in a second `if`. Suppress with `// hipify-py: ignore[HZ201]` once
checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import calls
from ..analysis.functions import enclosing_conditions, function_at
from ..analysis.uniformity import WARP, both_arms_call, varying_name
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_SYNCWARP = frozenset({"__syncwarp"})


@hazard_rule(
    "HZ201",
    "syncwarp-its",
    Severity.WARNING,
    "__syncwarp in both arms of a lane-dependent if: HIP has no independent thread scheduling",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, _SYNCWARP):
        func = function_at(unit, c.index)
        if func is None:
            continue
        for kw, a, b in enclosing_conditions(unit, c.index, func):
            if kw != "if" or not both_arms_call(toks, b, func.close, _SYNCWARP):
                continue
            name = varying_name(unit, func, a, b, WARP)
            if name is None:
                continue
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`__syncwarp()` in both arms of an if on `{name}`: without independent "
                "thread scheduling a wavefront runs one arm past its `__syncwarp` before the "
                "other arm starts, so the lanes do not meet there",
            )
            break
