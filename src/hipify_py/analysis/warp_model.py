"""The warp model of each function: does it work in hardware warps or in 32-lane groups?

The wave-size rules (HZ101, HZ102, HZ103, HZ107) used to judge every `& 31` or offset-16 loop on
its own.  Much real CUDA is written for *consistent 32-lane groups* instead: `lane = tid & 31`
with a matching `warp = tid >> 5`, shuffles of `width` 32, lane 0 of each group storing the
group's sum.  On a 64-lane wavefront such code still computes the same result (each wavefront
holds two groups), so reporting it is wrong and its advice ("use warpSize") would break it.

A function is in the ``GROUP32`` model when it derives both a lane and a group index from the
thread index with 32 (`& 31` or `% 32`, and `/ 32` or `>> 5`, with literals or constants worth
that) or gives its shuffles a width of at most 32, and
says nothing about the hardware warp (`warpSize`, `__lane_id()`, a width of 64, a match or
lane mask whose bits are hardware lanes).  A helper
without evidence of its own (a `warp_reduce(v)` called by kernels) takes the model of its
callers in the file when they all agree.  In a ``GROUP32`` function only what crosses the group
boundary on a 64-lane wavefront is a hazard: a shuffle without width that reads an absolute or
group-relative source lane (`__shfl_sync(m, v, 0)`, `__shfl_up_sync(m, v, 1)`).  A
`__shfl_down`/`__shfl_xor` by less than 32 stays inside the group for the lanes that use it
(lane 0 of a reduction, every lane of a butterfly), so it agrees with the model.

A kernel's launch geometry is evidence too (``block_geometry``): blocks of at most 32 threads
are ``BLOCK32``, with no lanes 32-63 and so no wave-size hazard; rows of 32 threads at every
launch are ``GROUP32`` unless the kernel speaks of the hardware warp.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .bit_intrinsics import NARROW_MASK_TYPE
from .block_geometry import BLOCK32, GROUP32, block_model
from .calls import BALLOTS, MASKED_SYNC, SHUFFLES, Call, calls
from .functions import Func, function_at, functions
from .group_scan import GROUPING, guarded_scan
from .low_lanes import lanes_past_31_return
from .namespaces import project_warp_size
from .own_constants import shadowed
from .shuffle_width import hardware_name, passed_by_every_call, shuffle_width
from .taint import thread_taint
from .tokens import cached, operand_before
from .values import constant_at, int_value
from .warp_constants import reported_names
from .wave_halves import halves_agree

HARDWARE = "hardware"
LANE32 = "lane32"  # a 32-lane lane id without a matching group id: reductions stay in the group


def model_of(unit: Unit, func: Func | None) -> str | None:
    """``GROUP32``, ``HARDWARE`` or None (no evidence) for the function ``func``."""
    if func is None:
        return None
    return _models(unit).get(func.open)


def model_at(unit: Unit, index: int) -> str | None:
    """The model of the function around token ``index``."""
    return model_of(unit, function_at(unit, index))


def crosses_groups(unit: Unit, call: Call) -> bool:
    """A shuffle without a sub-warp width that reads across a 32-lane group boundary on a
    64-lane wavefront: `__shfl*` with an absolute or group-relative source lane, `__shfl_up*`
    (lane 32 reads lane 31).  A source lane computed from `threadIdx` itself is a hardware
    lane and does not cross."""
    width = shuffle_width(unit, call)
    if width is not None and width <= 32:
        return False
    if call.name.startswith("__shfl_up"):
        return not guarded_scan(unit, call)
    if call.name not in ("__shfl", "__shfl_sync") or halves_agree(unit, call):
        return False
    src = SHUFFLES[call.name] - 1
    if len(call.args) <= src:
        return False
    a, b = call.args[src]
    return not any(t.text == "threadIdx" for t in unit.tokens[a:b]) and not _bit_position(
        unit, a, b
    )


# find-first-set and friends: the position of a bit of a lane mask is a hardware lane
_BIT_POSITIONS = frozenset({"__ffs", "__ffsll", "__fns", "__clz", "__clzll", "__builtin_ctzll"})


def _bit_position(unit: Unit, a: int, b: int) -> bool:
    """The source lane ``tokens[a:b]`` is a bit position of a mask (`__ffs(ballot) - 1`, or a
    name the function sets to one: `const int who = __ffs(bal) - 1;`): a hardware lane, which
    a shuffle without width reads correctly on any wave size."""
    toks = unit.tokens
    if any(t.text in _BIT_POSITIONS for t in toks[a:b]):
        return True
    func = function_at(unit, a)
    if func is None:
        return False
    names = {t.text for t in toks[a:b] if t.kind is Kind.IDENT}
    for k in range(func.open + 1, a):
        if toks[k].text in names and toks[k + 1].text == "=":
            end = k + 2
            while end < a and toks[end].text not in (";", ","):
                end += 1
            if any(t.text in _BIT_POSITIONS for t in toks[k + 2 : end]):
                return True
    return False


# votes are often only counted (`__popc(__ballot(p))`): HZ105 judges those on their own
_VOTES = frozenset({"__ballot", "__ballot_sync", "__ballot64", "__activemask"})


def _lane_bits(toks: Sequence[Token], k: int) -> bool:
    """A match or lane mask whose bits name hardware lanes (a leader lane, lanes below me),
    not one passed as the mask argument of a `_sync` intrinsic."""
    if toks[k].text not in BALLOTS or toks[k].text in _VOTES:
        return False
    return not (k >= 2 and toks[k - 1].text == "(" and toks[k - 2].text in MASKED_SYNC)


def file_has_group32(unit: Unit) -> bool:
    """Some function of the file works in consistent 32-lane groups."""
    return GROUP32 in _models(unit).values()


def _models(unit: Unit) -> dict[int, str]:
    return cached(unit, "_hz_warp_models", lambda: _decide(unit))


def _decide(unit: Unit) -> dict[int, str]:
    funcs = [f for f in functions(unit) if f.is_device]
    # a function that sends lanes past 31 away runs as on a block of 32 threads, also where
    # its __device__ hides behind a library's macro (cuvs's RAFT_DEVICE_INLINE_FUNCTION)
    out: dict[int, str] = {
        f.open: BLOCK32 for f in functions(unit) if lanes_past_31_return(unit, f)
    }
    for f in funcs:
        if f.open in out:
            continue
        m = _own_model(unit, f)
        geometry = block_model(unit, f)
        if geometry == BLOCK32 or (geometry == GROUP32 and m != HARDWARE):
            m = geometry
        if m is not None:
            out[f.open] = m
    _inherit(
        out, {f.open: [g for g in _callers(unit, f, funcs) if g.open != f.open] for f in funcs}
    )
    return out


def _inherit(out: dict[int, str], callers_of: dict[int, list[Func]]) -> None:
    """Helpers without evidence, or with only a lane id, take their callers' model (``out``,
    by function), until that settles (a helper of a helper of a helper: GenomeWorks'
    `warp_add_sync`, below kernels of 32-thread blocks, round 31), in at most eight rounds."""
    for _ in range(8):
        before = dict(out)
        for f, callers_list in callers_of.items():
            if out.get(f) not in (None, LANE32):
                continue
            callers = {out.get(g.open) for g in callers_list}
            if len(callers) == 1 and None not in callers and LANE32 not in callers:
                out[f] = callers.pop()  # type: ignore[assignment]
            elif callers == {GROUP32, LANE32} and f not in out:
                # every caller passes a 32-lane lane id, some with a group id: its lanes are
                # 32-lane ids (nunchaku's `broadcast_wscale(..., laneId)`, round 21)
                out[f] = LANE32
        if out == before:
            return


def _callers(unit: Unit, f: Func, funcs: list[Func]) -> list[Func]:
    toks = unit.tokens
    found = []
    for k in unit.identifier_positions.get(f.name, ()):
        if k == f.name_index or k + 1 >= len(toks) or toks[k + 1].text not in ("(", "<"):
            continue
        g = next((g for g in funcs if g.open < k < g.close), None)
        if g is not None:
            found.append(g)
    return found


def _own_model(unit: Unit, f: Func) -> str | None:
    toks = unit.tokens
    if any(
        (
            hardware_name(unit, k)
            and not shadowed(toks, k, f)
            and project_warp_size(unit, k) is None
            and not (k < f.params[1] and passed_by_every_call(unit, f, k))
        )
        or _lane_bits(toks, k)
        for k in range(f.params[0], f.close)
    ):
        return HARDWARE
    return _shuffle_model(unit, f) or _ids_model(unit, f)


def _shuffle_model(unit: Unit, f: Func) -> str | None:
    """``HARDWARE`` for a shuffle of width 64 or more in ``f``, else ``GROUP32`` for one of
    width 32 or less, else None."""
    group = None
    for c in calls(unit, SHUFFLES):
        if f.open < c.index < f.close:
            w = shuffle_width(unit, c)
            if w is not None and w >= 64:
                return HARDWARE
            if w is not None and w <= 32:
                group = GROUP32
    return group


def _ids_model(unit: Unit, f: Func) -> str | None:
    """``GROUP32`` when ``f`` derives both a lane id (`& 31`, `% 32`) and a group id
    (`/ 32`, `>> 5`) from the thread index, ``LANE32`` for a lane id alone (it may still be
    meant as the hardware lane), else None."""
    toks = unit.tokens
    taint = None
    seen: set[str] = set()
    for k in range(f.open + 1, f.close - 1):
        t = toks[k]
        if t.kind is not Kind.PUNCT or t.text not in GROUPING:
            continue
        if _operand_value(unit, k + 1) != GROUPING[t.text]:
            continue
        rng = operand_before(toks, k)
        if rng is None:
            continue
        taint = taint or thread_taint(unit, f)
        if taint.any(*rng) is not None:
            seen.add("lane" if t.text in ("&", "%") else "group")
    if seen == {"lane", "group"}:
        return GROUP32
    return LANE32 if seen == {"lane"} else None


def _operand_value(unit: Unit, k: int) -> int | None:
    """The value of the number or file constant at token ``k``."""
    nxt = unit.tokens[k]
    if nxt.kind is Kind.NUMBER:
        return int_value(nxt.text)
    if nxt.kind is Kind.IDENT:
        return constant_at(unit, nxt.text, k)
    return None


@dataclass(frozen=True)
class Related:
    """The dependent lines of one diagnosis: a note for the message, and the line numbers as
    ``extra["related_lines"]`` (comma-separated; SARIF lists them as related locations)."""

    lines: tuple[int, ...]

    @property
    def note(self) -> str:
        if not self.lines:
            return ""
        return "; dependent lines: " + ", ".join(map(str, self.lines))

    @property
    def extra(self) -> dict[str, str] | None:
        return {"related_lines": ",".join(map(str, self.lines))} if self.lines else None


def related(unit: Unit, token_indexes: list[int], at: int) -> Related:
    """The distinct source lines of ``token_indexes``, in order, but the line of token ``at``
    (where the finding itself is)."""
    toks = unit.tokens

    def line(k: int) -> int:
        return unit.lines.position(toks[k].start)[0]

    return Related(tuple(sorted({line(k) for k in token_indexes} - {line(at)})))


def meets_hardware_warp(unit: Unit, func: Func | None) -> str | None:
    """Where 32-lane arithmetic in ``func`` meets the hardware warp: "" when ``func`` itself
    works in hardware warps (`warpSize`, `__lane_id()`, a hardware lane mask, a shuffle width
    of 64), the name of a helper in the file that does and that ``func`` calls, else None.

    A ballot or `__activemask()` counts too: its bits are hardware lanes, so a 32-lane id
    that indexes or counts them (`__popc(b & ((1u << lane) - 1))`, lane 0 storing the count of
    group `tid >> 5`) reads the wrong half on lanes 32-63, even once the mask is 64-bit.

    Lane and group ids of 32 on their own are consistent on any wave size: a 64-lane wavefront
    holds two groups, shuffles that stay inside a group agree, and those that cross one are
    reported at the shuffle (HZ103), lane masks by HZ108.
    Only a mix of the two models computes something else on MI300X (lane 0 of the wavefront
    storing the sums of two groups, a reduction over 64 lanes written to 32-lane slots)."""
    if func is None or model_of(unit, func) == BLOCK32:
        return None
    if model_of(unit, func) == HARDWARE or any(
        func.open < c.index < func.close and not _only_a_mask(unit, c.index, func)
        for c in calls(unit, _VOTES)
    ):
        return ""
    return _calls_hardware_helper(unit, func)


def constant_is_the_fix(unit: Unit, func: Func | None) -> bool:
    """``func`` takes its 32-lane ids from a warp-size constant HZ107 reports (``reported``:
    the file's, or a header's of the tree; `lane = threadIdx.x % WS`), and it or a function
    of the file it calls (three calls deep) meets the hardware warp other than by counting
    its ballots: HeCBench's rsmt kernels broadcast from lane 0 and call `insertSteinerPoints`,
    which picks a ballot's bits by that lane.  The whole call tree then means the hardware
    warp, and the constant is what to fix (the human port sets `WS` to 64); its broadcasts are
    right once it is.  Ids of literal 32 (`t % 32`) stay group ids: exllamav3's radix sort,
    whose ballot is HZ105's and whose broadcasts HZ103's (round 20, judged true)."""
    if func is None or not _ids_from(unit, func, reported_names(unit)):
        return False
    found: dict[int, bool] = cached(unit, "_hz_constant_is_the_fix", dict)
    if func.open not in found:
        funcs = [f for f in functions(unit) if f.is_device]
        tree, todo = {func.open: func}, [func]
        for _ in range(3):
            todo = [g for f in todo for g in _callees(unit, f, funcs) if g.open not in tree]
            tree.update((g.open, g) for g in todo)
        found[func.open] = any(
            meets_hardware_warp(unit, f) is not None and not counted_in_groups(unit, f)
            for f in tree.values()
        )
    return found[func.open]


def _ids_from(unit: Unit, func: Func, names: frozenset[str]) -> bool:
    """``func`` divides or masks by one of ``names`` (`% WS`, `/ WARP_SIZE`, `& ...`)."""
    toks = unit.tokens
    return bool(names) and any(
        toks[k].text in GROUPING and toks[k + 1].text in names
        for k in range(func.open + 1, func.close - 1)
    )


def _callees(unit: Unit, f: Func, funcs: list[Func]) -> list[Func]:
    """The functions of ``funcs`` that ``f``'s body calls (``_callers`` read the other way)."""
    return [
        g
        for g in funcs
        if g.open != f.open and any(c.open == f.open for c in _callers(unit, g, funcs))
    ]


