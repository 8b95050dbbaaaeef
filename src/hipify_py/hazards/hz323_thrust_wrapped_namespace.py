"""HZ323 thrust-wrapped-namespace

## What it detects
Thrust or CUB named through a namespace of the project's own (`amgx::thrust::device_vector`,
`amgx::cub::BlockReduce`, or `namespace thrust` opened inside another namespace), as code built
with `-DTHRUST_CUB_WRAPPED_NAMESPACE=amgx` (AMGX) or CUB's `CUB_NS_PREFIX` (lightseq's
`ls::cub`) does. One finding per file, at the first use, the other lines listed. Only in a
tree whose build files or sources name a wrapping macro (`THRUST_CUB_WRAPPED_NAMESPACE`,
`CUB_NS_PREFIX`, ...): elsewhere `X::thrust` is a namespace of the project's own, as
Boost.Multi's `multi::thrust::cuda::array`, the same on both platforms.

## Why it breaks on AMD
rocThrust 7.2.4 reads `THRUST_CUB_WRAPPED_NAMESPACE` but names `::thrust` in some of its own
headers (`thrust/detail/type_traits.h`), so no Thrust include compiles with it, and the build
files' conversion removes the flag (HB109); hipCUB has no `CUB_NS_PREFIX`. Thrust lives in
`::thrust` and hipCUB in `::hipcub`: `amgx::thrust::...` is "no member named 'thrust' in
namespace 'amgx'", and a `namespace thrust { ... }` of the project's own inside `amgx` hides
`::thrust` from the code around it.

## Example
```cuda
using device_memory = amgx::thrust::device_system_tag;   // HZ323
```

## How to fix
Name `thrust::` (or `THRUST_NS_QUALIFIER::`) instead of `amgx::thrust::`, and move what the
project adds to Thrust's namespace into a namespace of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.namespaces import namespace_bodies
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import KEYWORDS, Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_LIBRARIES = ("thrust", "cub")
# namespaces that hold a `thrust`/`cub` of the libraries themselves, not a wrapped copy
_NOT_WRAPPERS = frozenset({"std", "thrust", "cub", "hipcub", "cuda", "detail", "system"})


@hazard_rule(
    "HZ323",
    "thrust-wrapped-namespace",
    Severity.ERROR,
    "Thrust/CUB named through a wrapping namespace (THRUST_CUB_WRAPPED_NAMESPACE)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not ctx.project.wraps_thrust:
        return
    toks = unit.tokens
    for lib in _LIBRARIES:
        for i in unit.identifier_positions.get(lib, ()):
            if i < 2 or i + 1 >= len(toks) or toks[i].in_directive:
                continue
            owner = toks[i - 2]
            qualified = (
                toks[i - 1].text == "::"
                and toks[i + 1].text == "::"
                and owner.kind is Kind.IDENT
                and owner.text not in _NOT_WRAPPERS
                and owner.text not in KEYWORDS  # `typename ::thrust::complex<T>`
            )
            if qualified or _reopened_inside(unit, i):
                what = f"`{owner.text}::{lib}`" if qualified else f"`namespace {lib}`"
                yield report(
                    toks[i].start,
                    toks[i].end,
                    f"{what}: Thrust/CUB in a namespace of the project's own "
                    "(THRUST_CUB_WRAPPED_NAMESPACE, CUB_NS_PREFIX), which rocThrust 7.2.4 and "
                    f"hipCUB do not build with; name `{lib}::` instead",
                    extra={"root_cause": "wrapped Thrust namespace"},  # one fix per file
                )


def _reopened_inside(unit: Unit, i: int) -> bool:
    """`namespace thrust {` (token ``i`` is its name) inside another namespace's body."""
    bodies = namespace_bodies(unit)
    mine = next((b for b in bodies if b.keyword == i - 1), None)
    if mine is None:
        return False
    return any(b.open < mine.keyword and mine.close < b.close for b in bodies if b is not mine)
