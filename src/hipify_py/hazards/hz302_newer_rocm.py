"""HZ302 newer-rocm-api

## What it detects
An API whose HIP equivalent appeared in a newer ROCm than the one targeted with
`--target-rocm` (default 7.2), judged from the tables' `hip_added` column. Checked on CUDA
sources (by the CUDA name) and on HIP sources (by the HIP name).

## Why it breaks on AMD
The targeted release does not declare the HIP name, so hipify-py leaves the CUDA name in place
(emitting the HIP name would only trade one undeclared identifier for another) and the file
does not compile for that release. The warp `_sync` intrinsics and `__syncwarp`, for example,
are HIP 7.0+; the names ROCm 7.10 and later add stay CUDA until `--target-rocm` names that
release.

## Example
```cuda
v = __reduce_add_sync(mask, v);   // HZ302 with --target-rocm 6.4: HIP added it in 7.0
```

A CUDA name left unconverted is an error (the file cannot compile for the targeted release);
a HIP name in a HIP source is a warning (it may sit behind a `HIP_VERSION` guard). Not
reported: a name the file defines as a macro, or another file of the tree defines for its HIP
build (mscclpp's `CU_MEM_HANDLE_TYPE_FABRIC`), and a name that both APIs spell alike: the FFTW
interface (`fftwf_plan_many_dft`) is CPU FFTW's as well as cuFFTW's, and a cuFFTW source is
reported at its `<cufftw.h>` (HP001).

## How to fix
Raise `--target-rocm` if you can require that release, or guard the code with
`#if HIP_VERSION_MAJOR >= ...` and provide a fallback.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path

from ..analysis.apis import defined_macros
from ..analysis.declared_types import enumerators
from ..analysis.tokens import occurrences
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..mappings import Entry, MappingIndex, needs_newer_hip
from ..rewrite.warp_sync_legacy import DEFAULT_ON, HANDLED
from ..rules import Proposal, Report, hazard_rule


def _added_for(mappings: MappingIndex, hip_name: str) -> Entry | None:
    """The first entry whose HIP name is ``hip_name`` and that says when HIP added it."""
    if hip_name.startswith(("hip", "__", "HIP")):
        for e in mappings.by_hip(hip_name):
            if e.hip_added:
                return e
    return None


# the FFTW interface cuFFTW and hipFFTW share with CPU FFTW (MatX's host FFTs, round 16)
_FFTW = ("fftw_", "fftwf_")


@hazard_rule(
    "HZ302",
    "newer-rocm-api",
    Severity.WARNING,
    "HIP equivalent needs a newer ROCm than --target-rocm (left unconverted)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    entries = dict(unit.mapped)
    unmapped: set[str] = set(unit.identifiers - entries.keys())
    if not unit.is_hip:
        unmapped = {name for name in unmapped if name.startswith(("hip", "__"))}
    for name in unmapped:
        e = _added_for(unit.mappings, name)
        if e is not None:
            entries[name] = e
    # a name the file defines, or the tree defines for its HIP build (mscclpp's gpu.hpp
    # `#define CU_MEM_HANDLE_TYPE_FABRIC ((hipMemAllocationHandleType)0x8ULL)`, round 26), or
    # declares in a copy of the API the file includes (gdrcopy's `cuda_wrapper.h` enum, for a
    # dlopen'ed libcuda, round 36), is the project's: left as it is, it still compiles
    own = _own_names(unit, ctx)
    candidates: dict[str, Entry] = {}
    for name, e in entries.items():
        if (
            name not in own
            and e.hip
            and not (e.hip == e.cuda and e.cuda.startswith(_FFTW))
            and e.status in ("supported", "deprecated", "experimental")
            and needs_newer_hip(e, ctx.options)
        ):
            candidates[name] = e
    if ctx.options.target_rocm < DEFAULT_ON:  # reported (and rewritten) by HP010/HP011 instead
        candidates = {n: e for n, e in candidates.items() if n not in HANDLED}
    if not candidates:
        return
    toks = unit.tokens
    for i in occurrences(unit, candidates):
        t = toks[i]
        if not (i > 0 and toks[i - 1].text in (".", "->")):
            e = candidates[t.text]
            want = ".".join(str(x) for x in ctx.options.target_rocm)
            left = t.text == e.cuda  # a CUDA name stays: the file cannot compile on ROCm
            yield report(
                t.start,
                t.end,
                f"`{e.hip}` (for `{e.cuda}`) needs HIP {e.hip_added}, newer than the "
                f"targeted ROCm {want}" + ("; left unconverted" if left else ""),
                severity=Severity.ERROR if left else None,
                # one fix for every name of one release (a newer target, or a guard):
                # multi_node_p2p's 19 fabric-handle uses are one finding
                extra={
                    "api": t.text,
                    "family": e.family,
                    "hip": e.hip,
                    "hip_added": e.hip_added,
                    "root_cause": f"needs HIP {e.hip_added}",
                },
            )


def _own_names(unit: Unit, ctx: Context) -> AbstractSet[str]:
    """The names the file defines or declares, those the tree defines for its HIP build, and,
    where the file includes a copy of the API's types (``ProjectIndex.api_copies``, directly
    or through headers), those the tree declares."""
    own = defined_macros(unit) | enumerators(unit) | ctx.project.hip_macros
    copies = ctx.project.api_copies
    graph = ctx.project.include_graph
    if copies and graph.reaches({graph.node(unit.path)}, lambda n: Path(n).name in copies):
        own |= ctx.project.defined
    return own
