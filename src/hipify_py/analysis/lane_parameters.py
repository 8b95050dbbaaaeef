"""The parameters of a function that its callers always pass a 32-lane lane id (`tid % 32`):
such a parameter is a group lane inside the function, as `lane = tid & 31` is.  Split from
``group_scan``, which asks for the lanes the function and its callers set themselves."""

from __future__ import annotations

from collections.abc import Callable

from ..frontend.unit import Unit
from .functions import Func, function_at, functions, parameter_names
from .tokens import cached, match, split, template_close
from .values import evaluate

# a lane id of 32-lane groups (`tid & 31`, `tid % 32`): operator -> operand
LANE_ID = {"&": 31, "%": 32}


def parameter_lanes(unit: Unit, f: Func, local: Callable[[Unit, Func], set[str]]) -> set[str]:
    """The parameters of ``f`` to which every call of it in the file passes a 32-lane lane id
    (a name its caller sets to one, ``local``, or `tid % 32` written there): vitamin-cuda's
    `_warp_cum_sum(int lane_id, float val)`, called `_warp_cum_sum<32>(lane_id, val)` with
    `lane_id = tid % 32` (round 41: 2 false HZ103).  None where a mention of ``f`` is no call
    whose arguments can be read."""
    toks = unit.tokens
    params = parameter_names(toks, f)
    defined = cached(
        unit, "_lane_definition_names", lambda: {g.name_index for g in functions(unit)}
    )
    sites = []
    for k in unit.identifier_positions.get(f.name, ()):
        if k in defined or toks[k - 1].text in (".", "->"):
            continue
        j = template_close(toks, k + 1) if k + 1 < len(toks) and toks[k + 1].text == "<" else k
        caller = function_at(unit, k)
        if j is None or caller is None or j + 1 >= len(toks) or toks[j + 1].text != "(":
            return set()  # named, not called: its arguments are not known
        end = match(toks, j + 1)
        if end is None:
            return set()
        sites.append((caller, split(toks, j + 2, end)))
    return {
        name
        for p, name in enumerate(params)
        if name
        and sites
        and all(p < len(args) and _lane_argument(unit, c, *args[p], local) for c, args in sites)
    }


def _lane_argument(
    unit: Unit, caller: Func, a: int, b: int, local: Callable[[Unit, Func], set[str]]
) -> bool:
    """The argument ``tokens[a:b]`` is a 32-lane lane id of ``caller``."""
    toks = unit.tokens
    if b - a == 1:
        return toks[a].text in local(unit, caller)
    op = toks[b - 2].text
    return b - a >= 3 and op in LANE_ID and evaluate(unit, b - 1, b) == LANE_ID[op]
