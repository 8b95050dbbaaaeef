"""HZ203 syncthreads-divergent

## What it detects
`__syncthreads()` (and `__syncthreads_count/and/or`) in **both** arms of an `if`/`else` whose
condition can differ between the threads of a block where it is evaluated (data flow from
`threadIdx`, lane ids and values computed from them), e.g.
`if (tid < half) { ...; __syncthreads(); } else { ...; __syncthreads(); }`: the threads on
either side meet at the barrier of their own arm.

A barrier under a thread-dependent condition in one arm only, or in a loop whose trip count
differs between threads, is not reported: CUDA makes it undefined behaviour as well, and code
that runs on NVIDIA runs the same on AMD, whose barrier is at least as tolerant (a wavefront
arrives when any of its lanes does; a finished wavefront no longer counts). Conditions the
threads agree on are not reported either (`analysis.uniformity`): block-uniform values
(`blockDim.x`, kernel arguments), a value reduced through shared memory
(`minchange = buf_s[0];` before `while (minchange < 0)`), and loops over a bound padded to a
multiple of their step (`for (j = threadIdx.x; j < SDIV(n, B) * B; j += B)`).

## Why it breaks on AMD
Since Volta, NVIDIA counts barrier arrivals per thread, so threads of one warp that took
different arms each arrive once and the block proceeds. AMD's `s_barrier` counts wavefronts: a
wavefront whose lanes are split by the condition executes one arm after the other and arrives
**twice**, while a wavefront on one side arrives once. The counts no longer match: wavefronts
pass the barrier early (stale shared memory) or the block hangs at the next barrier.
(Pre-Volta NVIDIA GPUs counted per warp and failed the same way.)

## Example
```cuda
if (threadIdx.x % 2 == 0) {
  smem[threadIdx.x] = a;
  __syncthreads();          // HZ203
} else {
  __syncthreads();
  b = smem[threadIdx.x - 1];
}
```

## How to fix
Move the barrier out of the `if` (one `__syncthreads()` after it, reached by every thread), so
that each wavefront arrives once.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import enclosing_conditions, function_at
from ..analysis.tokens import occurrences, text_of
from ..analysis.uniformity import BLOCK, both_arms_call, varying_name
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_BARRIERS = frozenset(
    {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"}
)


@hazard_rule(
    "HZ203",
    "syncthreads-divergent",
    Severity.ERROR,
    "__syncthreads() in both arms of a thread-dependent if: a split wavefront arrives twice",
    bites=RUN,
    opt_in=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_BARRIERS & unit.identifiers):
        return
    toks = unit.tokens
    for i in occurrences(unit, _BARRIERS):
        t = toks[i]
        if t.in_directive or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        func = function_at(unit, i)
        if func is None:
            continue
        for kw, a, b in enclosing_conditions(unit, i, func):
            if kw != "if" or not both_arms_call(toks, b, func.close, _BARRIERS):
                continue
            name = varying_name(unit, func, a, b, BLOCK)
            if name is None:
                continue
            line = unit.lines.position(toks[a].start)[0]
            yield report(
                t.start,
                toks[i + 1].end + 1,
                f"`{t.text}()` in one arm of an if (line {line}) whose condition "
                f"`{text_of(unit, a, b)}` depends on the thread (`{name}`), with a barrier "
                f"in the other arm too: a wavefront split by it arrives at both (AMD counts "
                f"wavefronts, not threads); put one barrier after the if",
                extra={"root_cause": f"the if at line {line}"},  # one fix for all its barriers
            )
            break
