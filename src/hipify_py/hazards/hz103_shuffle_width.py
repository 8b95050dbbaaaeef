"""HZ103 shuffle-default-width

## What it detects
A `__shfl`, `__shfl_up`, `__shfl_down` or `__shfl_xor` (or `_sync` form) call without the
`width` argument in code written for 32-lane sub-warps:
- in a function whose warp model is *consistent 32-lane groups* (it derives lane/group ids
  with 32, `lane = tid & 31` / `warp = tid >> 5`, or gives other shuffles width 32; a helper
  called only from such functions counts too), a shuffle that crosses the group boundary on
  a 64-lane wavefront: `__shfl_sync(m, v, src)` with an absolute or group-relative source lane
  (`0`, `lane ^ 1`, `(lane + 1) & 31`) and every `__shfl_up*`. `__shfl_down*` and
  `__shfl_xor*` by less than 32 stay inside the group for the lanes that read the result, so
  they are not reported there, nor is any lane arithmetic of such a function (HZ101/HZ102);
- in a function that derives a 32-lane lane id from the thread index (`lane = tid & 31`)
  without a matching group id, the same group-crossing shuffles: its lanes 32-63 count
  themselves 0-31 of their own warp, so `__shfl_sync(m, k, 0)` meant "lane 0 of my warp"
  (segsort's broadcasts of a segment's offset) hands them lane 0 of the wavefront;
  unless the function also votes or calls a hardware-warp helper (a ballot's bits are
  hardware lanes): there the lane id is what is wrong (HZ101) and the broadcast is right once
  it is the hardware lane;
- in neither case where the function's 32-lane ids come from a warp-size constant HZ107
  reports and it, or a helper it calls (three calls deep), picks a ballot's bits by them: the
  constant is what is wrong (HeCBench's rsmt, whose human port sets its `WS` to 64);
- elsewhere, and there too, a shuffle whose source lane or offset uses 32-lane arithmetic
  (`% 32`, `& 31`, `% 16`) or is the literal lane 31 (graphB+'s port writes `warpsize - 1`).

The shuffles of one function that cross are one diagnosis: the finding sits at the first and
lists the others as dependent lines (each needs the same width).

The same holds for hipCUB's warp collectives: `cub::WarpReduce<T>` / `cub::WarpScan<T>`
without the logical warp width (second template argument) in such a function reduces over
the hardware wavefront, 64 lanes on MI300X (bitsandbytes' 4-bit GEMV: `WarpReduce<float>`
next to `warp_idx = threadIdx.x / 32` and `temp_storage[THREADS / 32]`).

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
Pass the width the algorithm means: `__shfl_sync(mask, v, src, 32)`,
`cub::WarpReduce<float, 32>`, or rewrite the index arithmetic for `warpSize` lanes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import SHUFFLES, Call, calls
from ..analysis.functions import function_at
from ..analysis.low_lanes import low_lanes_reach
from ..analysis.values import int_value
from ..analysis.warp_model import (
    BLOCK32,
    GROUP32,
    LANE32,
    constant_is_the_fix,
    crosses_groups,
    meets_hardware_warp,
    model_at,
    related,
)
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_SUB = {"&": (31, 15, 7), "%": (32, 16, 8)}


def _has_width(call: Call) -> bool:
    return len(call.args) > SHUFFLES[call.name]


@hazard_rule(
    "HZ103",
    "shuffle-default-width",
    Severity.WARNING,
    "shuffle without width in code written for 32-lane sub-warps",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    by_function: dict[int, list[Call]] = {}
    for c in calls(unit, SHUFFLES):
        if not _has_width(c) and _crosses(unit, c):
            func = function_at(unit, c.index)
            by_function.setdefault(func.open if func else -c.index, []).append(c)
    for hits in by_function.values():
        first = hits[0]
        more = related(unit, [c.index for c in hits[1:]], first.index)
        yield report(
            toks[first.index].start,
            toks[first.close].end,
            f"`{first.name}` without a width argument in 32-lane sub-warp code: the "
            f"default width is warpSize (64 on MI300X), so lanes 32-63 read the other "
            f"32-lane group; pass width 32 explicitly{more.note}",
            extra=more.extra,
        )
    for name, k, end in _collectives_without_width(unit):
        yield report(
            toks[k].start,
            toks[end].end,
            f"`{name}` without a logical warp width in 32-lane sub-warp code: hipCUB's "
            f"default is the hardware wavefront (64 lanes on MI300X), so each reduction or "
            f"scan spans two 32-lane groups; pass 32 as the second template argument",
        )


# cub/hipcub warp collectives: the second template argument is the logical warp width
_COLLECTIVES = frozenset({"WarpReduce", "WarpScan"})


def _collectives_without_width(unit: Unit) -> Iterator[tuple[str, int, int]]:
    """`cub::WarpReduce<float>` (one template argument) spelled in a function that works in
    32-lane groups: (the spelling, its first and last token), the first of each function."""
    toks = unit.tokens
    seen: set[int] = set()
    for name in sorted(_COLLECTIVES):
        for k in unit.identifier_positions.get(name, ()):
            if not (k >= 2 and toks[k - 1].text == "::" and toks[k - 2].text in ("cub", "hipcub")):
                continue
            end = _single_template_argument(unit, k + 1)
            func = function_at(unit, k)
            if end is None or func is None or func.open in seen:
                continue
            if model_at(unit, k) in (GROUP32, LANE32, BLOCK32):
                seen.add(func.open)
                yield f"{toks[k - 2].text}::{name}<...>", k - 2, end


def _single_template_argument(unit: Unit, lt: int) -> int | None:
    """The index of the `>` closing the template argument list opening at token ``lt`` when
    that list holds one argument, else None."""
    toks = unit.tokens
    if lt >= len(toks) or toks[lt].text != "<":
        return None
    angle, paren = 1, 0
    for j in range(lt + 1, min(len(toks), lt + 64)):
        t = toks[j].text
        if t in ("(", "["):
            paren += 1
        elif t in (")", "]"):
            paren -= 1
        elif paren == 0 and t == "<":
            angle += 1
        elif paren == 0 and t in (">", ">>"):
            angle -= len(t)
            if angle <= 0:
                return j
        elif paren == 0 and angle == 1 and t in (",", ";", "{"):
            return None
    return None


def _crosses(unit: Unit, c: Call) -> bool:
    """The shuffle reads across a 32-lane group where its function means one."""
    model = model_at(unit, c.index)
    if model == BLOCK32 or low_lanes_reach(unit, c.index):
        return False  # one group per block, or lanes 0-31 only: nothing to cross
    func = function_at(unit, c.index)
    constant = constant_is_the_fix(unit, func)  # the 32-lane ids are what is wrong
    if model == GROUP32 and not constant:
        return crosses_groups(unit, c)
    if _sub_warp_lane(unit, c):
        return True  # lane 31 is the last lane of no wavefront, whatever the constant
    # a lane id without a group id next to ballots or hardware-warp helpers is meant as the
    # hardware lane: HZ101 reports the `& 31`, and the broadcast is right once that is fixed
    return (
        model == LANE32
        and not constant
        and meets_hardware_warp(unit, func) is None
        and crosses_groups(unit, c)
    )


def _sub_warp_lane(unit: Unit, c: Call) -> bool:
    """The source lane or offset is computed with 32-lane arithmetic (`% 32`, `& 31`), or
    is the literal lane 31."""
    toks = unit.tokens
    lane_arg = SHUFFLES[c.name] - 1
    if len(c.args) <= lane_arg:
        return False
    a, b = c.args[lane_arg]
    arg = toks[a:b]
    if any(
        t.text in _SUB
        and k + 1 < len(arg)
        and arg[k + 1].kind is Kind.NUMBER
        and int_value(arg[k + 1].text) in _SUB[t.text]
        for k, t in enumerate(arg)
    ):
        return True
    return (
        len(arg) == 1
        and arg[0].kind is Kind.NUMBER
        and int_value(arg[0].text) == 31
        and c.name in ("__shfl", "__shfl_sync")
    )
