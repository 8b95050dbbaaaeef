"""The lane ids of 32-lane groups (`lane = tid & 31`) and the shifted shuffles they guard: a
group scan (`if (lane >= d) v += __shfl_up_sync(m, v, d)`) stays in its group on a 64-lane
wavefront.  Split from ``warp_model``, which asks at every shuffle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .calls import SHUFFLES, Call
from .functions import Func, enclosing_conditions, function_at
from .lane_parameters import LANE_ID, parameter_lanes
from .tokens import cached, enclosing_paren, match, match_back
from .values import evaluate

# a lane id (`& 31`, `% 32`) or a group id (`>> 5`, `/ 32`) of 32-lane groups: operator -> value
GROUPING = {**LANE_ID, ">>": 5, "/": 32}


def guarded_scan(unit: Unit, call: Call) -> bool:
    """A `__shfl_up*` whose result only counts in the lanes that a 32-lane lane id lets
    through: `if (lane >= d) v += __shfl_up_sync(m, v, d)` or `y = __shfl_up_sync(m, v, d);
    if (lane >= d) v += y;` with `lane = tid & 31`.  On a 64-lane wavefront lane 32 + j
    reads lane 32 + j - d, in its own group whenever j >= d: a group scan, right there."""
    func = function_at(unit, call.index)
    at = SHUFFLES[call.name] - 1  # the delta comes before the width
    if func is None or not call.name.startswith("__shfl_up") or len(call.args) <= at:
        return False
    toks = unit.tokens
    lanes = group_lanes(unit, func)  # none: a lane id written in the test (`tid % 32 >= d`)
    a, b = call.args[at]
    delta = _Delta([t.text for t in toks[a:b]], _counters_from(unit, func, call.index, a, b))
    if _use_guarded(unit, func, call.index, lanes, delta):
        return True  # the shuffle itself under the test: `lane == 0 ? 0 : __shfl_up_sync(...)`
    name = _receiver(toks, call.index, func.open)
    if name is None:
        return False
    if toks[call.index - 2].text == "]":  # an element: the array is read past the store's loop
        uses = _array_reads(toks, name, call.close + 1, func.close)
    else:
        uses = _uses_until_assigned(toks, name, call.close + 1, func.close)
    return bool(uses) and all(_use_guarded(unit, func, j, lanes, delta) for j in uses)


def _use_guarded(unit: Unit, func: Func, j: int, lanes: set[str], delta: _Delta) -> bool:
    """The use at token ``j`` of a shifted value counts only in group lanes at or past the
    shift: under `if (lane >= d)`, in the true branch of `lane > 0 ? y : 0`, in the false
    branch of `lane == 0 ? 0 : y` (StringZilla's carries, round 30), or handed to a helper
    together with the group lane, which picks by it (StringZilla's `resolve_left_boundary_(
    lane_index, ..., shuffled_edge, ...)` and its `if (lane_index == 0)`)."""
    toks = unit.tokens
    return (
        any(_admits(toks, x, y, lanes, delta) for _kw, x, y in enclosing_conditions(unit, j, func))
        or _admits(toks, *_ternary_condition(toks, j, func.open), lanes, delta)
        or _excludes(toks, *_ternary_else_condition(toks, j, func.open), lanes, delta)
        or _passed_with_lane(toks, j, func, lanes)
    )


_ZERO = frozenset({"0", "0u", "0U"})


class _Delta(NamedTuple):
    """A shuffle's shift: its tokens' texts, and the loop counters that are at least as large
    (`for (i = 1; ...; i++)` around a shift by 1)."""

    texts: list[str]
    below: frozenset[str]


def _admits(toks: Sequence[Token], first: int, end: int, lanes: set[str], delta: _Delta) -> bool:
    """The condition ``toks[first:end]`` lets only group lanes at or past the shift through:
    `lane >= d` or `d <= lane`, `lane > x` or `x < lane`, `lane == i` with a loop counter `i`
    that starts at the shift or past it (warp-rnnt's `if (i == d)` after a shift by 1 in `for
    (i = 1; ...)`, round 32), and for a shift by 1 `lane != 0`."""
    cond = [t.text for t in toks[first:end]]
    size = len(delta.texts)
    for k, word in enumerate(cond):
        # `lane` of `lane = tid & 31`, or `threadIdx.x % 32` written in the test (its operand
        # comes before: no `d <= ...` form is read there)
        inline = None if word in lanes else _inline_lane_end(cond, k)
        if word not in lanes and inline is None:
            continue
        last, op_before = (k, cond[k - 1] if k else "") if inline is None else (inline, "")
        after = last + 2
        op, rest = (cond[last + 1], cond[after : after + size]) if after < len(cond) else ("", [])
        lhs = cond[k - 1 - size : k - 1] if k > size else []
        if op == ">" or op_before == "<":
            return True
        if (op == ">=" and rest == delta.texts) or (op_before == "<=" and lhs == delta.texts):
            return True
        if op in (">=", "==") and _alone(cond, after) and cond[after] in delta.below:
            return True
        if op_before == "==" and k >= 2 and _alone(cond, k - 2) and cond[k - 2] in delta.below:
            return True
        if delta.texts == ["1"] and op == "!=" and cond[after] in _ZERO:
            return True
    return False


_JOINS = frozenset({"(", ")", "&&", "||"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


def _inline_lane_end(cond: list[str], k: int) -> int | None:
    """A 32-lane lane id written in the condition at ``cond[k]``: `% 32` after a name (its
    comparison comes next, as `%` binds tighter), or `& 31)` closing a parenthesis (`&` binds
    looser than a comparison); the index of its last token (cuda-lab's `if (threadIdx.x % 32 >=
    offset)` around a scan's shift, round 38)."""
    if k == 0 or k + 2 >= len(cond) or not (cond[k - 1][:1].isalpha() or cond[k - 1] == "_"):
        return None
    if cond[k : k + 2] == ["%", "32"] and cond[k + 2] in _COMPARISONS:
        return k + 1
    if cond[k : k + 3] == ["&", "31", ")"]:
        return k + 2
    return None


def _alone(cond: list[str], j: int) -> bool:
    """``cond[j]`` is one side of its comparison by itself."""
    return (
        j < len(cond)
        and (j == 0 or cond[j - 1] in _JOINS or cond[j - 1] in ("==", ">="))
        and (j + 1 == len(cond) or cond[j + 1] in _JOINS or cond[j + 1] == "==")
    )


_STEPS = frozenset({"++", "+=", "*=", "<<="})


def _counters_from(unit: Unit, func: Func, at: int, a: int, b: int) -> frozenset[str]:
    """The counters of the `for` loops around token ``at`` that start at the shift
    ``tokens[a:b]`` (a number) or past it and only grow: `for (unsigned i = 1; i < W; i++)`."""
    shift = evaluate(unit, a, b)
    if shift is None:
        return frozenset()
    toks = unit.tokens
    out = set()
    for kw, x, y in enclosing_conditions(unit, at, func):
        parts = [t.text for t in toks[x:y]]
        if kw != "for" or parts.count(";") != 2 or "=" not in parts:
            continue
        eq = parts.index("=")
        name, first_end = parts[eq - 1], parts.index(";")
        start = evaluate(unit, x + eq + 1, x + first_end)
        step = parts[parts.index(";", first_end + 1) + 1 :]
        grows = step[:2] in ([name, "++"], ["++", name]) or (
            step[:1] == [name] and step[1:2] and step[1] in _STEPS and step[2:] != ["0"]
        )
        if start is not None and start >= shift and grows:
            out.add(name)
    return frozenset(out)


def _excludes(toks: Sequence[Token], first: int, end: int, lanes: set[str], delta: _Delta) -> bool:
    """The whole condition ``toks[first:end]`` is a test for the group lanes below the shift
    (`lane < d`; `lane == 0` or `!lane` for a shift by 1): its false branch holds the others."""
    cond = [t.text for t in toks[first:end]]
    while len(cond) > 2 and cond[0] == "(" and cond[-1] == ")":
        cond = cond[1:-1]
    if len(cond) >= 3 and cond[0] in lanes and cond[1] == "<" and cond[2:] == delta.texts:
        return True
    if delta.texts != ["1"]:
        return False
    first_lane = len(cond) == 3 and cond[0] in lanes and cond[1] == "==" and cond[2] in _ZERO
    return first_lane or (len(cond) == 2 and cond[0] == "!" and cond[1] in lanes)


def _ternary_else_condition(toks: Sequence[Token], j: int, floor: int) -> tuple[int, int]:
    """The tokens [start, end) of the condition of the `?:` whose false branch starts at token
    ``j``; empty when ``j`` starts none."""
    if toks[j - 1].text != ":":
        return j, j
    depth, k = 0, j - 2
    while k > floor and toks[k].text not in (";", "{", "}"):
        text = toks[k].text
        depth += (text == ")") - (text == "(")
        if depth < 0:
            break
        if not depth and text == "?":
            return _ternary_condition(toks, k + 1, floor)
        k -= 1
    return j, j


def _passed_with_lane(toks: Sequence[Token], j: int, func: Func, lanes: set[str]) -> bool:
    """The name at token ``j`` is an argument of a call that takes a group lane as well."""
    if toks[j - 1].text not in ("(", ",") or toks[j + 1].text not in (")", ","):
        return False
    k = enclosing_paren(toks, j, func.open)
    if k is None or (toks[k - 1].kind is not Kind.IDENT and toks[k - 1].text != ">"):
        return False
    m = match(toks, k)
    return m is not None and any(t.text in lanes for t in toks[k:m])


def _receiver(toks: Sequence[Token], k: int, floor: int) -> str | None:
    """The name the shuffle at token ``k`` is stored in, whole: `T y = shfl(...)`, `y =
    shfl(...)`, `T y(shfl(...))`, `edge[e] = shfl(...)`."""
    j = k - 2
    if j <= floor:
        return None
    if toks[j + 1].text == "(":
        return (
            toks[j].text if toks[j].kind is Kind.IDENT and toks[j - 1].kind is Kind.IDENT else None
        )
    if toks[j + 1].text != "=":
        return None
    if toks[j].text == "]":
        opening = match_back(toks, j)
        if opening is None or opening <= floor:
            return None
        j = opening - 1
    return toks[j].text if toks[j].kind is Kind.IDENT else None


def _uses_until_assigned(toks: Sequence[Token], name: str, start: int, end: int) -> list[int]:
    """The tokens naming variable ``name`` in the rest of its block from ``start``, up to where
    the block assigns it anew (CV-CUDA's Otsu scan reuses one `temp` for every step, round 29);
    an inner block that declares a ``name`` of its own holds no use of this one from there on
    (yiyanGuo's `scan_warp.cu` declares `float add` again in a later loop, round 46)."""
    uses, depth, shadowed = [], 0, 0
    for j in range(start, end):
        depth += (toks[j].text == "{") - (toks[j].text == "}")
        if depth < 0:
            break
        if shadowed > depth:
            shadowed = 0  # the block that declared its own closed
        if toks[j].text != name or shadowed:
            continue
        if not depth and toks[j + 1].text == "=" and toks[j - 1].text in (";", "}"):
            break
        # a declaration of its own (`#else` branch of a portable copy) is no use
        if not (toks[j - 1].kind is Kind.IDENT and toks[j + 1].text in ("=", "(")):
            uses.append(j)
        elif depth:
            shadowed = depth
    return uses


