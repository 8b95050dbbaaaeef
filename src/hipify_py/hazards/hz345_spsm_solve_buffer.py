"""HZ345 spsm-solve-buffer

## What it detects
A CUDA 12 `cusparseSpSM_solve` call (10 arguments, no external buffer) for which the
conversion found no `cusparseSpSM_analysis` of the same descriptor in the same function to take
the buffer from.

## Why it breaks on AMD
CUDA 12 removed the solve step's `externalBuffer`; hipSPARSE's `hipsparseSpSM_solve` (ROCm
7.2.4) still takes it as its 11th argument: the temporary buffer given to
`hipsparseSpSM_analysis` for that descriptor. The converted call has one argument too few and
does not compile ("no matching function for call to 'hipsparseSpSM_solve'"). When the analysis
call is in the same function with the descriptor spelled the same, the conversion appends its
buffer itself and this rule stays silent.

## Example
```cuda
void solve(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
           cusparseDnMatDescr_t C, cusparseSpSMDescr_t d, const float* alpha) {
  cusparseSpSM_solve(h, op, op, alpha, A, B, C, CUDA_R_32F,
                     CUSPARSE_SPSM_ALG_DEFAULT, d);  // HZ345: the analysis is elsewhere
}
```

## How to fix
Pass the buffer that `hipsparseSpSM_analysis` was given for the descriptor as the last
argument: `hipsparseSpSM_solve(..., d, buffer)`, keeping the buffer alive until the last solve.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rewrite.spsm_buffer import SOLVE, buffer_of, solve_calls
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ345",
    "spsm-solve-buffer",
    Severity.ERROR,
    "CUDA 12 cusparseSpSM_solve without the external buffer hipSPARSE's solve needs",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if SOLVE not in unit.identifiers:
        return
    toks = unit.tokens
    for i in solve_calls(unit):
        if buffer_of(unit, i) is None:
            yield report(
                toks[i].start,
                toks[i].end,
                "CUDA 12's `cusparseSpSM_solve` has no external buffer; hipSPARSE's "
                "`hipsparseSpSM_solve` needs the one given to `hipsparseSpSM_analysis` for this "
                "descriptor as an 11th argument (no analysis call of it in this function)",
            )
