"""HZ317 ffs-overload-ambiguous

## What it detects
`__ffsll(x)` or `__ffs(x)` called with a 64-bit `long` argument: a variable, a cast (C-style
or `static_cast<int64_t>(x)`, CUDA_gpca_proj1's `ExtractLsbPos`, compile round 46: 7 TUs), or
an element of a pointer or array (`__ffsll(masks[i])` with `const int64_t* masks`) of type
`uint64_t`, `int64_t`, `size_t`, `unsigned long` or `long`.

## Why it breaks on AMD
HIP overloads `__ffsll` for `long long` and `unsigned long long` (and `__ffs` for `int` and
`unsigned int`). On Linux `uint64_t` is `unsigned long`, which converts equally well to both,
so HIP-Clang rejects the call as ambiguous, while CUDA's single `__ffsll(long long)` accepts
it.

## Example
```cuda
uint64_t mask = __ballot_sync(~0ull, pred);
int first = __ffsll(mask);      // HZ317: ambiguous on HIP
```

## How to fix
`convert` casts the argument to the type CUDA's single overload converts it to,
`__ffsll((long long)mask)` (`int` for `__ffs`): the bits, and so the result, are CUDA's.
Declaring the mask `unsigned long long` works as well.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.ffs_arguments import ambiguous_ffs
from ..context import Context
from ..findings import Fix, Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ317",
    "ffs-overload-ambiguous",
    Severity.ERROR,
    "__ffsll/__ffs on a uint64_t/long argument is ambiguous on HIP",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for site in ambiguous_ffs(unit):
        c, want = site.call, site.cast
        fix = Fix(
            (report.edit(site.at, site.at, f"({want})"),),
            f"cast the argument to {want}, the type CUDA converts it to",
            safe=True,
        )
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            f"`{c.name}` on a `{' '.join(reversed(site.words))}` argument is ambiguous on HIP "
            f"(it overloads {want} and unsigned {want}): cast to `{want}`, as CUDA converts it",
            fix=fix,
        )
