"""Cast the argument of an ambiguous `__ffsll`/`__ffs` call to CUDA's parameter type.

`__ffsll(static_cast<int64_t>(x))` compiles with nvcc, whose single `__ffsll(long long)` takes
the `long`; HIP overloads `long long` and `unsigned long long`, and the call is ambiguous
(CUDA_gpca_proj1's `ExtractLsbPos`, compile round 46: 7 translation units).  Writing
`__ffsll((long long)static_cast<int64_t>(x))` is the conversion CUDA makes, so the result is
CUDA's bit for bit: a conversion, done by default.  HZ317's finding at the call is then
marked fixed (its fix is this edit)."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.ffs_arguments import ambiguous_ffs
from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "ffs-cast"


@rewrite_pass(RULE, order=13)
def ffs_cast(unit: Unit, ctx: Context) -> Iterator[Edit]:
    for site in ambiguous_ffs(unit):
        yield Edit(site.at, site.at, f"({site.cast})", RULE)
