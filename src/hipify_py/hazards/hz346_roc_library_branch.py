"""HZ346 roc-library-branch

## What it detects
A file whose own HIP branch (code only the project's HIP build compiles: `#ifdef
FMOE_USE_HIP`, `#ifdef USE_ROCM`) calls a ROCm library directly (`rocblas_hgemm`,
`rocblas_status_success`, `rocsparse_*`, `rocrand_*`, `rocsolver_*`, `rocfft_*`), while the
same file uses the CUDA library that the conversion maps to its hip* wrapper (cuBLAS to
hipBLAS) because `--roc` was not given. Reported once per library and file, at the first
such name.

## Why it breaks on AMD
PyTorch's hipify maps cuBLAS to rocBLAS, and projects built with it write their HIP branches
against rocBLAS: `cublasHandle_t` becomes `rocblas_handle` there, and the branch passes it on
to `rocblas_hgemm`. hipify-py maps cuBLAS to hipBLAS by default, so the same handle becomes a
`hipblasHandle_t`, and the status enum a `hipblasStatus_t`: the branch no longer compiles
("no matching function for call to 'rocblas_hgemm'", "use of undeclared identifier
'rocblas_status_success'"). fastmoe's 7 translation units failed so, with no finding (rw27).

## Example
```cuda
cublasStatus_t gemm(cublasHandle_t h, ...) {
#ifdef FMOE_USE_HIP
  return rocblas_hgemm(h, ...);      // HZ346: convert with --roc
#else
  return cublasHgemm(h, ...);
#endif
}
```

## How to fix
Convert with `--roc`, so cuBLAS (and the other libraries) map to the rocBLAS names the
project's HIP branches use; or rewrite those branches for hipBLAS.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.conditions import hip_written_in
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

# a ROCm library's name prefix -> the mapping family of the CUDA library hipify maps onto it
_PREFIXES = {
    "rocblas_": "blas",
    "rocsparse_": "sparse",
    "rocrand_": "rand",
    "rocsolver_": "solver",
    "rocfft_": "fft",
}


@hazard_rule(
    "HZ346",
    "roc-library-branch",
    Severity.ERROR,
    "the project's HIP branch calls a roc* library that the conversion maps to its hip* wrapper",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if ctx.options.roc:
        return
    named = {
        prefix: family
        for prefix, family in _PREFIXES.items()
        if any(name.startswith(prefix) for name in unit.identifiers)
    }
    if not named:
        return
    mapped = {entry.family for entry in unit.mapped.values()}
    wanted = {p: f for p, f in named.items() if f in mapped}
    if not wanted:
        return
    written = hip_written_in(unit)
    for t in unit.tokens:
        prefix = next((p for p in wanted if t.text.startswith(p)), None)
        if prefix is None or t.kind is not Kind.IDENT or t.start not in written:
            continue
        family = wanted.pop(prefix)
        yield report(
            t.start,
            t.end,
            f"`{t.text}`: this HIP branch is written for the ROCm library itself, while the "
            f"file's CUDA {family} handles, statuses and calls convert to the hip{family} "
            f"wrapper's, which the branch cannot take: convert with --roc",
        )
        if not wanted:
            return
