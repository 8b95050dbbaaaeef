"""Whether both 32-lane halves of a 64-lane wavefront hold a value alike, so that a broadcast
without width (`__shfl_sync(m, v, 0)`) reads in lane 0 of the wavefront what each group's lane
0 holds.  Apart from ``group_scan``, which asks where a shifted value is used, as this module
asks where a broadcast value came from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .calls import SHUFFLES, Call
from .functions import Func, enclosing_conditions, function_at, functions
from .group_scan import group_lanes
from .taint import THREAD_SOURCES, Taint, thread_taint
from .tokens import statement_end

_ASSIGNS = frozenset({"=", "+=", "-=", "*=", "|=", "&=", "^="})
_XOR = frozenset({"__shfl_xor_sync", "__shfl_xor"})


def halves_agree(unit: Unit, call: Call) -> bool:
    """The broadcast ``call`` (`__shfl_sync(m, v, 0)`) reads a value both 32-lane halves of a
    64-lane wavefront hold alike, so lane 0 of the wavefront has what lane 0 of each group has:
    since its last plain assignment, `v = red_smem[lane]` with `lane` a group lane (both halves
    read the same slots, under `if (lane < E)` alike), `v` only went through xor shuffles,
    which keep the halves alike (FasterTransformer's `block_sum` and the attention kernels that
    copy it, round 20: 5 false HZ107 in omniserve), or took a constant (ppl.llm's `if (lane_id <
    WPT) v = shared_mem[lane_id]; else v = -FLT_MAX;`, round 26: 2 false HZ103).  The value
    may be a member of a struct none of whose members is stored on the way, and the read's
    index and guards may name values no thread index reaches (hkevin01's n-body: `if (i +
    lane_id < n) p = positions[i + lane_id];` then `__shfl_sync(m, p.x, j)`, round 46)."""
    func = function_at(unit, call.index)
    toks = unit.tokens
    src = SHUFFLES[call.name] - 2  # the value comes before the source lane
    if func is None or len(call.args) <= src + 1:
        return False
    a, b = call.args[src]
    member = b == a + 3 and toks[a + 1].text == "."  # a member of a struct (`pos.x`)
    if not (b == a + 1 or member) or toks[a].kind is not Kind.IDENT:
        return False
    name, lanes = toks[a].text, group_lanes(unit, func)
    if not lanes or _member_stored(unit, name, func.open, call.index):
        return False
    halves = _Halves(toks, lanes, thread_taint(unit, func))
    steps: list[int] = []  # the xor steps after the seed
    for k in sorted(unit.identifier_positions.get(name, ()), reverse=True):
        if not func.open < k < call.index or toks[k + 1].text not in _ASSIGNS:
            continue
        end = statement_end(toks, k + 2, func.close)
        if end > call.index:
            continue  # the broadcast's own statement (`v = __shfl_sync(m, v, 0);`)
        if _xor_step(unit, func, k, end):
            steps.append(k)
            continue  # an xor step: partners k ^ m and (k + 32) ^ m agree as well
        if _constant(toks[k + 2 : end]):
            continue  # alike in both halves: the `else v = -FLT_MAX;` of `if (lane < E)`
        if not halves.seeded(k + 2, end):
            return False
        # lanes an `if (lane < E)` leaves out keep values of their own half: the steps must
        # stay below E (`for (int mask = E / 2; ...)`)
        return all(
            halves.group_condition(x, y) and _steps_below(unit, func, steps, toks[x:y])
            for kw, x, y in enclosing_conditions(unit, k, func)
            if kw == "if"
        )
    return False


def _member_stored(unit: Unit, name: str, first: int, end: int) -> bool:
    """A member of ``name`` is assigned between tokens ``first`` and ``end`` (`v.x = ...`),
    which the walk over the name's own assignments does not see."""
    toks = unit.tokens
    return any(
        first < k < end and toks[k + 1].text in (".", "->") and toks[k + 3].text in _ASSIGNS
        for k in unit.identifier_positions.get(name, ())
    )


def _steps_below(unit: Unit, func: Func, steps: list[int], guard: Sequence[Token]) -> bool:
    """Each xor step's loop starts at half the bound of ``guard`` (`lane < E`)."""
    texts = [t.text for t in guard]
    if "<" not in texts:
        return False
    bound = "".join(texts[texts.index("<") + 1 :])
    return all(
        any(
            f"{bound}/2" in "".join(t.text for t in unit.tokens[x:y])
            for kw, x, y in enclosing_conditions(unit, k, func)
            if kw == "for"
        )
        for k in steps
    )


def _xor_step(unit: Unit, func: Func, k: int, end: int) -> bool:
    """The assignment to the name at token ``k`` (its statement ends at ``end``) is an xor
    step: `v = op(v, __shfl_xor_sync(m, v, s))`, or `v = got;` where `got` last received an
    xor shuffle of `v` (ppl.llm's arg-max: `got = __shfl_xor_sync(m, v, s); if (got > v) v =
    got;`, round 26)."""
    toks = unit.tokens
    if any(toks[j].text in _XOR for j in range(k + 2, end)):
        return True
    if _xor_helper_call(unit, k, end):
        return True
    if end != k + 3 or toks[k + 2].kind is not Kind.IDENT:
        return False
    for j in sorted(unit.identifier_positions.get(toks[k + 2].text, ()), reverse=True):
        if func.open < j < k and toks[j + 1].text == "=":
            stop = statement_end(toks, j + 2, func.close)
            received = range(j + 2, stop)
            return any(toks[x].text in _XOR for x in received) and any(
                toks[x].text == toks[k].text for x in received
            )
    return False


def _xor_helper_call(unit: Unit, k: int, end: int) -> bool:
    """The assignment at token ``k`` is `v = helper(v);` (or `helper<N>(v)`) with ``helper`` a
    function of the file whose only shuffles are xor shuffles and that reads no thread index:
    a warp reduction keeps alike halves alike (namespacemarcus's `block_reduce_sum_f32`,
    `value = warp_reduce_sum_f32<NUM_WARPS>(value);` before its broadcast, round 52: 2 false
    HZ103)."""
    toks = unit.tokens
    callee, j = toks[k + 2], k + 3
    if callee.kind is not Kind.IDENT or j >= end:
        return False
    if toks[j].text == "<":
        j = next((x for x in range(j, end) if toks[x].text == ">"), end) + 1
    if [t.text for t in toks[j:end]] != ["(", toks[k].text, ")"]:
        return False
    helpers = [f for f in functions(unit) if f.name == callee.text]
    return bool(helpers) and all(_xor_only(toks[f.open : f.close]) for f in helpers)


def _xor_only(body: Sequence[Token]) -> bool:
    """``body`` shuffles, only by xor, and reads no thread index."""
    names = {t.text for t in body if t.kind is Kind.IDENT}
    return (
        bool(names & _XOR)
        and not (names & (SHUFFLES.keys() - _XOR))
        and (not names & THREAD_SOURCES)
    )


def _constant(expr: Sequence[Token]) -> bool:
    """``expr`` names no value but constants in capitals (`-FLT_MAX`, `0.f`), perhaps built
    into a vector (`make_float4(0.f, 0.f, 0.f, 0.f)`): alike in both halves of a wavefront."""
    return bool(expr) and all(
        t.text.isupper()
        or (t.text.startswith("make_") and k + 1 < len(expr) and expr[k + 1].text == "(")
        for k, t in enumerate(expr)
        if t.kind is Kind.IDENT
    )


class _Halves(NamedTuple):
    """What decides whether a name is alike in both halves of a function: its group lanes, and
    the thread-index data flow (a name no thread index reaches is alike in every lane)."""

    toks: Sequence[Token]
    lanes: set[str]
    taint: Taint

    def alike(self, j: int) -> bool:
        """Token ``j`` is no name, or a name alike in both halves: a group lane, a constant in
        capitals, or a value no thread index reaches (hkevin01's n-body `positions[i +
        lane_id]` in a loop over `i`, round 46)."""
        t = self.toks[j]
        return (
            t.kind is not Kind.IDENT
            or t.text in self.lanes
            or t.text.isupper()
            or not self.taint.is_tainted(j)
        )

    def seeded(self, a: int, b: int) -> bool:
        """``toks[a:b]`` is a read by group lane (``read_by_group_lane``), or `cond ? read :
        constant` on a condition of group lanes (`lane < WARPS_PER_BLOCK ? red_smem[lane] :
        -FLT_MAX`)."""
        if self.read_by_group_lane(a, b):
            return True
        toks = self.toks
        q = next((j for j in range(a, b) if toks[j].text == "?"), None)
        c = next((j for j in range(q or b, b) if toks[j].text == ":"), None)
        if q is None or c is None or not self.group_condition(a, q):
            return False
        return self.read_by_group_lane(q + 1, c) and _constant(toks[c + 1 : b])

    def read_by_group_lane(self, a: int, b: int) -> bool:
        """``toks[a:b]`` is `array[index]` whose index names a group lane and otherwise only
        names alike in both halves."""
        toks = self.toks
        if b - a < 4 or toks[a].kind is not Kind.IDENT or toks[a + 1].text != "[":
            return False
        if toks[b - 1].text != "]":
            return False
        return self.group_condition(a + 2, b - 1)

    def group_condition(self, a: int, b: int) -> bool:
        """``toks[a:b]`` is the same in both halves: it names a group lane, and no other name
        but those alike in both halves (`lane < WARPS_PER_BLOCK`, `i + lane < n`)."""
        return any(t.text in self.lanes for t in self.toks[a:b]) and all(
            self.alike(j) for j in range(a, b)
        )
