"""HZ103 shuffle-default-width

## What it detects
A `__shfl`, `__shfl_up`, `__shfl_down` or `__shfl_xor` (or `_sync` form) call without the
`width` argument in code written for sub-warps: its lane/offset argument uses 32-lane
arithmetic (`(lane + 1) % 32`, `& 31`, `% 16`, or the literal source lane 31).

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

from ..findings import Severity
from ..frontend.lexer import Kind
from ..rules import hazard_pass, register_rule
from ._util import SHUFFLES, calls, finding, int_value

register_rule(
    "HZ103",
    "shuffle-default-width",
    Severity.WARNING,
    "shuffle without width in code written for 32-lane sub-warps",
    __doc__,
)

_SUB = {"&": (31, 15, 7), "%": (32, 16, 8)}


def _has_width(call):
    return len(call.args) > SHUFFLES[call.name]


@hazard_pass("HZ103")
def check(unit, ctx):
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
        if sub:
            yield finding(
                unit,
                "HZ103",
                toks[c.index].start,
                toks[c.close].end,
                f"`{c.name}` without a width argument in 32-lane sub-warp code: the "
                f"default width is warpSize (64 on MI300X); pass width 32 explicitly",
            )
