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

from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet

from ..analysis.apis import defined_macros
from ..context import Context
from ..findings import Severity
from ..frontend.conditions import hip_written_in, inactive_in, merged_ranges
from ..frontend.directives import CONDITIONAL_NEXT, CONDITIONAL_OPEN, lines
from ..frontend.hip_build import HIP_BUILD, hip_switch
from ..frontend.lexer import Kind, Token
from ..frontend.spans import Spans
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


def _other_branches(unit: Unit) -> Spans:
    """The code inside branches whose `#if` chains test more than the platform and the
    project's HIP switch: the HIP build may leave them out whatever the platform.
    DeepSpeed's `#if defined(__HIP_PLATFORM_AMD__) && (TORCH_VERSION_MAJOR < 2 ...)` rocBLAS
    branches serve only a PyTorch older than any ROCm 7 build has."""
    ranges: list[tuple[int, int]] = []
    stack: list[tuple[bool, int]] = []  # (the chain so far tests the platform only, body start)
    found = lines(unit.tokens, unit.directives)
    # include guards are open: `#ifndef NAME` right before `#define NAME`, also below includes
    guard = {
        line.body[0].text
        for line, after in zip(found, found[1:], strict=False)
        if line.word == "ifndef"
        and after.word == "define"
        and line.body
        and after.body
        and line.body[0].text == after.body[0].text
    }
    for line in found:
        word = line.word
        if word in CONDITIONAL_OPEN:
            stack.append((_platform_test(line.body, guard), line.end))
        elif word in CONDITIONAL_NEXT and stack:
            plain, start = stack[-1]
            if not plain:
                ranges.append((start, line.start))
            stack[-1] = (plain and _platform_test(line.body, guard), line.end)
        elif word == "endif" and stack:
            plain, start = stack.pop()
            if not plain:
                ranges.append((start, line.start))
    return Spans(merged_ranges(ranges))


def _platform_test(body: Sequence[Token], guard: AbstractSet[str]) -> bool:
    """A condition of nothing but the HIP platform macros, a project's HIP switch and the
    file's include ``guard``."""
    return all(
        t.kind is not Kind.IDENT
        or t.text == "defined"
        or t.text in HIP_BUILD
        or t.text in guard
        or hip_switch(t.text)
        for t in body
    )


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
    # the CUDA library's names in code the HIP build compiles, where they become hip* ones
    # (also in the project's HIP branch: fastmoe's `_cudaGetErrorEnum(cublasStatus_t)` there)
    inactive, written = inactive_in(unit), hip_written_in(unit)
    mapped = {
        entry.family
        for name, entry in unit.mapped.items()
        if any(
            unit.tokens[k].start not in inactive for k in unit.identifier_positions.get(name, ())
        )
    }
    wanted = {p: f for p, f in named.items() if f in mapped}
    if not wanted:
        return
    own = defined_macros(unit)  # AutoGPTQ's `#define rocblas_handle hipblasHandle_t`
    others = _other_branches(unit)
    for t in unit.tokens:
        prefix = next((p for p in wanted if t.text.startswith(p)), None)
        if (
            prefix is None
            or t.kind is not Kind.IDENT
            or t.text in own
            or t.start not in written
            or t.start in others
        ):
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
