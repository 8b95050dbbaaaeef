"""The lane ids of 32-lane groups (`lane = tid & 31`) and the shifted shuffles they guard: a
group scan (`if (lane >= d) v += __shfl_up_sync(m, v, d)`) stays in its group on a 64-lane
wavefront.  Split from ``warp_model``, which asks at every shuffle."""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .calls import SHUFFLES, Call
from .functions import Func, enclosing_conditions, function_at
from .tokens import cached
from .values import int_value

# a lane id (`& 31`, `% 32`) or a group id (`>> 5`, `/ 32`) of 32-lane groups: operator -> value
GROUPING = {"&": 31, "%": 32, ">>": 5, "/": 32}


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
    lanes = group_lanes(unit, func)
    if not lanes:
        return False
    a, b = call.args[at]
    delta = [t.text for t in toks[a:b]]

    def guards(first: int, end: int) -> bool:
        cond = [t.text for t in toks[first:end]]
        return any(
            cond[k] in lanes
            and k + 2 < len(cond)
            and (
                (cond[k + 1] == ">=" and cond[k + 2 : k + 2 + len(delta)] == delta)
                or cond[k + 1] == ">"
            )
            for k in range(len(cond))
        )

    if any(guards(x, y) for _kw, x, y in enclosing_conditions(unit, call.index, func)):
        return True
    k = call.index - 2  # `T y = __shfl_up_sync(...)`, `y = ...`, `T y(__shfl_up_sync(...))`
    if k <= func.open or toks[k].kind is not Kind.IDENT:
        return False
    if toks[k + 1].text != "=" and not (toks[k + 1].text == "(" and toks[k - 1].kind is Kind.IDENT):
        return False
    name = toks[k].text
    uses, depth = [], 0  # in the rest of the block that declares it
    for j in range(call.close + 1, func.close):
        depth += (toks[j].text == "{") - (toks[j].text == "}")
        if depth < 0:
            break
        if toks[j].text == name and not (
            toks[j - 1].kind is Kind.IDENT and toks[j + 1].text in ("=", "(")
        ):  # a declaration of its own (`#else` branch of a portable copy) is no use
            uses.append(j)
    return bool(uses) and all(
        any(guards(x, y) for _kw, x, y in enclosing_conditions(unit, j, func))
        or guards(*_ternary_condition(toks, j, func.open))
        for j in uses
    )


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
    """Names of ``f`` set to a 32-lane lane id: `lane = tid & 31`, `laneid(tid % 32)` (found
    once per function: HZ108 asks at every lane mask, the model at every shuffle)."""
    found: dict[int, set[str]] = cached(unit, "_hz_group_lanes", dict)
    if f.open not in found:
        found[f.open] = _group_lanes(unit, f)
    return found[f.open]


def _group_lanes(unit: Unit, f: Func) -> set[str]:
    toks = unit.tokens
    out = set()
    for k in range(f.open + 1, f.close - 3):
        if toks[k].kind is not Kind.IDENT or toks[k + 1].text not in ("=", "("):
            continue
        if toks[k + 1].text == "(" and toks[k - 1].kind is not Kind.IDENT:
            continue  # a call, not `unsigned laneid(tid % 32)`
        j = k + 2
        while j < f.close and toks[j].text not in (";", ","):
            j += 1
        end = j - 1 if toks[k + 1].text == "(" else j
        if (
            end - 2 > k + 1
            and int_value(toks[end - 1].text) == GROUPING.get(toks[end - 2].text)
            and toks[end - 2].text in ("&", "%")
        ):
            out.add(toks[k].text)
    return out