def _array_reads(toks: Sequence[Token], name: str, start: int, end: int) -> list[int]:
    """The tokens naming array ``name`` from ``start`` to ``end``, but for element stores
    (`edge[e] = ...`)."""
    reads = []
    for j in range(start, end):
        if toks[j].text != name:
            continue
        if toks[j + 1].text == "[":
            close = match(toks, j + 1)
            if close is not None and toks[close + 1].text == "=":
                continue  # an element store
        reads.append(j)
    return reads


def _ternary_condition(toks: Sequence[Token], j: int, floor: int) -> tuple[int, int]:
    """The tokens [start, end) of the condition of the `?:` whose true branch starts at token
    ``j`` (openmm's `pairStart + (indexInWarp > 0 ? prevSum : 0)`, round 18); empty when
    ``j`` starts none."""
    if toks[j - 1].text != "?":
        return j, j
    depth, k = 0, j - 2
    while k > floor:
        text = toks[k].text
        if text == ")":
            depth += 1
        elif text == "(":
            if not depth:
                break
            depth -= 1
        elif not depth and text in ("=", ";", ",", "{", "}", "?", ":", "return"):
            break
        k -= 1
    return k + 1, j - 1


def group_lanes(unit: Unit, f: Func) -> set[str]:
    """Names of ``f`` set to a 32-lane lane id: `lane = tid & 31`, `laneid(tid % 32)`, and
    its parameters that every call passes one (found once per function: HZ108 asks at every
    lane mask, the model at every shuffle)."""
    found: dict[int, set[str]] = cached(unit, "_hz_group_lanes", dict)
    if f.open not in found:
        found[f.open] = _local_lanes(unit, f) | parameter_lanes(unit, f, _local_lanes)
    return found[f.open]


