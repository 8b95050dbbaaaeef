"""HZ501 cuda-arch-gate

## What it detects
`__CUDA_ARCH__` (and `__CUDA_ARCH_LIST__`, `__CUDA_ARCH_FEAT_*`) in preprocessor conditions or
code: capability gates such as `#if __CUDA_ARCH__ >= 800` and device-pass guards such as
`#ifdef __CUDA_ARCH__` / `#if defined(__CUDA_ARCH__)`.

## Why it breaks on AMD
hip-clang does not define `__CUDA_ARCH__` (HIPIFY maps `__CUDACC__` to `__HIPCC__` but has no
equivalent for `__CUDA_ARCH__`). Every `#if __CUDA_ARCH__ >= N` branch is therefore dropped
for AMD, so the fast path (or the only device implementation) silently disappears, and
`#ifdef __CUDA_ARCH__` device/host splits take the host branch inside kernels. Compute
capability numbers have no meaning for gfx targets.

## Example
```cuda
#if __CUDA_ARCH__ >= 800     // HZ501
  use_async_copy();
#endif
```

## How to fix
For "am I compiling device code" use `__HIP_DEVICE_COMPILE__` (or
`defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)` in code shared by both). For
capability checks use the feature macros (`__HIP_ARCH_HAS_*`), the per-target macros
(`__gfx942__`, `__gfx90a__`) or a run-time check of `hipDeviceProp_t::gcnArchName`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import occurrences, one_per_line
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ501",
    "cuda-arch-gate",
    Severity.WARNING,
    "__CUDA_ARCH__ gate: undefined on HIP, the branch is dropped",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    return one_per_line(_findings(unit, report), unit)


def _findings(unit: Unit, report: Report) -> Iterator[Finding]:
    names = {n for n in unit.identifiers if n.startswith("__CUDA_ARCH")}
    if not names:
        return
    toks = unit.tokens
    for i in occurrences(unit, names):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        prev = toks[i - 1].text if i > 0 else ""
        if t.in_directive and prev == "define":
            continue
        if (
            nxt is not None
            and nxt.text in ("<", ">", "<=", ">=", "==", "!=")
            and nxt.in_directive == t.in_directive
        ):
            k = i + 2
            value = toks[k].text if k < len(toks) else "?"
            msg = (
                f"capability gate `{t.text} {nxt.text} {value}`: {t.text} is undefined "
                f"on HIP, so this branch is never compiled for AMD (use __gfx*__ or "
                f"__HIP_ARCH_HAS_* feature macros)"
            )
        elif prev in ("ifdef", "ifndef", "(", "defined") or t.in_directive:
            msg = (
                f"`{t.text}` is undefined on HIP: as a device-pass guard use "
                f"__HIP_DEVICE_COMPILE__ (device code would take the host branch)"
            )
        else:
            msg = f"`{t.text}` is undefined on HIP (no AMD equivalent for compute capability)"
        yield report(t.start, t.end, msg)
