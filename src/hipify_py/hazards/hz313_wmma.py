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

## How to fix
Port to rocWMMA (`#include <rocwmma/rocwmma.hpp>`, `rocwmma::fragment`, ...) and check the
fragment shapes supported on gfx942, or call a GEMM library.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule
from ._tokens import occurrences

_FUNCS = frozenset(
    {"load_matrix_sync", "store_matrix_sync", "mma_sync", "fill_fragment", "fragment", "bmma_sync"}
)


@hazard_rule(
    "HZ313", "wmma", Severity.ERROR, "nvcuda::wmma warp-matrix API (not in HIP; use rocWMMA)"
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if "wmma" not in ids and "nvcuda" not in ids and "mma" not in ids:
        return
    toks = unit.tokens
    for i in sorted((*unit.directives, *occurrences(unit, ("nvcuda", "wmma")))):
        t = toks[i]
        if t.kind is Kind.DIRECTIVE and i + 2 < len(toks) and toks[i + 1].text == "include":
            rest = unit.text[toks[i + 2].start : toks[i + 2].end + 8]
            if rest.startswith(("<mma.h>", '"mma.h"')):
                yield report(
                    t.start,
                    toks[i + 2].end + 6,
                    "`#include <mma.h>` (nvcuda::wmma): HIP has no WMMA; use rocWMMA",
                )
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
            yield report(
                toks[max(i - 2, 0)].start,
                t.end,
                "`using namespace nvcuda` brings in nvcuda::wmma, which HIP does "
                "not support; port to rocWMMA",
            )
        elif t.text == "nvcuda" and i + 2 < len(toks) and toks[i + 2].text == "wmma":
            yield report(
                t.start,
                toks[i + 2].end,
                "`nvcuda::wmma` is not supported by HIP; port to rocWMMA",
            )
        elif (
            t.text == "wmma"
            and i + 2 < len(toks)
            and toks[i + 1].text == "::"
            and toks[i + 2].text in _FUNCS
            and not (i > 0 and toks[i - 1].text == "::")
        ):
            yield report(
                t.start,
                toks[i + 2].end,
                f"`wmma::{toks[i + 2].text}` is not supported by HIP; port to "
                f"rocWMMA (`rocwmma::{toks[i + 2].text}`)",
            )
