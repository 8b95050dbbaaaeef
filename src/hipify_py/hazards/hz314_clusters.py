"""HZ314 thread-block-clusters

## What it detects
Thread-block cluster features: `__cluster_dims__`, `cg::this_cluster()`, `cluster_group`,
`cluster.sync()`/`map_shared_rank`, `cudaLaunchAttributeClusterDimension`,
`cudaFuncAttributeRequiredClusterWidth` and the other cluster attributes. Cluster runtime
APIs that the tables mark unsupported (`cudaOccupancyMaxActiveClusters`,
`cudaLaunchKernelExC`) are reported by HZ300.

## Why it breaks on AMD
HIP has no thread-block clusters and no distributed shared memory: AMD GPUs have no cluster
level between the block and the grid, and the HIPIFY tables leave these names unmapped.

## Example
```cuda
__global__ void __cluster_dims__(2, 1, 1) k(float* x) {    // HZ314
  cg::cluster_group c = cg::this_cluster();                 // HZ314
```

## How to fix
Drop the cluster dimension and exchange data through global memory (or restructure so one
block does the work of the cluster); replace `map_shared_rank` accesses accordingly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..analysis.tokens import one_per_line
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..mappings import Entry
from ..rules import Proposal, Report, hazard_rule

_NAMES = frozenset(
    {
        "__cluster_dims__",
        "this_cluster",
        "cluster_group",
        "map_shared_rank",
        "cudaLaunchAttributeClusterDimension",
        "cudaLaunchAttributeClusterSchedulingPolicyPreference",
        "cudaFuncAttributeRequiredClusterWidth",
        "cudaFuncAttributeRequiredClusterHeight",
        "cudaFuncAttributeRequiredClusterDepth",
        "cudaFuncAttributeNonPortableClusterSizeAllowed",
        "cudaFuncAttributeClusterSchedulingPolicyPreference",
        "cudaFuncAttributeClusterDimMustBeSet",
        "cudaClusterSchedulingPolicy",
        "__cluster_barrier_arrive",
        "__cluster_barrier_wait",
    }
)


@hazard_rule(
    "HZ314",
    "thread-block-clusters",
    Severity.ERROR,
    "thread-block clusters / distributed shared memory (not in HIP)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    hits = _NAMES & unit.identifiers
    if not hits:
        return
    get = unit.mappings.get
    yield from one_per_line(_findings(unit, report, hits, get), unit)


def _findings(
    unit: Unit, report: Report, hits: frozenset[str], get: Callable[[str], Entry | None]
) -> Iterator[Finding]:
    toks = unit.tokens
    positions = unit.identifier_positions
    for i in sorted(k for name in hits for k in positions[name]):
        t = toks[i]
        if t.kind is Kind.IDENT:
            if get(t.text) is not None:
                continue  # the mapping tables decide: HZ300 (none), HZ301/HZ302 (experimental)
            yield report(
                t.start,
                t.end,
                f"thread-block cluster feature `{t.text}`: HIP has no clusters or "
                f"distributed shared memory",
                extra={"root_cause": "no clusters"},  # one redesign per file, not one per use
            )
