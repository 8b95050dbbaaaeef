"""Where code of 32-lane groups meets the hardware wavefront: the evidence HZ107 and HZ102 need
before they call a warp-size constant or a 32-lane loop wrong (``warp_model`` decides each
function's model; this module follows a constant's uses and a helper's callers to it)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .calls import SHUFFLES, calls
from .functions import Func, function_at, functions
from .launches import launched_name
from .own_constants import declares_local
from .tokens import CASTS, cached, split, template_close
from .warp_constants import definitions, uses
from .warp_model import (
    _VOTES,
    BLOCK32,
    GROUP32,
    HARDWARE,
    LANE32,
    _callers,
    _calls_hardware_helper,
    constant_is_the_fix,
    crosses_groups,
    meets_hardware_warp,
    model_of,
)


def _indexes_a_vote(unit: Unit, k: int, func: Func) -> bool:
    """The vote at token ``k`` (or the variable it is stored in) meets a shift in one
    statement: its bits are picked by a lane (`__popc(bal & ~(-1 << lane))`,
    `(bal >> lane) & 1`), which a 32-lane id picks from the wrong half on lanes 32-63."""
    toks = unit.tokens
    at = [k]
    if toks[k - 1].text == "=" and toks[k - 2].kind is Kind.IDENT:
        name = toks[k - 2].text
        at += [j for j in range(k + 1, func.close) if toks[j].text == name]
    for j in at:
        lo = j
        while lo > func.open and toks[lo - 1].text not in (";", "{", "}"):
            lo -= 1
        hi = j
        while hi < func.close and toks[hi].text not in (";", "{", "}"):
            hi += 1
        if any(toks[m].text in ("<<", ">>") for m in range(lo, hi)):
            return True
    return False


# votes whose answer covers every lane of the wavefront, and warp-wide matrix operations: in
# code of 32-lane groups, a 64-lane wavefront answers for both groups at once
_WAVE_WIDE_MATRIX = frozenset({"wmma", "mma_sync"})
_WAVE_WIDE = frozenset({"__any_sync", "__all_sync", "__any", "__all", "__uni_sync"}) | (
    _WAVE_WIDE_MATRIX
)


def _two_stage_vote(unit: Unit, func: Func, k: int) -> bool:
    """The `__any_sync`/`__all_sync` at token ``k`` is a stage of a block-wide vote: the
    function votes into the same variable with the same intrinsic again after a
    `__syncthreads()` (cuhnsw's `IsNeighbor`: each group's leader stores its vote, the first
    group votes over the stores; round 33).  OR and AND give the same answer over two groups at
    once as over each in turn, so a 64-lane wavefront changes nothing."""
    toks = unit.tokens
    if toks[k].text in _WAVE_WIDE_MATRIX or toks[k - 1].text != "=" or k < 2:
        return False
    target, name = toks[k - 2].text, toks[k].text
    stages = [
        j
        for j in range(func.open + 1, func.close)
        if toks[j].text == name and toks[j - 1].text == "=" and toks[j - 2].text == target
    ]
    return len(stages) >= 2 and any(
        toks[j].text == "__syncthreads" for j in range(stages[0], stages[-1])
    )


# CUB's warp collectives: their logical warp defaults to the hardware warp (64 lanes in hipCUB)
_WARP_PRIMITIVES = frozenset({"WarpReduce", "WarpScan"})


def _whole_warp_primitive(toks: Sequence[Token], k: int) -> bool:
    """`cub::WarpReduce<T>` at token ``k``: one template argument, so its logical warp is the
    hardware one; in blocks of 32-thread rows a 64-lane wavefront sums two rows (dgl's
    `_SegmentMaskColKernel`, round 12).  `WarpReduce<T, 32>` stays in its group."""
    if toks[k].text not in _WARP_PRIMITIVES or toks[k + 1].text != "<":
        return False
    close = template_close(toks, k + 1)
    return close is not None and len(split(toks, k + 2, close)) == 1


def works_in_wavefronts(unit: Unit, func: Func) -> bool:
    """``func`` does something whose lanes are those of the hardware wavefront: it works in
    hardware warps (``HARDWARE``, or calls a helper that does), picks a ballot's bits by a
    lane (``_indexes_a_vote``; a ballot only counted is HZ105's), votes across the whole wavefront
    (`__any_sync`), multiplies warp-wide matrix fragments (wmma), uses a CUB warp collective of
    the hardware warp's width (``_whole_warp_primitive``), or has a shuffle without a
    sub-warp width that crosses a 32-lane group (``crosses_groups``) outside consistent
    group code (there HZ103 reports the shuffle, where its width goes).  Code of consistent
    32-lane groups that does none of these computes the same on a 64-lane wavefront."""
    toks = unit.tokens
    if model_of(unit, func) == BLOCK32:  # no lane past 31; but wmma needs a whole wavefront
        return any(toks[k].text in _WAVE_WIDE_MATRIX for k in range(func.open + 1, func.close))
    if model_of(unit, func) == HARDWARE or _calls_hardware_helper(unit, func):
        return True
    if any(_indexes_a_vote(unit, c.index, func) for c in calls(unit, _VOTES)):
        return True
    if any(
        toks[k].text in _WAVE_WIDE and not _two_stage_vote(unit, func, k)
        for k in range(func.open + 1, func.close)
    ):
        return True
    if any(_whole_warp_primitive(toks, k) for k in range(func.open + 1, func.close)):
        return True
    # in code of consistent groups, or of 32-lane lane ids that never meet the hardware warp,
    # a shuffle that crosses is HZ103's, fixed at the shuffle
    model = model_of(unit, func)
    claimed = model == GROUP32 or (model == LANE32 and meets_hardware_warp(unit, func) is None)
    if claimed and not constant_is_the_fix(unit, func):
        return False
    return any(
        func.open < c.index < func.close and crosses_groups(unit, c) for c in calls(unit, SHUFFLES)
    )


def reaches_wavefronts(unit: Unit, uses: list[int]) -> bool:
    """Some function that uses a warp-size constant (token indexes ``uses``), or a device
    function of the file that calls it, works in wavefronts (``works_in_wavefronts``); or the
    host uses it (launch geometry, per-warp counts) in a file whose kernels do."""
    if any(_passed_away(unit, k) for k in uses):
        return True
    device = [f for f in functions(unit) if f.is_device and not empty_on_hip(unit, f)]
    users = {f.open: f for k in uses if (f := _user(unit, k)) is not None}
    if any(not f.is_device for f in users.values()):
        # the host sizes what the kernels run, but for those with a constant of the name of
        # their own (OpenCV's wavelet matrix kernels, round 22)
        names = {unit.tokens[k].text for k in uses}
        users.update(
            (f.open, f)
            for f in device
            if not any(declares_local(unit.tokens, f, name) for name in names)
        )
    for _ in range(2):  # the callers of a helper that uses it, and theirs
        for f in list(users.values()):
            if not _block_collective(unit, f):
                users.update((g.open, g) for g in _callers(unit, f, device))
    return any(
        f.is_device and not empty_on_hip(unit, f) and works_in_wavefronts(unit, f)
        for f in users.values()
    )


def _block_collective(unit: Unit, f: Func) -> bool:
    """``f`` is a block-wide collective of consistent 32-lane groups: each group reduces, its
    leader stores to a slot, the block syncs, and the groups read the slots back (llm.c's
    `block_reduce` with its own `WARP_SIZE = 32`, copied into QuickRunCUDA, round 38: a
    false HZ107 for its caller's `__any_sync`).  What it returns comes from the whole block,
    so how its callers use their hardware wavefronts says nothing about its constant."""
    syncs = unit.identifier_positions.get("__syncthreads", ())
    at = bisect.bisect_right(syncs, f.open)
    return at < len(syncs) and syncs[at] < f.close and model_of(unit, f) == GROUP32


def empty_on_hip(unit: Unit, func: Func) -> bool:
    """Every token of ``func``'s body lies in a branch HIP skips (a kernel whose body is all
    `#if __CUDA_ARCH__ >= 800`: the CUDA samples' tensor-core GEMMs, round 21): on HIP it
    does nothing, so its lanes are no evidence of the wavefront.  Decided once per function
    (asked of the file's kernels and of a constant's users)."""
    found: dict[int, bool] = cached(unit, "_hz_empty_on_hip", dict)
    if func.open not in found:
        inactive, toks = inactive_in(unit), unit.tokens
        found[func.open] = bool(inactive.ranges) and all(
            toks[k].in_directive or toks[k].start in inactive
            for k in range(func.open + 1, func.close)
        )
    return found[func.open]


def wavefront_constants(unit: Unit, names: AbstractSet[str]) -> list[str]:
    """Those of the warp-size constants ``names`` that this file uses where its code meets the
    hardware wavefront (``reaches_wavefronts``) without defining them itself: the evidence that
    decides a header's constant the header never uses (llm.c's `cuda_common.h` `#define
    WARP_SIZE 32U`, which its includers use only in 32-lane groups, round 18).  `warpSize`
    undefined here is CUDA's own (a project's namespace constant of that name is
    ``ProjectIndex.warp_size_namespaces``'s): the hardware width, no constant of 32."""
    toks = unit.tokens
    own = {name for name, _, _ in definitions(unit)} | {
        toks[d + 2].text
        for d in unit.directives
        if d + 2 < len(toks) and toks[d + 1].text == "define"
    }
    out = []
    for name in sorted(names - own - {"warpSize"}):
        _, reached = uses(unit, name, -1)
        if reached and reaches_wavefronts(unit, reached):
            out.append(name)
    return out


def called_in_wavefronts(unit: Unit, func: Func) -> bool:
    """``func``, or a device function of the file that calls it (two levels up), works in
    wavefronts (``works_in_wavefronts``)."""
    device = [f for f in functions(unit) if f.is_device]
    users = {func.open: func}
    for _ in range(2):
        for f in list(users.values()):
            users.update((g.open, g) for g in _callers(unit, f, device))
    return any(works_in_wavefronts(unit, f) for f in users.values())


def _user(unit: Unit, k: int) -> Func | None:
    """The function whose body or parameter list (a default `int width = WARP_SIZE`) holds
    token ``k``."""
    return function_at(unit, k) or next(
        (f for f in functions(unit) if f.params[0] < k < f.params[1]), None
    )


def _passed_away(unit: Unit, k: int) -> bool:
    """The constant at token ``k`` goes where this file cannot follow it: an argument of a
    launch of a kernel the file does not define (`k<<<g, b>>>(out, WARP_SIZE)`; the kernel
    takes it as its warp size), or a template argument of a type the file does not define
    (`WarpExchange<int, 4, kWarp>`).  A kernel of this file is followed as the file's other
    device functions are (lmdeploy's `reduce<cp, CTA_K, ...><<<...>>>(..., stride * CTA_K)`
    and a shadowing `template<int CTA_K>`, round 14: 2 false HZ107)."""
    toks = unit.tokens
    depth = 0
    for j in range(k - 1, max(k - 200, 0), -1):
        text = toks[j].text
        if text in (";", "{", "}"):
            return False
        if text in (")", ">"):
            depth += 1
        elif text in ("(", "<") and depth:
            depth -= 1
        elif text == "(":
            return toks[j - 1].text == ">>>" and not _defined_here(unit, _launched(unit, j - 1))
        elif text == "<":
            name = toks[j - 1].text
            close = template_close(toks, j)
            return (
                toks[j - 1].kind is Kind.IDENT
                and name != "template"  # `template<int WARP_SIZE>` declares a parameter
                and name not in CASTS
                and close is not None
                and not _defined_here(unit, name)
                and not _group_reduction(toks, close, name)
                and name not in _GROUP_TILES
                and name not in _WARP_PRIMITIVES  # `WarpReduce<T, 32>`: a logical warp of 32
            )
    return False


def _launched(unit: Unit, close: int) -> str:
    """The name of the kernel of the launch whose configuration ends at the `>>>` token
    ``close`` (`reduce<cp, 32><<<g, b>>>`); "" when none does."""
    ends = unit.launch_config_ends
    opener = next((o for o, end in ends.items() if end == close), None)
    return (launched_name(unit.tokens, opener) or "") if opener is not None else ""


# cooperative-groups tiles of that many threads (`cg::thread_block_tile<kWarpSize>`,
# `tiled_partition<WARP_SIZE>(block)`): a tile's shuffles, votes and syncs are tile-relative on
# every GPU, and HIP's tiles of 32 split a 64-lane wavefront in two (flashinfer's MoE top-k,
# round 12), so the constant stays in its groups
_GROUP_TILES = frozenset({"thread_block_tile", "tiled_partition"})

# words of a reduction or scan helper's name: `warp_reduce_max<32>(v)`, `warpAllReduceSum<32>`
_REDUCING = re.compile(r"(?i)reduce|sum|max|min|scan")


def _group_reduction(toks: Sequence[Token], close: int, name: str) -> bool:
    """`name<...>(` (its template arguments end at token ``close``) calls a reduction or scan
    helper of another file with the constant as its width (TransformerEngine's
    `warp_reduce_max<kThreadsPerWarp>(v)`, round 11): a reduction over groups of that many
    lanes leaves each group's result in its own group on a 64-lane wavefront, as the
    caller's `tid / 32` slots expect."""
    return toks[close + 1].text == "(" and _REDUCING.search(name) is not None


def _defined_here(unit: Unit, name: str) -> bool:
    toks = unit.tokens
    return any(
        toks[k - 1].text in ("struct", "class")
        or (toks[k - 1].text == "using" and toks[k + 1].text == "=")
        or toks[k + 1].text == "{"
        for k in unit.identifier_positions.get(name, ())
        if 0 < k < len(toks) - 1
    ) or any(f.name == name for f in functions(unit))
