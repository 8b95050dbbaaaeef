"""What a 32-bit lane mask written in a call means on a 64-lane wavefront: CUDA's full mask
written as a cast (`uint32_t(-1)`), and a segment mask, a partial mask that names the first
segment of its shuffle's width on a shuffle every lane runs; both are the full mask
(``warp_mask_64`` converts them, HZ106 counts them fixed)."""

from __future__ import annotations

from ..frontend.unit import Unit
from .calls import SHUFFLES, Call
from .functions import enclosing_conditions, function_at
from .values import int_value


def segment_mask(unit: Unit, call: Call, value: int) -> bool:
    """The partial mask ``value`` of the shuffle ``call`` names the first
    segment of the shuffle's own width (`__shfl_down_sync(0x0000ffff, v, 8, 16)`: lanes 0-15,
    width 16), and every lane of its function runs the call (no condition around it, no
    `return` before it): the segmented reduction of TNN's kernels (round 19).  Every lane
    takes part, each in its own segment, so the mask CUDA tolerates is HIP's full mask:
    HIP's `_sync` builtins check that the mask names the lanes that run the call, and trap
    on a partial one (in a build without NDEBUG)."""
    if len(call.args) <= SHUFFLES[call.name]:
        return False
    a, b = call.args[SHUFFLES[call.name]]
    width = int_value(unit.tokens[a].text) if b == a + 1 else None
    if width is None or width >= 32 or value != (1 << width) - 1:
        return False
    func = function_at(unit, call.index)
    return (
        func is not None
        and not enclosing_conditions(unit, call.index, func)
        and all(t.text != "return" for t in unit.tokens[func.open + 1 : call.index])
    )


_TYPE32 = frozenset({"uint32_t", "unsigned", "uint", "int32_t", "int", "unsigned int"})
_ALL_ONES32 = (["-", "1"], ["~", "0"], ["~", "0u"], ["~", "0U"], ["0xffffffff"], ["0xffffffffu"])


def cast_of_all_ones(texts: list[str]) -> bool:
    """`uint32_t(-1)`, `static_cast<unsigned>(~0)`, `(unsigned)-1`, `~uint32_t(0)`: every bit
    of a 32-bit type, CUDA's full mask written as a cast."""
    if texts[:1] == ["~"]:
        return _cast_of(texts[1:], [["0"], ["0u"], ["0U"]])
    return _cast_of(texts, [list(x) for x in _ALL_ONES32])


def _cast_of(texts: list[str], values: list[list[str]]) -> bool:
    """``texts`` casts one of ``values`` to a 32-bit type."""
    inner: list[str] | None = None
    if len(texts) >= 4 and texts[0] == "static_cast" and texts[1] == "<" and ">" in texts:
        close = texts.index(">")
        if " ".join(texts[2:close]) in _TYPE32 and texts[close + 1] == "(" and texts[-1] == ")":
            inner = texts[close + 2 : -1]
    elif texts and texts[0] == "(" and ")" in texts:
        close = texts.index(")")
        if " ".join(texts[1:close]) in _TYPE32:
            inner = texts[close + 1 :]
    elif "(" in texts and texts[-1] == ")":
        open_ = texts.index("(")
        if " ".join(texts[:open_]) in _TYPE32:
            inner = texts[open_ + 1 : -1]
    while inner and inner[0] == "(" and inner[-1] == ")":
        inner = inner[1:-1]
    return inner is not None and inner in values
