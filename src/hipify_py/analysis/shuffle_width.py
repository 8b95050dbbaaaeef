"""The width a shuffle works in: its `width` argument, read through the parameter a helper
passes it from, and the names that mean the hardware wavefront's width (``warp_model`` decides
a function's lanes by them)."""

from __future__ import annotations

from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from .calls import SHUFFLES, Call, calls
from .functions import Func, function_at, functions
from .tokens import enclosing_paren, split
from .values import constant_at, evaluate

# names that speak of the hardware wavefront
HARDWARE_NAMES = frozenset({"warpSize", "__lane_id", "C10_WARP_SIZE", "__AMDGCN_WAVEFRONT_SIZE"})


def hardware_name(unit: Unit, k: int) -> bool:
    """Token ``k`` names the hardware wavefront: one of ``HARDWARE_NAMES``, unless the file
    defines it as 32 itself (a teaching copy of PyTorch's reduction with its own `#define
    C10_WARP_SIZE 32`, round 25: its lane and group ids are 32-lane groups)."""
    name = unit.tokens[k].text
    return name in HARDWARE_NAMES and constant_at(unit, name, k) != 32 and not _asserted(unit, k)


def _asserted(unit: Unit, k: int) -> bool:
    """Token ``k`` is in the argument of an assertion (`assert(warpSize == warp_size)`): it
    states the code's premise, it does not work in hardware warps (GenomeWorks' aligners, whose
    32-thread blocks are consistent 32-lane code, round 31)."""
    toks = unit.tokens
    j = enclosing_paren(toks, k, max(k - 32, 0))
    return j is not None and toks[j - 1].text.lower().endswith("assert")


def shuffle_width(unit: Unit, call: Call) -> int | None:
    """The width argument of the shuffle ``call``: 64 where it names the hardware wavefront
    (itself, or as the default of the parameter it passes on, unless every call of the
    helper gives that parameter), else its value where the file fixes one, else None."""
    w = SHUFFLES[call.name]
    if len(call.args) <= w:
        return None
    a, b = call.args[w]
    if any(hardware_name(unit, k) for k in range(a, b)):
        return 64
    default = _parameter_default(unit, a, b)
    if default is not None:
        a, b = default
        if any(hardware_name(unit, k) for k in range(a, b)):
            func = function_at(unit, call.index)
            return None if func is not None and passed_by_every_call(unit, func, a) else 64
    return evaluate(unit, a, b)


def _parameter_default(unit: Unit, a: int, b: int) -> tuple[int, int] | None:
    """The default value of the parameter that ``tokens[a:b]`` names, in the function around
    it (`shfl_xor(T v, int mask, int width = WARP_SIZE)` passing `width` on), or in another
    declaration of the function where this one gives none: an explicit specialisation takes
    its primary template's defaults (cuda-kernel-study's `shuffle_kernel<c10::Half>`, round
    44: a false HZ107)."""
    toks = unit.tokens
    func = function_at(unit, a)
    if func is None or b - a != 1 or toks[a].kind is not Kind.IDENT:
        return None
    place = next(
        (
            n
            for n, (lo, hi) in enumerate(split(toks, func.params[0] + 1, func.params[1]))
            if any(toks[k].text == toks[a].text for k in range(lo, hi))
        ),
        None,
    )
    if place is None:
        return None  # not a parameter
    others = (f for f in functions(unit) if f.name == func.name and f.open != func.open)
    for f in (func, *others):
        params = split(toks, f.params[0] + 1, f.params[1])
        if place < len(params):
            lo, hi = params[place]
            equals = next((k for k in range(lo, hi) if toks[k].text == "="), None)
            if equals is not None:
                return equals + 1, hi
    return None


def passed_by_every_call(unit: Unit, func: Func, k: int) -> bool:
    """Token ``k`` lies in the default value of a parameter of ``func`` (`int width =
    warpSize`) that every call of ``func`` in the file passes, and there is one: the callers
    choose the width, so the default says nothing of the helper's lanes (PyTorch-Encoding's and
    inplace_abn's `WARP_SHFL_XOR(val, 1 << i, WARP_SIZE)` in 32-lane group sums, round 34)."""
    lo, hi = func.params
    if not lo < k < hi:
        return False
    place = next((n for n, (a, b) in enumerate(split(unit.tokens, lo + 1, hi)) if a <= k < b), None)
    found = [c for c in calls(unit, (func.name,)) if c.index != func.name_index]
    return place is not None and bool(found) and all(len(c.args) > place for c in found)
