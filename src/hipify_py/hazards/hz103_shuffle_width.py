"""HZ103 shuffle-default-width

## What it detects
A `__shfl`, `__shfl_up`, `__shfl_down` or `__shfl_xor` (or `_sync` form) call without the
`width` argument in code written for sub-warps: its lane/offset argument uses 32-lane
arithmetic (`(lane + 1) % 32`, `& 31`, `% 16`, or the literal source lane 31); or a
`__shfl_up`/`__shfl_down` without width in a function organised in 32-thread groups (it
computes lane or warp ids with a literal 32, as HZ101 reports), unless the shuffle
sits in a 32-lane shuffle loop that HZ102 reports.

## Why it breaks on AMD
`width` defaults to `warpSize`, which is 64 on MI300X (gfx942). On a 32-wide NVIDIA warp the
default and a 32-lane sub-group coincide; on a 64-wide wavefront an unbounded `__shfl_up` or
`__shfl_down` crosses from lane 31 into lane 32, so the two 32-lane halves read each other's
values.

## Example
```cuda
float left = __shfl_sync(mask, v, (lane + 31) % 32);   // HZ103 (and HZ101)
```

## How to fix
Pass the width the algorithm means: `__shfl_sync(mask, v, src, 32)`, or rewrite the index
arithmetic for `warpSize` lanes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule
from ._calls import SHUFFLES, calls
from ._functions import function_at
from ._tokens import cached
from ._values import int_value
from .hz101_lane_arith_32 import sites as lane_sites
from .hz102_shuffle_loop_32 import body_end, loop_sites

_SUB = {"&": (31, 15, 7), "%": (32, 16, 8)}


def _has_width(call):
    return len(call.args) > SHUFFLES[call.name]


@hazard_rule(
    "HZ103",
    "shuffle-default-width",
    Severity.WARNING,
    "shuffle without width in code written for 32-lane sub-warps",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, SHUFFLES):
        if _has_width(c):
            continue
        lane_arg = SHUFFLES[c.name] - 1
        if len(c.args) <= lane_arg:
            continue
        a, b = c.args[lane_arg]
        arg = toks[a:b]
        sub = any(
            t.text in _SUB
            and k + 1 < len(arg)
            and arg[k + 1].kind is Kind.NUMBER
            and int_value(arg[k + 1].text) in _SUB[t.text]
            for k, t in enumerate(arg)
        )
        sub = sub or (
            len(arg) == 1
            and arg[0].kind is Kind.NUMBER
            and int_value(arg[0].text) == 31
            and c.name in ("__shfl", "__shfl_sync")
        )
        if not sub and c.name.startswith(("__shfl_up", "__shfl_down")):
            sub = _in_group32_code(unit, c)
        if sub:
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{c.name}` without a width argument in 32-lane sub-warp code: the "
                f"default width is warpSize (64 on MI300X); pass width 32 explicitly",
            )


def _in_group32_code(unit, call) -> bool:
    """The function around ``call`` works in groups of 32 threads, and no HZ102 loop (whose
    fix also fixes this shuffle) surrounds the call."""
    func = function_at(unit, call.index)
    if func is None:
        return False
    toks = unit.tokens
    loops = cached(
        unit,
        "_hz103_loops",
        lambda: [(i, body_end(toks, close)) for i, close, _ in loop_sites(unit)],
    )
    if any(a < call.index <= b for a, b in loops):
        return False
    marks = cached(unit, "_hz103_marks", lambda: [first for first, _, _ in lane_sites(unit)])
    return any(func.open < m < func.close for m in marks)
