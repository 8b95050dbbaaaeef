"""HZ403 managed-memory

## What it detects
Managed (unified) memory: `cudaMallocManaged`/`hipMallocManaged`, `__managed__` variables,
`cudaMemAdvise`/`hipMemAdvise` and `cudaMemPrefetchAsync`/`hipMemPrefetchAsync`.

## Why it breaks on AMD
Page-fault migration on AMD needs **`HSA_XNACK=1`** and an HMM-capable kernel driver. Without
them `hipMallocManaged` returns pinned host memory that every kernel reads over the
interconnect (tens of times slower; prefetch and advice become no-ops), and memory from plain
`malloc` is not accessible from the GPU at all. HIP 7.0 also allows `hipMallocManaged` and
`hipMemAdvise` during stream capture only in relaxed capture mode.

One diagnosis per file, at the first use the HIP build compiles: the other uses are its
dependent lines.  An allocation of at most a page whose size the file spells out (a `bool`
flag, ten counters: the CUDA samples' graphMemoryNodes and systemWideAtomics, round 21) is
not one: reading it over the interconnect costs nothing a user would notice.  The `sizeof`
of one element the file does not size itself (a template's type, `*p`, `a[0]`) counts as 16
bytes, the widest scalar or vector element (`double2`, `cuDoubleComplex`): the cuFFTDx
samples' `ffts_per_block * fft_size * sizeof(complex_type)` for two 128-point FFTs is 2 KiB
(round 23).  Nor is a `__managed__` variable of one object (a flag, a counter, an atomic) or of
an array of at most a page whose extents the file spells (round 27).

Opt-in (`--enable HZ403`): the code computes the same without XNACK, only slower, and held-out
readers judged 19 of 61 findings of rounds 12-28 worth acting on at first contact (test
buffers, one-shot copies, allocators behind capability checks), below the line that made the
other advisory rules opt-in (`docs/hazard-precision.md`).

## Example
```cuda
float* x; cudaMallocManaged(&x, n * sizeof(float));    // HZ403
```

## How to fix
Prefer explicit `hipMalloc` + `hipMemcpy` for hot data. If you keep managed memory, document
and check `HSA_XNACK=1` (e.g. `hipDeviceAttributePageableMemoryAccess`), and measure on the
target.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..analysis.calls import Call, calls
from ..analysis.diagnosis import first_of_file
from ..analysis.tokens import occurrences
from ..analysis.values import evaluate
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_NAMES = frozenset(
    {
        "cudaMallocManaged",
        "hipMallocManaged",
        "__managed__",
        "cudaMemAdvise",
        "hipMemAdvise",
        "cudaMemPrefetchAsync",
        "hipMemPrefetchAsync",
        "cudaMemAdvise_v2",
        "cudaMemPrefetchAsync_v2",
    }
)


_ALLOCATIONS = frozenset({"cudaMallocManaged", "hipMallocManaged"})
_PAGE = 4096
_WIDEST_ELEMENT = 16  # bytes of double2, cuDoubleComplex, float4


def _at_most_a_page(unit: Unit, c: Call) -> bool:
    """The allocation ``c`` asks for a size the file fixes, of at most a page."""
    if len(c.args) < 2:
        return False
    size = evaluate(unit, *c.args[1], widest=_WIDEST_ELEMENT)
    return size is not None and 0 < size <= _PAGE


def _small_variable(unit: Unit, i: int) -> bool:
    """The `__managed__` at token ``i`` declares objects of at most a page each: single
    objects (CodeSamples' `__managed__ float mResult;`, a `cuda::std::atomic<int>` counter,
    round 27), or arrays whose sizes the file fixes, counted at 16 bytes an element."""
    toks = unit.tokens
    depth, k = 0, i + 1
    extents: list[int] = []
    while k < len(toks) and not (depth == 0 and toks[k].text in (";", "=", "{")):
        x = toks[k].text
        if x == "[" and depth == 0:
            close = unit.lexed.brackets.get(k)
            n = evaluate(unit, k + 1, close) if close is not None else None
            if close is None or n is None or n <= 0:
                return False
            extents.append(n)
            k = close
        elif x in ("(", "<"):
            depth += 1
        elif x in (")", ">"):
            depth -= 1
        k += 1
    return math.prod(extents) * _WIDEST_ELEMENT <= _PAGE


@hazard_rule(
    "HZ403",
    "managed-memory",
    Severity.WARNING,
    "managed memory: needs HSA_XNACK=1 + HMM on AMD, else slow zero-copy",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    # and every other API that converts to one of them (the driver's cuMemAllocManaged), so
    # a second run over the HIP output finds what the first found: --annotate is idempotent
    hits = _NAMES & unit.identifiers
    hits |= {n for n, e in unit.mapped.items() if n.startswith("cu") and e.hip in _NAMES}
    if not hits:
        return
    toks = unit.tokens
    small = {c.index for c in calls(unit, _ALLOCATIONS) if _at_most_a_page(unit, c)}
    small |= {
        i for i in unit.identifier_positions.get("__managed__", ()) if _small_variable(unit, i)
    }
    uses = [i for i in occurrences(unit, hits) if not toks[i].in_directive and i not in small]
    found = first_of_file(unit, uses)
    if found is None:
        return
    t, more = toks[found.first], found.related
    yield report(
        t.start,
        t.end,
        f"managed memory `{t.text}`: page migration on AMD needs HSA_XNACK=1 and HMM; "
        f"otherwise it is pinned host memory read over the interconnect{more.note}",
        extra=more.extra,
    )
