"""HZ503 cuda-version-gate

## What it detects
Preprocessor or code comparisons of the CUDA toolkit version: `CUDA_VERSION`,
`CUDART_VERSION`, `__CUDACC_VER_MAJOR__`, `__CUDACC_VER_MINOR__`, `__NVCC__` version checks.

## Why it breaks on AMD
These macros are not defined by hip-clang, so `#if CUDART_VERSION >= 11000` branches vanish
for AMD. Where a converter maps them (PyTorch's hipify maps `CUDA_VERSION` to
`TORCH_HIP_VERSION`), the numbers are HIP versions (e.g. 701 for 7.1) with a different meaning
and scale, so the comparison is still wrong.

## Example
```cuda
#if CUDART_VERSION >= 11000     // HZ503
  cudaMemPoolCreate(...);
#endif
```

## How to fix
Compare `HIP_VERSION_MAJOR`/`HIP_VERSION_MINOR` (or `TORCH_HIP_VERSION`) in an explicit
`#if defined(__HIP_PLATFORM_AMD__)` branch, or test for the feature itself.
"""

from __future__ import annotations

from ..findings import Severity
from ..frontend.lexer import Kind
from ..rules import hazard_pass, register_rule
from ._util import finding

register_rule(
    "HZ503",
    "cuda-version-gate",
    Severity.INFO,
    "CUDA toolkit version gate: undefined (or a different scale) on HIP",
    __doc__,
)

_NAMES = frozenset(
    {
        "CUDA_VERSION",
        "CUDART_VERSION",
        "__CUDACC_VER_MAJOR__",
        "__CUDACC_VER_MINOR__",
        "__CUDACC_VER_BUILD__",
    }
)


@hazard_pass("HZ503")
def check(unit, ctx):
    hits = _NAMES & unit.identifiers
    if not hits:
        return
    toks = unit.tokens
    for i, t in enumerate(toks[:-2]):
        if (
            t.kind is Kind.IDENT
            and t.text in hits
            and toks[i + 1].text in ("<", ">", "<=", ">=", "==", "!=")
        ):
            yield finding(
                unit,
                "HZ503",
                t.start,
                toks[i + 2].end,
                f"CUDA version gate `{t.text} {toks[i + 1].text} {toks[i + 2].text}`: "
                f"undefined on HIP (or a HIP version on a different scale)",
            )