def counted_in_groups(unit: Unit, func: Func | None) -> bool:
    """``func`` works in consistent 32-lane groups (``GROUP32``) and its only hardware-warp
    operations are ballots it keeps in 32 bits: counted (`__popc(__ballot_sync(m, p))`, also
    `& KEY_MASK`) or stored in a 32-bit word (`const unsigned m = __ballot_sync(...)`).  On a
    64-lane wavefront the ballot holds the votes of two groups, and the fix is at the ballot
    (take the group's own half), which HZ105 reports, not at the 32-lane ids: ByteTransformer's
    sequence lengths (round 19), SlabHash's bucket counts and deepmd-kit's run heads (round 28)."""
    if func is None:
        return False
    found: dict[int, bool] = cached(unit, "_hz_counted_in_groups", dict)
    if func.open not in found:  # asked at each ballot of the function (HZ105) and by HZ101
        found[func.open] = _counted_in_groups(unit, func)
    return found[func.open]


def _counted_in_groups(unit: Unit, func: Func) -> bool:
    if model_of(unit, func) != GROUP32 or _calls_hardware_helper(unit, func):
        return False
    inactive = inactive_in(unit)  # `--portable`'s CUDA side of a vote is no HIP code
    votes = [
        c
        for c in calls(unit, _VOTES)
        if func.open < c.index < func.close
        and not _only_a_mask(unit, c.index, func)
        and unit.tokens[c.index].start not in inactive
    ]
    # ids of a warp-size constant HZ107 reports keep their ballots' words hardware ones: the
    # constant is the fix (HeCBench rsmt's `const int bal = __ballot_sync(...)` beside
    # `lane = threadIdx.x % WS`, whose port sets WS to 64)
    stores = not _ids_from(unit, func, reported_names(unit))
    return bool(votes) and all(_kept_in_32_bits(unit, c, func, stores) for c in votes)


