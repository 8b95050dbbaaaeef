"""HZ406 free-after-async-alloc

## What it detects
A pointer allocated with `cudaMallocAsync`/`cudaMallocFromPoolAsync` (or the HIP forms) and
released with the synchronous `cudaFree`/`hipFree` in the same function, with no stream or
device synchronisation (`cudaStreamSynchronize`, `cudaDeviceSynchronize`,
`cudaEventSynchronize`) between the allocation and the free.

## Why it breaks on AMD
Since HIP 7.0, `hipFree` no longer waits implicitly for work on memory that came from
`hipMallocAsync`/`hipMallocFromPoolAsync`. Kernels still queued on the stream may then run on
memory that was already returned to the pool and handed out again: silent corruption that
CUDA code relying on the old implicit wait never saw.

## Example
```cuda
cudaMallocAsync(&buf, n, stream);
kernel<<<g, b, 0, stream>>>(buf);
cudaFree(buf);                      // HZ406
```

## How to fix
Free stream-ordered memory with `hipFreeAsync(buf, stream)`, or synchronise the stream
(`hipStreamSynchronize(stream)`) before `hipFree`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.allocations import pointer_target
from ..analysis.calls import calls
from ..analysis.functions import function_at
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_ASYNC = frozenset(
    {"cudaMallocAsync", "hipMallocAsync", "cudaMallocFromPoolAsync", "hipMallocFromPoolAsync"}
)
_SYNC_FREE = frozenset({"cudaFree", "hipFree"})
_WAITS = frozenset(
    {
        "cudaStreamSynchronize",
        "hipStreamSynchronize",
        "cudaDeviceSynchronize",
        "hipDeviceSynchronize",
        "cudaEventSynchronize",
        "hipEventSynchronize",
        "cudaStreamQuery",
        "hipStreamQuery",
    }
)


@hazard_rule(
    "HZ406",
    "free-after-async-alloc",
    Severity.WARNING,
    "stream-ordered allocation freed with a synchronous free (HIP 7 no longer waits)",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_ASYNC & unit.identifiers and _SYNC_FREE & unit.identifiers):
        return
    toks = unit.tokens
    waits = [c.index for c in calls(unit, _WAITS)]
    frees = list(calls(unit, _SYNC_FREE))
    for alloc in calls(unit, _ASYNC):
        func = function_at(unit, alloc.index)
        name = pointer_target(toks, alloc) if alloc.args else None
        if func is None or name is None:
            continue
        for free in frees:
            if not (alloc.close < free.index < func.close) or not free.args:
                continue
            a, b = free.args[0]
            if not any(t.text == name for t in toks[a:b]):
                continue
            if any(alloc.close < w < free.index for w in waits):
                continue
            yield report(
                toks[free.index].start,
                toks[free.close].end,
                f"`{name}` came from `{alloc.name}` and is released with `{free.name}`: since "
                f"HIP 7.0 hipFree no longer waits for the stream; use hipFreeAsync or "
                f"synchronise the stream first",
            )
