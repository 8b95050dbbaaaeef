"""HZ402 system-fence-coherence

## What it detects
`__threadfence_system()` in device code, host code that polls memory a kernel can write
(a `while` loop whose condition reads a `volatile` variable that comes from a
mapped/pinned/managed allocation or is passed to a kernel launch), and kernels that spin on a
`volatile` pointer parameter (`while (*flag == 0)`: a flag the host sets through mapped
memory): the GPU-host signalling patterns. Polling of plain host or inter-process memory is
not reported.

## Why it breaks on AMD
`__threadfence()` and `__threadfence_block()` behave as on CUDA, but the system-scope fence
only makes writes visible to the host, or to peer GPUs reading it through IPC or peer
mappings, when the memory is **fine-grained** (e.g. from
`hipHostMalloc` with default flags, or `hipExtMallocWithFlags(..., hipDeviceMallocFinegrained)`).
Coarse-grained memory (plain `hipMalloc`, and `hipMallocManaged` by default) is coherent only
at kernel boundaries, so the host (or the peer GPU's kernel) spins forever or reads stale
data.

## Example
```cuda
flag[0] = 1; __threadfence_system();     // HZ402
while (*(volatile int*)flag == 0) {}     // HZ402 (host)
```

## How to fix
Allocate the shared flag/buffer with `hipHostMalloc` (fine-grained, coherent) or
`hipExtMallocWithFlags(..., hipDeviceMallocFinegrained)`, use system-scope atomics
(`atomicAdd_system`, `__hip_atomic_*` with `__HIP_MEMORY_SCOPE_SYSTEM`), and check
`hipDeviceAttributeHostNativeAtomicSupported`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.calls import calls
from ..analysis.functions import Func, function_at
from ..analysis.tokens import match, occurrences, text_of
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule


@hazard_rule(
    "HZ402",
    "system-fence-coherence",
    Severity.WARNING,
    "__threadfence_system / host polling need fine-grained memory on AMD",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, {"__threadfence_system"}):
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            "`__threadfence_system()` makes writes visible to the host or to other GPUs "
            "only in fine-grained memory (hipHostMalloc, hipDeviceMallocFinegrained), not "
            "in hipMalloc'd memory, which is coherent only at kernel boundaries",
            # one fix for the file (fine-grained memory for what the fences publish): nccl's
            # ubx.cu has 16 of them
            extra={"root_cause": "system fences"},
        )
    if "volatile" not in unit.identifiers:
        return
    volatile_names = _volatile_names(unit)
    gpu_visible = _gpu_visible_names(unit, toks)
    for i in occurrences(unit, ("while",)):
        loop = _while_loop(unit, i)
        if loop is None:
            continue
        f, close = loop
        t = toks[i]
        cond = toks[i + 2 : close]
        names = {x.text for x in cond if x.kind is Kind.IDENT}
        if not f.is_host:
            if _device_polls(toks, f, cond, names & volatile_names) and not _advances(
                toks, close, names
            ):
                yield report(
                    t.start,
                    toks[close].end,
                    f"kernel spins on `{text_of(unit, i + 2, close)}`: writes from the host "
                    f"(or another XCD) reach a running kernel only through fine-grained "
                    f"memory (hipHostMalloc) or system-scope atomics on AMD",
                )
        elif (
            any(x.text == "volatile" for x in cond) or names & volatile_names
        ) and names & gpu_visible:
            yield report(
                t.start,
                toks[close].end,
                f"host polls `{text_of(unit, i + 2, close)}`: GPU writes reach the "
                f"host only through fine-grained memory (hipHostMalloc) on AMD",
            )


def _volatile_names(unit: Unit) -> set[str]:
    """Names declared ``volatile`` (``volatile int* flag``, a parameter or a variable)."""
    toks = unit.tokens
    names: set[str] = set()
    for i in occurrences(unit, ("volatile",)):
        j = i + 1
        while j < len(toks) and (toks[j].kind is Kind.IDENT or toks[j].text == "*"):
            j += 1
        if j < len(toks) and toks[j - 1].kind is Kind.IDENT and toks[j].text in "=;,)":
            names.add(toks[j - 1].text)
    return names


def _while_loop(unit: Unit, i: int) -> tuple[Func, int] | None:
    """(the function, the condition's closing parenthesis) of the ``while (...)`` at token
    ``i`` inside a function body."""
    toks = unit.tokens
    if i + 1 >= len(toks) or toks[i + 1].text != "(":
        return None
    f = function_at(unit, i)
    if f is None:
        return None
    close = match(toks, i + 1)
    return None if close is None else (f, close)


def _device_polls(
    toks: Sequence[Token], func: Func, cond: Sequence[Token], volatile_names: set[str]
) -> bool:
    """A device-side `while` that re-reads a volatile pointer parameter (a flag the host or
    another block sets): `while (*flag == 0)`, `while (flag[0] != 1)`."""
    lo, hi = func.params
    params = {toks[k].text for k in range(lo + 1, hi) if toks[k].kind is Kind.IDENT}
    watched = volatile_names & params
    if any(x.text == "volatile" for x in cond):
        return True
    return any(
        x.text in watched
        and ((k > 0 and cond[k - 1].text == "*") or (k + 1 < len(cond) and cond[k + 1].text == "["))
        for k, x in enumerate(cond)
    )


_STEPS = frozenset({"++", "--", "+=", "-=", "="})


def _advances(toks: Sequence[Token], close: int, names: set[str]) -> bool:
    """The body of the `while` whose condition ends at ``close`` changes a name of the
    condition (`while (j < end && (list[j] & 1)) j++;`): it walks memory, each element read
    once, instead of waiting on one location."""
    start = close + 1
    if start >= len(toks):
        return False
    end = match(toks, start) if toks[start].text == "{" else None
    if end is None:
        end = start
        while end < len(toks) and toks[end].text != ";":
            end += 1
    for k in range(start, min(end + 1, len(toks))):
        if toks[k].text in names and (
            (k + 1 < len(toks) and toks[k + 1].text in _STEPS) or toks[k - 1].text in ("++", "--")
        ):
            return True
    return False


_HOST_ALLOCS = frozenset(
    {
        "cudaHostAlloc",
        "cudaMallocHost",
        "hipHostMalloc",
        "hipHostAlloc",
        "hipMallocHost",
        "cudaMallocManaged",
        "hipMallocManaged",
        "cudaHostGetDevicePointer",
        "hipHostGetDevicePointer",
        "cudaHostRegister",
        "hipHostRegister",
        "hipExtMallocWithFlags",
    }
)


def _gpu_visible_names(unit: Unit, toks: Sequence[Token]) -> set[str]:
    """Names that a kernel can write: GPU-mapped allocations, kernel arguments, and the
    variables initialised from them (``volatile int* v = flag;``)."""
    names: set[str] = set()
    for c in calls(unit, _HOST_ALLOCS):
        names |= {t.text for a, b in c.args[:2] for t in toks[a:b] if t.kind is Kind.IDENT}
    names |= _kernel_argument_names(unit, toks)
    assignments = [e - 1 for e in unit.operators_spelled(("=",)) if 0 < e < len(toks) - 1]
    for _ in range(2):
        for i in assignments:
            if toks[i].kind is Kind.IDENT and _assigned_from(toks, i + 2, names):
                names.add(toks[i].text)
    return names


def _kernel_argument_names(unit: Unit, toks: Sequence[Token]) -> set[str]:
    """The names passed to kernels, at ``<<<...>>>(...)`` and ``hipLaunchKernelGGL``."""
    names: set[str] = set()
    for i in unit.operators_spelled((">>>",)):
        if i + 1 < len(toks) and toks[i + 1].text == "(":
            close = match(toks, i + 1)
            if close is not None:
                names |= {x.text for x in toks[i + 2 : close] if x.kind is Kind.IDENT}
    for c in calls(unit, {"hipLaunchKernelGGL"}):
        names |= {t.text for a, b in c.args[4:] for t in toks[a:b] if t.kind is Kind.IDENT}
    return names


def _assigned_from(toks: Sequence[Token], k: int, names: set[str]) -> bool:
    """The value starting at token ``k`` (up to its ``;`` or ``,``) names one of ``names``."""
    while k < len(toks) and toks[k].text not in (";", ","):
        if toks[k].kind is Kind.IDENT and toks[k].text in names:
            return True
        k += 1
    return False