_COUNTS = ("__popc", "__popcll")


def _kept_in_32_bits(unit: Unit, c: Call, func: Func, stores: bool) -> bool:
    """The vote ``c`` starts the argument of `__popc` (or `__popcll`), or is the whole right
    side of a declaration of a 32-bit type (`unsigned m = __ballot_sync(...);`, where
    ``stores``) that the function only counts or stores in a word (`masks[tid >> 5] = m;`).
    A mask whose bits it reads as lanes (`__ffs(m) - 1` as a shuffle's source) names hardware
    lanes."""
    toks = unit.tokens
    k = c.index - 1
    while toks[k].text == "(" and toks[k - 1].text == "(":
        k -= 1
    if toks[k].text == "(" and toks[k - 1].text in _COUNTS:
        return True
    name = c.index - 2
    if not stores:
        return False
    if toks[c.index - 1].text != "=" or toks[name].kind is not Kind.IDENT:
        return False
    if toks[c.close + 1].text != ";":
        return False
    first = name
    while toks[first - 1].text not in (";", "{", "}", ")") and not toks[first - 1].in_directive:
        first -= 1
    head = unit.text[toks[first].start : toks[name].start] if first < name else ""
    if NARROW_MASK_TYPE.match(head) is None:
        return False
    uses = [j for j in range(c.close + 1, func.close) if toks[j].text == toks[name].text]
    return all(
        (toks[j - 1].text == "(" and toks[j - 2].text in _COUNTS)
        or (toks[j - 1].text == "=" and toks[j - 2].text == "]" and toks[j + 1].text == ";")
        or (toks[j - 1].kind is Kind.IDENT and toks[j + 1].text == "=")  # declared again
        for j in uses
    )


