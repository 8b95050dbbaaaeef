"""Code that only lanes 0-31 of a wavefront run: what a 32-bit lane mask or ballot loses
nothing in.  A ballot stored in 32 bits (HZ105) or a partial mask widened to 64 (HZ106) is
right there, since no lane past 31 takes part, and a function that sends the other lanes away
at its top runs as on a 32-thread block (``warp_model``).  The guards read are the ones real
kernels write (`if (threadIdx.x < 32)`, `if (warp == 0)` with `warp = tid / 32`, an early
`if (tid >= 32) return;` or `if (warp > 0) { return; }`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .block_geometry import BLOCK32, block_model
from .functions import Func, enclosing_conditions, function_at
from .tokens import cached
from .values import evaluate

# a thread or lane id, as a condition's left side spells it
_THREAD_IDS = frozenset({"threadIdx.x", "tid", "lane", "laneid", "lane_id", "laneId", "tx"})


def low_lanes_only(unit: Unit, index: int) -> bool:
    """The call at token ``index`` runs only in lanes 0-31 (a ballot's upper 32 bits are zero,
    a 32-bit mask names every lane that can run it): in the then-branch of an `if` whose
    condition requires a thread or lane id below 32 (`if (threadIdx.x < 32)`, `if (lane <
    WARP_SIZE && ...)` with WARP_SIZE 32 in the file; TransformerEngine's standalone_topk,
    round 11) or a 32-lane group index of 0 (`if (warp == 0)` with `warp = tid / 32`), or
    after `if (threadIdx.x >= 32) return;` at the top of its function (flashinfer's MoE
    routing, round 12), or anywhere in a kernel whose blocks hold at most 32 threads
    (``block_geometry``: the CUDA book's warp demo launched `<<<1, 16>>>`, round 25)."""
    func = function_at(unit, index)
    if func is None:
        return False
    if block_model(unit, func) == BLOCK32:
        return True
    toks = unit.tokens
    for keyword, first, end in enclosing_conditions(unit, index, func):
        if keyword != "if" or not _in_then_branch(unit, end + 1, index):
            continue
        if any(
            _below_32(unit, a, b) or _matches_initializer(unit, a, b, _some_conjunct_below_32)
            for a, b in _conjuncts(toks, first, end)
        ):
            return True
    return _returned_from_32(unit, func.open, index)


def low_lanes_reach(unit: Unit, index: int) -> bool:
    """Only lanes 0-31 run the code at token ``index``: ``low_lanes_only``, or it lies in a
    device function every call of which in this file (one at least) does (ByteTransformer's
    `warpPrefixSum`, called only under `if (warp_id == 0)`, round 19).  Callers in other
    files are not seen."""
    if low_lanes_only(unit, index):
        return True
    func = function_at(unit, index)
    if func is None or not func.is_device:
        return False
    called: dict[int, bool] = cached(unit, "_hz_called_in_low_lanes", dict)
    if func.open not in called:  # asked at each shuffle, ballot and mask of the function
        toks = unit.tokens
        calls = [
            k
            for k in unit.identifier_positions.get(func.name, ())
            if k != func.name_index and k + 1 < len(toks) and toks[k + 1].text in ("(", "<")
        ]
        called[func.open] = bool(calls) and all(low_lanes_only(unit, k) for k in calls)
    return called[func.open]


def lanes_past_31_return(unit: Unit, func: Func) -> bool:
    """``func`` sends every lane past 31 away at the top level of its body (`if (warp_id >
    0) return;`): what follows runs in lanes 0-31 only, as on a 32-thread block."""
    return _returned_from_32(unit, func.open, func.close)


# a test of a token range [a, b) of a unit: `_group_of_32`, `_groups_rounded_up`
_Form = Callable[[Unit, int, int], bool]


def _below_32(unit: Unit, a: int, b: int) -> bool:
    """The condition ``tokens[a:b]`` holds only for lanes 0-31: `tid < 32`, `lane <= 31`,
    `group == 0` where the group index is a thread id divided by 32 (`tid / 32`, `tid >> 5`),
    or `warps == 1` where the count of 32-lane groups in the block is rounded up (`(BLOCK + 32
    - 1) / 32`: a block of at most 32 threads; warp's tile reductions, round 13)."""
    toks = unit.tokens
    equal = [k for k in range(a, b) if toks[k].text == "=="]
    if len(equal) != 1:
        return _lanes_cut(unit, a, b, ("<", "<="))
    k = equal[0]
    value = evaluate(unit, k + 1, b)
    if value == 0:
        return _matches_initializer(unit, a, k, _group_of_32)
    return value == 1 and _matches_initializer(unit, a, k, _groups_rounded_up)


def _some_conjunct_below_32(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` holds only for lanes 0-31 by one of its `&&` operands: the initialiser of
    a flag (exllamav3's `const bool sink_warp = !HEAD && blockIdx.x == 0 && threadIdx.x <
    32;` before `if (sink_warp)`, round 20)."""
    return any(_below_32(unit, x, y) for x, y in _conjuncts(unit.tokens, a, b))


def _thread_id(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` is a thread or lane id: a name of ``_THREAD_IDS``, or one its function
    sets to `threadIdx.x` (exllamav3's `int t = threadIdx.x;`, round 20)."""
    toks = unit.tokens
    if "".join(t.text for t in toks[a:b]).strip("()") in _THREAD_IDS:
        return True
    return _matches_initializer(unit, a, b, _is_thread_index)


def _is_thread_index(unit: Unit, a: int, b: int) -> bool:
    return "".join(t.text for t in unit.tokens[a:b]) == "threadIdx.x"


def _matches_initializer(unit: Unit, a: int, b: int, form: _Form) -> bool:
    """``tokens[a:b]``, or the initialiser of the name it is where the function declares it
    (`int warp = tid / 32;`), has the ``form``.  Not through a call: gsplat's
    `__shfl_sync(~0u, threadIdx.x >> 5, 0)` broadcasts lane 0's group to all 64 lanes of a
    wavefront, so lanes 32-63 take group 0 too (round 5)."""
    toks = unit.tokens
    if form(unit, a, b):
        return True
    func = function_at(unit, a)
    if b - a != 1 or toks[a].kind is not Kind.IDENT or func is None:
        return False
    for d in unit.identifier_positions.get(toks[a].text, ()):
        if func.open < d < a and toks[d - 1].kind is Kind.IDENT and toks[d + 1].text == "=":
            end = next((j for j in range(d + 2, min(d + 40, func.close)) if toks[j].text == ";"), d)
            return form(unit, d + 2, end)
    return False


def _group_of_32(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` is a thread id divided into 32-lane groups: `tid / 32`,
    `threadIdx.x >> 5`, `(tid) / WARP_SIZE` with WARP_SIZE 32."""
    toks = unit.tokens
    op = next((k for k in range(a, b) if toks[k].text in ("/", ">>")), None)
    if op is None or not _thread_id(unit, a, op):
        return False
    return evaluate(unit, op + 1, b) == (32 if toks[op].text == "/" else 5)


def _groups_rounded_up(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` counts a block's 32-lane groups rounded up, `(BLOCK + W - 1) / W` with
    W 32 (or `(BLOCK + 31) / 32`): 1 only for blocks of at most 32 threads."""
    toks = unit.tokens
    close = unit.lexed.brackets.get(a) if toks[a].text == "(" else None
    if close is None or close + 1 >= b or toks[close + 1].text != "/":
        return False
    if evaluate(unit, close + 2, b) != 32:
        return False
    plus = next((k for k in range(a + 1, close) if toks[k].text == "+"), None)
    return plus is not None and evaluate(unit, plus + 1, close) == 31


def _returned_from_32(unit: Unit, open_: int, i: int) -> bool:
    """`if (threadIdx.x >= 32) return;` (or `> 31`), or the same for the other 32-lane groups
    (`if (warp_id > 0) { return; }` with `warp_id = threadIdx.x / 32`: cuvs's CAGRA search,
    round 16), at the top level of the function body that opens at ``open_``, before token
    ``i``."""
    toks = unit.tokens
    depth = 0
    for k in range(open_ + 1, i):
        text = toks[k].text
        depth += (text == "{") - (text == "}")
        if depth or text != "if" or toks[k + 1].text != "(":
            continue
        close = unit.lexed.brackets.get(k + 1)
        if close is None or close + 2 >= i:
            continue
        then = close + 2 if toks[close + 1].text == "{" else close + 1
        if toks[then].text != "return":
            continue
        if _lanes_cut(unit, k + 2, close, (">=", ">")) or _past_group_0(unit, k + 2, close):
            return True
    return False


def _past_group_0(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` holds for every 32-lane group but the first: `group > 0`, `group != 0`
    or `group >= 1`, the group index a thread id divided by 32."""
    toks = unit.tokens
    ops = [k for k in range(a, b) if toks[k].text in (">", "!=", ">=")]
    if len(ops) != 1:
        return False
    k = ops[0]
    value = evaluate(unit, k + 1, b)
    if value != (1 if toks[k].text == ">=" else 0):
        return False
    return _matches_initializer(unit, a, k, _group_of_32)


def votes_below_32(unit: Unit, a: int, b: int) -> bool:
    """The ballot predicate ``tokens[a:b]`` is false in every lane past 31: `tid < 32`, or
    `tid < n` where ``n`` counts the warps of a block (`blockSize / warpSize`: at most 1024 / 32
    on CUDA, 16 on a wave64 target; the CUDA samples' `reduce7` votes `tid < shmem_extent`,
    round 21), so a 32-bit ballot holds every vote."""
    toks = unit.tokens
    less = [k for k in range(a, b) if toks[k].text in ("<", "<=")]
    if len(less) != 1 or not _thread_id(unit, a, less[0]):
        return False
    return _lanes_cut(unit, a, b, ("<", "<=")) or _matches_initializer(
        unit, less[0] + 1, b, _warps_of_block
    )


# what a block's size is called where its warps are counted (`blockSize / warpSize`)
_BLOCK_SIZE = frozenset({"blockDim", "x", "blockSize", "BLOCK_SIZE", "block_size", "kBlockSize"})


def _warps_of_block(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` counts the warps of a block: every division is by the warp size (the
    name, or 32), every other name is the block's size, no other operator grows it (a
    ternary that keeps it at least 1 is allowed: `(blockSize / warpSize) > 0 ? (blockSize /
    warpSize) : 1`)."""
    toks = unit.tokens
    divided = False
    for k in range(a, b):
        t = toks[k]
        if t.text == "/":
            divided = True
            if toks[k + 1].text != "warpSize" and evaluate(unit, k + 1, k + 2) != 32:
                return False
        elif t.text in ("*", "<<", "+"):
            return False
        elif t.kind is Kind.IDENT and t.text not in _BLOCK_SIZE and t.text != "warpSize":
            return False
        elif t.kind is Kind.NUMBER and (evaluate(unit, k, k + 1) or 0) > 32:
            return False
    return divided


def _lanes_cut(unit: Unit, a: int, b: int, ops: tuple[str, str]) -> bool:
    """``tokens[a:b]`` is one comparison of a thread or lane id by one of ``ops`` that parts
    lanes 0-31 from the rest: `< 32` or `<= 31` (the lanes kept), `>= 32` or `> 31` (the
    lanes sent away)."""
    toks = unit.tokens
    found = [k for k in range(a, b) if toks[k].text in ops]
    if len(found) != 1 or not _thread_id(unit, a, found[0]):
        return False
    bound = evaluate(unit, found[0] + 1, b)
    return bound is not None and bound <= (32 if toks[found[0]].text in ("<", ">=") else 31)


def _conjuncts(toks: Sequence[Token], first: int, end: int) -> list[tuple[int, int]]:
    """The token ranges of ``toks[first:end]`` joined by top-level `&&`."""
    out, start, depth = [], first, 0
    for k in range(first, end):
        depth += (toks[k].text == "(") - (toks[k].text == ")")
        if depth == 0 and toks[k].text == "&&":
            out.append((start, k))
            start = k + 1
    out.append((start, end))
    return out


def _in_then_branch(unit: Unit, body: int, i: int) -> bool:
    """Token ``i`` is in the statement that starts at token ``body`` (an if's then-branch),
    not in an `else` after it."""
    toks = unit.tokens
    if body >= len(toks):
        return False
    if toks[body].text == "{":
        close = unit.lexed.brackets.get(body)
        return close is not None and body < i < close
    return not any(toks[k].text == ";" for k in range(body, i))
