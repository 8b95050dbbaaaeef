"""HZ106 sync-mask-32bit

## What it detects
A 32-bit lane mask reaching a `_sync` warp intrinsic (`__shfl*_sync`, `__ballot_sync`,
`__any_sync`, `__all_sync`, `__match_*_sync`, `__reduce_*_sync`, `__syncwarp`): a literal that
fits in 32 bits (`0xffffffff`, `~0u`, `-1`, `0x0000ffff`), a macro defined as one, or a variable
of a 32-bit type. It is reported once where the fix goes: the literal, the `#define`, or the
variable's declaration (not at every use). A partial mask that only lanes 0-31 can reach
(`if (threadIdx.x < 32)`, `if (warp == 0)` with `warp = tid / 32`) is widened without a
question: its lanes are the ones CUDA runs. A partial mask that names the first segment of its
shuffle's width, on a shuffle every lane of the function runs (no condition around it, no
`return` before it: `__shfl_down_sync(0x0000ffff, v, 8, 16)`), is the full mask: every lane
takes part, each in its own segment.

## Why it breaks on AMD
All masks taken by HIP's warp builtins are 64-bit. ROCm 7's `_sync` intrinsics
`static_assert(sizeof(mask) == 8)` ("The mask must be a 64-bit integer"), so a 32-bit mask does
not compile for gfx942/gfx950, and a full-warp mask written as `0xffffffff` would name only
lanes 0-31 of a 64-lane wavefront. They also check (in a build without NDEBUG) that the mask
names exactly the lanes that run the call, and trap where it does not: a segment mask that
CUDA tolerates stops the kernel.

## Example
```cuda
#define FULL_MASK 0xffffffff                     // converted: 0xffffffffffffffffULL
v += __shfl_down_sync(0xffffffff, v, off);      // converted: 0xffffffffffffffffULL
unsigned m = __ballot_sync(FULL_MASK, p);       // converted: unsigned long long m
v += __shfl_sync(m, v, 0);
v += __shfl_sync(0x0000ffff, v, 0);             // widened to 0x0000ffffULL, still reported
v += __shfl_down_sync(0x0000ffff, v, 8, 16);    // every lane runs it: 0xffffffffffffffffULL
```

## How to fix
`convert` already writes the full mask (and a segment mask) as `0xffffffffffffffffULL` (also
at a `#define` or a variable initialiser) and widens mask variables to `unsigned long long`
when the macro or variable serves only as a mask: the code cannot compile otherwise and the
meaning ("every lane") is kept. These findings are counted as fixed. Left for you: partial
masks (widened, but which of the 64 lanes take part is a decision), a `0xffffffffULL` mask
(lanes 0-31 only; `--fix` makes it the full mask), parameters, and macros or variables also
used for other arithmetic (an unsafe fix widens them at their definition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..analysis.low_lanes import low_lanes_reach
from ..analysis.values import int_value
from ..context import Context
from ..findings import Finding, Fix, Severity
from ..frontend.unit import Unit
from ..rewrite._mask_calls import hip_calls
from ..rewrite.warp_mask_64 import FULL64, MaskSite, mask_sites
from ..rules import INSTANTIATED, Proposal, Report, hazard_rule


def _where(site: MaskSite) -> str:
    return ", ".join(f"`{n}`" for n in site.uses)


def _lanes(value: int) -> str:
    lanes = [i for i in range(64) if value >> i & 1]
    if lanes and lanes == list(range(lanes[0], lanes[-1] + 1)):
        return f"lanes {lanes[0]}-{lanes[-1]}" if len(lanes) > 1 else f"lane {lanes[0]}"
    return f"{len(lanes)} of the lanes 0-31"


# what a finding says: (message, fix or None, severity)
_Described = tuple[str, Fix | None, Severity]


def _full(site: MaskSite, where: str, report: Report) -> _Described:
    """CUDA's full mask: the conversion's 64-bit full mask keeps its meaning."""
    message = f"32-bit full mask `{site.text}` passed to {where}: HIP needs {FULL64}"
    return message, Fix(site.edits, f"use the 64-bit full mask {FULL64}", safe=True), Severity.ERROR


def _full_ull(site: MaskSite, where: str, report: Report) -> _Described:
    """``0xffffffffULL`` compiles but names lanes 0-31 only; the conversion keeps a 64-bit
    literal as written, so widening it is this rule's fix."""
    message = (
        f"mask `{site.text}` passed to {where} names only lanes 0-31 of a 64-lane "
        f"wavefront; the full mask is {FULL64}"
    )
    widen = report.edit(site.start, site.end, FULL64)
    return message, Fix((widen,), f"use the 64-bit full mask {FULL64}", safe=True), Severity.ERROR