def _calls_hardware_helper(unit: Unit, func: Func) -> str | None:
    """The name of a function of the file in the ``HARDWARE`` model that ``func`` calls."""
    toks = unit.tokens
    for g in functions(unit):
        if g.open == func.open or model_of(unit, g) != HARDWARE:
            continue
        for k in unit.identifier_positions.get(g.name, ()):
            if func.open < k < func.close and k + 1 < len(toks) and toks[k + 1].text in ("(", "<"):
                return g.name
    return None


def _only_a_mask(unit: Unit, k: int, func: Func) -> bool:
    """The vote at token ``k`` only selects the lanes of `_sync` intrinsics: it is their
    mask argument, or the variable it is stored in is used as nothing else
    (`unsigned m = __ballot_sync(...); __shfl_sync(m, v, lane - 1, 32);`)."""
    toks = unit.tokens

    def is_mask(j: int) -> bool:
        return toks[j - 1].text == "(" and toks[j - 2].text in MASKED_SYNC

    if is_mask(k):
        return True
    if toks[k - 1].text != "=" or toks[k - 2].kind is not Kind.IDENT:
        return False
    name = toks[k - 2].text
    uses = [j for j in range(k + 1, func.close) if toks[j].text == name]
    return bool(uses) and all(is_mask(j) for j in uses)
