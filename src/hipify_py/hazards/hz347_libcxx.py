"""HZ347 libcxx

## What it detects
A name of libcu++, NVIDIA's C++ library for CUDA, used without its header in the file:
`cuda::std::atomic<int>`, `cuda::atomic_ref`, `cuda::pipeline`, `cuda::memcpy_async`, reached
through Thrust's or CUB's includes. Reported once per file, at the first use, the other lines
listed. The standard facilities libcu++ copies (`cuda::std::iterator_traits`,
`cuda::std::numeric_limits`) are converted to `std::` instead, and a file that includes a
`<cuda/...>` header gets HP001 at the include.

## Why it breaks on AMD
ROCm 7.2.4 ships no libcu++: the namespace `cuda` does not exist in a HIP build ("use of
undeclared identifier 'cuda'"). qmcpack's `strided_range` failed so, with no finding (compile
round 31).

## Example
```cuda
cuda::std::atomic<int> counter;   // HZ347
```

## How to fix
Use the standard library where HIP-Clang compiles it for the device (type traits,
`constexpr` functions), HIP's atomics (`atomicAdd`, `__hip_atomic_*`) for `cuda::atomic`, and
plain loads and stores with `__syncthreads()` for `cuda::pipeline`/`memcpy_async`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.directives import includes
from ..frontend.unit import Unit
from ..rewrite.libcxx_std import STD_TWINS, libcxx_std_at, within_project
from ..rules import Proposal, Report, hazard_rule

# libcu++'s own names outside `cuda::std` (CCCL 3's `cuda/` headers)
_CUDA_NAMES = frozenset(
    {"atomic", "atomic_ref", "atomic_flag", "barrier", "pipeline", "make_pipeline"}
    | {"pipeline_shared_state", "memcpy_async", "aligned_size_t", "annotated_ptr"}
    | {"access_property", "apply_access_property", "discard_memory", "binary_semaphore"}
    | {"counting_semaphore", "latch", "stream_ref", "thread_scope", "thread_scope_system"}
    | {"thread_scope_device", "thread_scope_block", "thread_scope_thread", "ptx", "mr"}
)


@hazard_rule(
    "HZ347",
    "libcxx",
    Severity.ERROR,
    "libcu++ name (`cuda::std::`, `cuda::atomic`...) with no counterpart in ROCm 7.2.4",
    cuda_premise=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if "cuda" not in unit.identifiers or _includes_libcxx(unit) or _opens_cuda(unit):
        return
    toks = unit.tokens
    for i in unit.identifier_positions.get("cuda", ()):
        if toks[i].in_directive:
            continue
        name = libcxx_std_at(unit, i)
        if name is not None and name not in STD_TWINS:
            what = f"cuda::std::{name}"
        elif name is None and _own_name(unit, i):
            what = f"cuda::{toks[i + 2].text}"
        else:
            continue
        yield report(
            toks[i].start,
            toks[i].end,
            f"`{what}` is libcu++'s, which ROCm 7.2.4 does not ship: the namespace `cuda` does "
            "not exist in a HIP build",
            extra={"root_cause": "libcu++"},  # one finding per file
        )


def _own_name(unit: Unit, i: int) -> bool:
    """`cuda::NAME` at token ``i`` names one of libcu++'s own (`cuda::atomic<int>`), not
    something of a namespace `cuda` of the project's: oneflow's `cuda::atomic::Add` (round 32)
    names a namespace in one, `mylib::cuda::ptx` is qualified by the project's."""
    toks = unit.tokens
    if i + 3 >= len(toks) or toks[i + 1].text != "::" or toks[i + 2].text not in _CUDA_NAMES:
        return False
    if toks[i + 3].text == "::":
        return False
    return not within_project(toks, i)


def _opens_cuda(unit: Unit) -> bool:
    """The file opens a namespace `cuda` of its own."""
    toks = unit.tokens
    return any(i > 0 and toks[i - 1].text == "namespace" for i in unit.identifier_positions["cuda"])


def _includes_libcxx(unit: Unit) -> bool:
    """The file includes a `<cuda/...>` header: HP001 reports it there."""
    return any(
        inc.path.startswith("cuda/") for inc in includes(unit.text, unit.tokens, unit.directives)
    )
