"""HZ204 launch-bounds-min-blocks

## What it detects
`__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` whose second argument HIP cannot honour on gfx942,
and any third argument (CUDA 12's max-blocks-per-cluster). HIP reads the second argument as
min waves per execution unit (SIMD); gfx942 runs at most 8 waves per SIMD, so a value from 1 to
8 is a hint the compiler can meet and is not reported (`(256, 2)` asks for 2 resident blocks
of 8 waves on a CUDA SM and for 2 waves per SIMD on a CDNA3 compute unit: about the same
occupancy). A value above 8 is reported; one the file does not let us evaluate (a template
parameter, a macro from another header) is not: every such minimum judged on real code (llm.c's
`MAX_1024_THREADS_BLOCKS`, apex's `BLOCKS_PER_SM` and `DESIRED_OCCUPANCY`: 9 of 9) was a hint
of 1 to 3 blocks, and a CUDA SM holds at most 2048 threads, so with 256 threads or more no
minimum CUDA can meet exceeds 8 anyway.

## Why it breaks on AMD
HIP accepts the same syntax but reads the second parameter as **MIN_WARPS_PER_EXECUTION_UNIT**,
not "minimum resident blocks per SM". A CUDA value above 8 (`2048 / 128` = 16) asks gfx942 for
an occupancy it cannot reach: clang warns "failed to meet occupancy target given by
'amdgpu-waves-per-eu'" and gives up on it, so the kernel keeps the registers it would use
without the hint (clang-19 for gfx942: 122 VGPRs with `(128, 16)`, as with `(128)` alone) and
the occupancy the CUDA code asked for is lost. A third (cluster) argument does
not compile with HIP (`error: expected unqualified-id`, ROCm 7.2.4). `--maxregcount` has no
HIP equivalent.

## Example
```cuda
__global__ void __launch_bounds__(128, 16) k(...)   // HZ204: 16 > 8 waves per SIMD
```

## How to fix
Give the waves per SIMD the CUDA occupancy meant, `MIN_BLOCKS * MAX_THREADS / 64 / 4` on
gfx942 (64-lane waves, 4 SIMDs per compute unit), at most 8, or drop the second argument and
tune occupancy on the target. When both arguments are integer literals an unsafe fix writes
that number.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import calls
from ..analysis.tokens import text_of
from ..analysis.values import evaluate, int_value
from ..context import Context
from ..findings import Fix, Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

MAX_WAVES_PER_EU = 8  # wave slots per SIMD on gfx942 (clang warns above it)


@hazard_rule(
    "HZ204",
    "launch-bounds-min-blocks",
    Severity.WARNING,
    "__launch_bounds__ second argument means min warps per EU in HIP",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, {"__launch_bounds__"}):
        if len(c.args) < 2 or toks[c.index].in_directive:
            continue
        (a0, b0), (a1, b1) = c.args[0], c.args[1]
        second = text_of(unit, a1, b1)
        value = evaluate(unit, a1, b1)
        if len(c.args) == 2 and (value is None or 1 <= value <= MAX_WAVES_PER_EU):
            continue  # a waves-per-SIMD hint gfx942 can meet (or, unknown, most likely one)
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
                waves = min(MAX_WAVES_PER_EU, max(1, blocks * threads // (64 * 4)))
                fix = Fix(
                    (report.edit(toks[a1].start, toks[a1].end, str(waves)),),
                    f"convert {blocks} min blocks x {threads} threads to {waves} min waves"
                    " per SIMD (64-lane waves, 4 SIMDs per compute unit)",
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
            f"SM) {side}{extra}; gfx942 holds at most {MAX_WAVES_PER_EU} waves per SIMD",
            fix=fix,
        )
