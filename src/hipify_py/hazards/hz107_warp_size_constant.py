"""HZ107 warp-size-constant-32

## What it detects
A named constant that states the warp size as 32: `#define WARP_SIZE 32`,
`constexpr int kWarpSize = 32;`, `static const int THREADS_PER_WARP = 32;`,
`enum { kWarpLanes = 32 };`. The name must say it is a warp size (warp/lanes per warp), or its
line comment must (`static const int WS = 32; // warp size`), so tile sizes and block sizes of
32 are not reported. A definition in a branch the HIP build never
compiles (the `#else` of an `__HIP_PLATFORM_AMD__` test) is not reported either.

## Why it breaks on AMD
MI300X (gfx942, CDNA3) wavefronts have **64** lanes and CDNA cannot run wave32. Every use of the
constant (lane ids, warp counts, per-warp strides, shared-memory slots per warp) then describes
half a wavefront: reductions drop lanes 32-63 and per-warp slots collide. The definition is the
one place to fix, so the uses are not reported again by HZ101 or HZ102 (shuffle loops bounded by
the constant): the finding lists them as dependent lines (notes in text output, related
locations in SARIF). A constant used only in functions that work in consistent 32-lane groups
(lane and group ids both derived from it, shuffles of width 32) is not reported: such code
computes the same on a 64-lane wavefront, which simply holds two groups; nor is one whose
functions only take a 32-lane lane id from it while the file's shuffles pass a width of 32 (also
through a wrapper's default argument, `int width = WARP_SIZE`).

## Example
```cuda
#define WARP_SIZE 32            // HZ107
int lane = threadIdx.x % WARP_SIZE;
```

## How to fix
Choose the value per platform where the constant is defined:
```cuda
#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64            // CDNA (gfx9); RDNA is 32: prefer warpSize at run time
#else
#define WARP_SIZE 32
#endif
```
or use `warpSize` (a run-time value since HIP 7.0) where no compile-time constant is needed.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import function_at
from ..analysis.warp_constants import definitions
from ..analysis.warp_model import GROUP32, LANE32, file_has_group32, model_at, related
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ107",
    "warp-size-constant-32",
    Severity.ERROR,
    "named warp-size constant defined as 32 (wavefronts are 64 wide on MI300X)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for name, i, value in definitions(unit):
        uses = [k for k in unit.identifier_positions[name] if k != i]
        models = {model_at(unit, k) for k in uses if function_at(unit, k) is not None}
        if models and models <= {GROUP32, LANE32} and (GROUP32 in models or file_has_group32(unit)):
            continue  # its users work in consistent 32-lane groups (lane ids, width-32 shuffles)
        more = related(unit, uses, i)
        yield report(
            toks[i].start,
            toks[value].end,
            f"`{name}` is defined as 32 lanes: MI300X (gfx942) wavefronts have 64; define it "
            f"per platform (64 on AMD CDNA) or use warpSize at run time, which also fixes "
            f"the lines that use it{more.note}",
            extra=more.extra,
        )
