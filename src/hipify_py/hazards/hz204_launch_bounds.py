"""HZ204 launch-bounds-min-blocks

## What it detects
`__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` with a second argument (and a third one, CUDA
12's max-blocks-per-cluster). A second argument of `1` is not reported: one resident block
(CUDA) and one wave per execution unit (HIP) both leave the compiler unconstrained.

## Why it breaks on AMD
HIP accepts the same syntax but reads the second parameter as **MIN_WARPS_PER_EXECUTION_UNIT**,
not "minimum resident blocks per SM". Copied unchanged, the number asks the compiler for a
different occupancy target than the CUDA code meant: usually too few waves, so it may spend
more registers than intended, or too many, so it spills. `--maxregcount` has no HIP
equivalent. The third (cluster) parameter does not exist in HIP.

## Example
```cuda
__global__ void __launch_bounds__(256, 2) k(...)   // HZ204
```

## How to fix
Convert with the formula from the HIP porting guide,
`MIN_WARPS_PER_EU = (MIN_BLOCKS * MAX_THREADS) / 32`, or drop the second argument and tune
occupancy on the target. When both arguments are integer literals an unsafe fix writes the
converted number.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import calls
from ..analysis.tokens import text_of
from ..analysis.values import int_value
from ..context import Context
from ..findings import Fix, Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ204",
    "launch-bounds-min-blocks",
    Severity.WARNING,
    "__launch_bounds__ second argument means min warps per EU in HIP",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, {"__launch_bounds__"}):
        if len(c.args) < 2 or toks[c.index].in_directive:
            continue
        (a0, b0), (a1, b1) = c.args[0], c.args[1]
        second = text_of(unit, a1, b1)
        if second == "1" and len(c.args) == 2:
            continue  # one block per SM / one wave per EU: no constraint either way
        fix = None
        if (
            b0 - a0 == 1
            and b1 - a1 == 1
            and toks[a0].kind is Kind.NUMBER
            and toks[a1].kind is Kind.NUMBER
            and not unit.is_hip
        ):
            threads, blocks = int_value(toks[a0].text), int_value(toks[a1].text)
            if threads and blocks:
                warps = max(1, blocks * threads // 32)
                fix = Fix(
                    (report.edit(toks[a1].start, toks[a1].end, str(warps)),),
                    f"convert {blocks} min blocks x {threads} threads to {warps} min warps"
                    " per execution unit",
                    safe=False,
                )
        side = (
            "is read by HIP as min warps per execution unit"
            if not unit.is_hip
            else "means min warps per execution unit in HIP: check it was converted"
        )
        extra = "; the third (cluster) argument has no HIP meaning" if len(c.args) > 2 else ""
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            f"`__launch_bounds__` second argument `{second}` (CUDA: min blocks per "
            f"SM) {side}{extra}",
            fix=fix,
        )