def _partial(site: MaskSite, where: str, report: Report) -> _Described:
    """A partial mask compiles once widened; which lanes take part is a person's decision."""
    value = int_value(site.text) or 0
    message = (
        f"partial mask `{site.text}` passed to {where} (widened to 64 bits so it compiles) "
        f"names {_lanes(value)} of a 64-lane wavefront: decide which lanes take part"
    )
    return message, None, Severity.WARNING


def _segment(site: MaskSite, where: str, report: Report) -> _Described:
    """A segment mask of a shuffle every lane runs: the conversion's full mask keeps its
    meaning, and a partial one would trap in HIP's mask check."""
    message = (
        f"partial mask `{site.text}` passed to {where}, which every lane runs in segments of "
        f"the shuffle's width: HIP checks that the mask names every lane that runs the call "
        f"(a build without NDEBUG traps), so the mask is {FULL64}"
    )
    fix = Fix(site.edits, f"use the 64-bit full mask {FULL64}", safe=True)
    return message, fix, Severity.ERROR


def _macro(site: MaskSite, where: str, report: Report) -> _Described:
    """A mask macro: fixed at its definition when it serves only as a mask."""
    macro_value, _, reasons = site.detail.partition("; ")
    message = (
        f"mask macro `{site.text}` ({macro_value}) passed to {where} is 32-bit: HIP needs 64 bits"
    )
    if not site.default:
        message += f" ({reasons}, so it is not changed)"
        return (
            message,
            Fix(site.edits, "widen the definition to 64 bits", safe=False),
            Severity.ERROR,
        )
    if site.open:
        message += "; widened, but it is a partial mask: decide which lanes take part"
        return message, None, Severity.WARNING
    return message, Fix(site.edits, f"define it as {FULL64}", safe=True), Severity.ERROR


def _variable(site: MaskSite, where: str, report: Report) -> _Described:
    """A mask variable: its declaration widened when it serves only as a mask."""
    spelling, _, reasons = site.detail.partition("; ")
    message = (
        f"mask `{site.text}` of 32-bit type `{spelling}` passed to {where}: "
        f"HIP needs a 64-bit mask (unsigned long long)"
    )
    if site.default and not site.open:
        safe = Fix(site.edits, "declare the mask as unsigned long long", safe=True)
        return message, safe, Severity.ERROR
    if site.default:
        message += "; widened, check which lanes its value names on a 64-lane wavefront"
        return message, None, Severity.WARNING
    message += f" ({reasons}, so it is not changed)" if reasons else ""
    fix = (
        Fix(site.edits, "declare the mask as unsigned long long", safe=False)
        if site.edits
        else None
    )
    return message, fix, Severity.ERROR


def _elsewhere(site: MaskSite, where: str, report: Report) -> _Described:
    """A mask defined outside this file: an error when its 32-bit type is known, a warning
    when only a header's definition could say."""
    if site.detail.startswith("declared"):
        message = (
            f"mask `{site.text}` passed to {where} is 32-bit ({site.detail}): "
            f"HIP needs a 64-bit mask (unsigned long long)"
        )
        return message, None, Severity.ERROR
    message = f"mask `{site.text}` passed to {where} is {site.detail}: HIP needs a 64-bit mask"
    return message, None, Severity.WARNING


# MaskSite.kind -> what its finding says
_DESCRIBE: dict[str, Callable[[MaskSite, str, Report], _Described]] = {
    "full": _full,
    "full-ull": _full_ull,
    "partial": _partial,
    "segment": _segment,
    "macro": _macro,
    "variable": _variable,
    "elsewhere": _elsewhere,
}


def _finding(site: MaskSite, report: Report) -> Finding:
    message, fix, severity = _DESCRIBE[site.kind](site, _where(site), report)
    return report(site.start, site.end, message, fix=fix, severity=severity)


@hazard_rule(
    "HZ106",
    "sync-mask-32bit",
    Severity.ERROR,
    "32-bit lane mask passed to a _sync warp intrinsic (HIP needs 64-bit)",
    bites=INSTANTIATED,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    for site in mask_sites(unit, ctx):
        if site.default and site.open and _low_lanes_at_every_call(unit, ctx, site):
            continue  # widened, and no lane past 31 runs it: the value names lanes as on CUDA
        yield _finding(site, report)


def _low_lanes_at_every_call(unit: Unit, ctx: Context, site: MaskSite) -> bool:
    """Every call the widened mask reaches (its literal, or the variable or macro by name)
    runs only in lanes 0-31: a 32-bit value then names every lane that can take part, as on
    CUDA (arrayfire's `int activemask = 0xFFFFFFFF >> (32 - nWarps)` under `if (warpid == 0
    && laneid < nWarps)`, round 13)."""
    reached = [
        i
        for _, i, arg in hip_calls(unit, ctx)
        if arg and (arg[0].start == site.start or (len(arg) == 1 and arg[0].text == site.text))
    ]
    return bool(reached) and all(low_lanes_reach(unit, i) for i in reached)