def _local_lanes(unit: Unit, f: Func) -> set[str]:
    """The names ``f`` itself sets to a 32-lane lane id (found once per function)."""
    found: dict[int, set[str]] = cached(unit, "_hz_local_lanes", dict)
    if f.open not in found:
        found[f.open] = _group_lanes(unit, f)
    return found[f.open]


def _group_lanes(unit: Unit, f: Func) -> set[str]:
    toks = unit.tokens
    out = _row_lanes(unit, f)
    for k in range(f.open + 1, f.close - 3):
        if toks[k].kind is not Kind.IDENT or toks[k + 1].text not in ("=", "("):
            continue
        if toks[k + 1].text == "(" and toks[k - 1].kind is not Kind.IDENT:
            continue  # a call, not `unsigned laneid(tid % 32)`
        j = k + 2
        while j < f.close and toks[j].text not in (";", ","):
            j += 1
        end = j - 1 if toks[k + 1].text == "(" else j
        # the operand: one token (`& 31`), or a parenthesis (`& (WARP_SIZE - 1)`: opencuda's
        # scan probe, round 39, a false HZ107)
        first = match_back(toks, end - 1) if toks[end - 1].text == ")" else end - 1
        if (
            first is not None
            and first - 1 > k + 1
            and toks[first - 1].text in ("&", "%")
            and evaluate(unit, first, end) == GROUPING[toks[first - 1].text]
        ):
            out.add(toks[k].text)
    return out


def _row_lanes(unit: Unit, f: Func) -> set[str]:
    """`d = threadIdx.x` in a function that asserts rows of 32 threads (warp-rnnt's
    `assert(blockDim.x == W)` with `#define W 32`, round 32: 4 false HZ103): the lane in its
    row, as `tid & 31` is."""
    toks = unit.tokens
    rows = any(
        [t.text for t in toks[k + 1 : k + 4]] == [".", "x", "=="]
        and evaluate(unit, k + 4, k + 5) == 32
        and (j := enclosing_paren(toks, k, f.open)) is not None
        and toks[j - 1].text.lower().endswith("assert")
        for k in unit.identifier_positions.get("blockDim", ())
        if f.open < k < f.close
    )
    if not rows:
        return set()
    return {
        toks[k].text
        for k in range(f.open + 1, f.close - 5)
        if toks[k].kind is Kind.IDENT
        and [t.text for t in toks[k + 1 : k + 6]] == ["=", "threadIdx", ".", "x", ";"]
    }
