"""HZ301 experimental-api

## What it detects
A CUDA API whose HIP equivalent is marked **experimental** in the mapping tables, while the
conversion runs without `--experimental`.  Not when the HIP name is newer than the targeted
ROCm: `--experimental` would not make that compile, and HZ302 reports it.

## Why it breaks on AMD
hipify-py converts experimental APIs only when asked: without `--experimental` the CUDA name
is left in place and the file will not build for ROCm. With it, the HIP API may change or
behave differently between ROCm releases.

## Example
```cuda
cudaGraphExecGetFlags(exec, &flags);   // HZ301: hipGraphExecGetFlags is experimental
```

## How to fix
Re-run with `--experimental` after checking the HIP API's status for your ROCm release, or
avoid the API.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.apis import api_uses
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..mappings import needs_newer_hip
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ301",
    "experimental-api",
    Severity.INFO,
    "HIP equivalent is experimental: not converted without --experimental",
    cuda_premise=True,
    opt_in=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if ctx.options.experimental:
        return
    for i, e in api_uses(unit):
        t = unit.tokens[i]
        if e.status == "experimental" and not needs_newer_hip(e, ctx.options):
            since = (
                f" (since HIP {e.hip_experimental})" if getattr(e, "hip_experimental", None) else ""
            )
            yield report(
                t.start,
                t.end,
                f"`{t.text}` ({e.family}) maps to experimental `{e.hip}`{since}: "
                f"not converted without --experimental",
                extra={"api": t.text, "family": e.family, "hip": e.hip},
            )
