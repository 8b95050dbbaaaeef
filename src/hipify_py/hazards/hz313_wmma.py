"""HZ313 wmma

## What it detects
Warp-matrix code: `nvcuda::wmma`, `wmma::fragment`, `wmma::load_matrix_sync`,
`wmma::mma_sync`, `wmma::store_matrix_sync`, `wmma::fill_fragment`, `using namespace nvcuda`
and `#include <mma.h>`. Inline `mma.sync`/`ldmatrix` PTX is reported by HZ310.

## Why it breaks on AMD
HIP does **not** implement the `nvcuda::wmma` API. AMD's matrix cores (MFMA on CDNA) are
programmed through rocWMMA (a similar `rocwmma::` API, with different supported tile shapes
and a 64-lane wavefront), through `__builtin_amdgcn_mfma_*` intrinsics, or through libraries
(hipBLASLt, Composable Kernel).

The older HIP note that "half-float shuffles are not supported" no longer holds: the ROCm 7.2
headers overload `__shfl*` for `__half`/`__half2` and `__hip_bfloat16`, and the `_sync` forms are
templates, so shuffling half values is not reported.

## Example
```cuda
wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;   // HZ313
wmma::mma_sync(acc, a, b, acc);                                          // HZ313
```

One diagnosis per file: the first warp-matrix construct the HIP build compiles is reported,
with every other use in the file as a dependent line (SARIF related locations), because the
fix is one port of the file's matrix code, not an edit per call.

## How to fix
Port to rocWMMA (`#include <rocwmma/rocwmma.hpp>`, `rocwmma::fragment`, ...) and check the
fragment shapes supported on gfx942, or call a GEMM library.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..analysis.diagnosis import first_of_file
from ..analysis.tokens import occurrences
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_FUNCS = frozenset(
    {"load_matrix_sync", "store_matrix_sync", "mma_sync", "fill_fragment", "fragment", "bmma_sync"}
)


@hazard_rule(
    "HZ313", "wmma", Severity.ERROR, "nvcuda::wmma warp-matrix API (not in HIP; use rocWMMA)"
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if "wmma" not in ids and "nvcuda" not in ids:
        return  # an include of <mma.h> alone: HP001's (rewrite/wmma_include.py)
    sites = {s.index: s for s in _sites(unit)}
    found = first_of_file(unit, list(sites))
    if found is None:
        return
    first, more = sites[found.first], found.related
    uses = sorted({sites[i].construct for i in found.others} - {first.construct})
    also = f"; {len(found.others)} more in this file ({', '.join(uses)})" if found.others else ""
    yield report(
        first.start,
        first.end,
        f"{first.message}{also}: port the file's warp-matrix code to rocWMMA{more.note}",
        extra=more.extra,
    )


@dataclass(frozen=True)
class _Site:
    index: int  # token index, for the line
    start: int
    end: int
    construct: str  # what a reader recognises: `#include <mma.h>`, `wmma::mma_sync`
    message: str


def _sites(unit: Unit) -> Iterator[_Site]:
    """Every warp-matrix construct of the file, in order."""
    toks = unit.tokens
    for i in sorted((*unit.directives, *occurrences(unit, ("nvcuda", "wmma")))):
        t = toks[i]
        if t.kind is Kind.DIRECTIVE and i + 2 < len(toks) and toks[i + 1].text == "include":
            rest = unit.text[toks[i + 2].start : toks[i + 2].end + 8]
            if rest.startswith(("<mma.h>", '"mma.h"')):
                what = "`#include <mma.h>`"
                yield _Site(i, t.start, toks[i + 2].end + 6, what, f"{what}: HIP has no WMMA")
            continue
        if t.kind is not Kind.IDENT:
            continue
        if (
            t.text == "nvcuda"
            and i > 0
            and toks[i - 1].text == "namespace"
            and i + 1 < len(toks)
            and toks[i + 1].text == ";"
        ):
            what = "`using namespace nvcuda`"
            message = f"{what} brings in nvcuda::wmma, which HIP does not support"
            yield _Site(i, toks[max(i - 2, 0)].start, t.end, what, message)
        elif t.text == "nvcuda" and i + 2 < len(toks) and toks[i + 2].text == "wmma":
            what = "`nvcuda::wmma`"
            yield _Site(i, t.start, toks[i + 2].end, what, f"{what} is not supported by HIP")
        elif (
            t.text == "wmma"
            and i + 2 < len(toks)
            and toks[i + 1].text == "::"
            and toks[i + 2].text in _FUNCS
            and not (i > 0 and toks[i - 1].text == "::")
        ):
            what = f"`wmma::{toks[i + 2].text}`"
            message = f"{what} is not supported by HIP (rocWMMA: `rocwmma::{toks[i + 2].text}`)"
            yield _Site(i, t.start, toks[i + 2].end, what, message)
