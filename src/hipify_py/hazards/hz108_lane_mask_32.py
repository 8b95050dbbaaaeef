"""HZ108 lane-mask-32bit

## What it detects
Lane masks built in 32 bits: `1u << lane`, `1 << laneId`, `(1u << lane) - 1` (the "lanes below
me" mask), `1u << __lane_id()`, `0xffffffff >> (32 - lane)`, and helper functions named like a
lane mask (`lanemask_lt()`, `lane_mask_le`) that return a 32-bit type. The shift amount must
be a lane id (a name containing `lane`, or `__lane_id()`), so bitset bit indices are not
reported; nor is a lane id of a 32-lane group (`laneId = threadIdx.x & 0x1F` in the same
function), which never exceeds 31: where such code loses lanes, the cause is a truncated
ballot (HZ105) or a shuffle without width (HZ103), reported there.

## Why it breaks on AMD
A lane id on MI300X (gfx942) runs from 0 to 63. Shifting a 32-bit one by 32 or more is
undefined behaviour in C++ (on AMD the shift amount is taken modulo 32), so lanes 32-63 alias
lanes 0-31, and a 32-bit "lanes below me" mask can never cover the upper half of the wavefront.
HIP's own `__lanemask_lt()` family returns `unsigned long long`.

## Example
```cuda
unsigned below = (1u << lane) - 1;      // HZ108
int rank = __popc(ballot & below);
```

## How to fix
Use 64-bit masks: `(1ull << lane) - 1`, or HIP's `__lanemask_lt()`, and the `ll` bit
intrinsics (`__popcll`, `__ffsll`) on them. Keep a per-backend `lane_mask_t` (64-bit on AMD)
if the code also builds for CUDA.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, function_at, functions
from ..analysis.group_scan import group_lanes
from ..analysis.tokens import match, one_per_line
from ..analysis.values import int_value
from ..analysis.warp_model import constant_is_the_fix
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

# a word that is a lane: `lane`, `laneId`, `lane_id`, `myLane`, `LANE_ID` (not `plane`, `PLANE`)
_LANE = re.compile(r"(?<![A-Za-z0-9])(?:lane|Lane|LANE)|[a-z0-9]Lane")
_HELPER = re.compile(r"lane_?mask", re.I)
_NARROW = frozenset({"unsigned", "int", "uint32_t", "uint", "uint32", "u32", "int32_t"})
_WIDE = frozenset({"long", "uint64_t", "int64_t", "size_t", "u64", "lane_mask_t", "mask_t"})


def _lane_operand(toks: Sequence[Token], j: int) -> int | None:
    """End index (exclusive) of a lane-id operand starting at token j, or None."""
    if j + 1 >= len(toks):  # the file ends here (a truncated source)
        return None
    t = toks[j]
    if t.kind is not Kind.IDENT:
        if t.text == "(":
            close = match(toks, j)
            if close is not None and close == j + 2 and _LANE.search(toks[j + 1].text):
                return close + 1
        return None
    if t.text in ("__lane_id", "__laneid") and toks[j + 1].text == "(":
        close = match(toks, j + 1)
        return None if close is None else close + 1
    if (
        _LANE.search(t.text)
        and not _HELPER.search(t.text)
        and toks[j + 1].text
        not in (
            "(",
            ".",
            "->",
            "[",
            "%",
            "&",
            "/",
            "+",
            "-",
            "*",
        )
    ):
        return j + 1
    return None


_SHL = frozenset(("<<",))
_SHIFTS = frozenset(("<<", ">>"))


def _shift_sites(unit: Unit) -> Iterator[tuple[int, int]]:
    toks = unit.tokens
    for i in unit.operators_spelled(_SHL):
        if toks[i].kind is not Kind.PUNCT or i < 1:
            continue
        one = toks[i - 1]
        if one.kind is not Kind.NUMBER or int_value(one.text) != 1:
            continue
        if "ll" in one.text.lower() or _wide_cast(toks, i - 2):
            continue
        end = _lane_operand(toks, i + 1)
        if end is None:
            continue
        yield i - 1, end


def _all_ones_shift_sites(unit: Unit) -> Iterator[tuple[int, int]]:
    """`0xffffffff >> (32 - lane)` / `~0u << lane`: a 32-bit all-ones mask cut at a lane."""
    toks = unit.tokens
    for i in unit.operators_spelled(_SHIFTS):
        if toks[i].kind is not Kind.PUNCT or i < 1 or i + 1 == len(toks):
            continue
        ones = toks[i - 1]
        negated = i >= 2 and toks[i - 2].text == "~"
        full = ones.kind is Kind.NUMBER and int_value(ones.text) == 0xFFFFFFFF
        full = full or (ones.text in ("0u", "0U") and negated)
        if not full or "ll" in ones.text.lower():
            continue
        first = i - 2 if negated else i - 1
        if toks[i + 1].text == "(":
            end = match(toks, i + 1)
            if end is None:
                continue
            inner = toks[i + 2 : end]
            if any(_LANE.search(x.text) for x in inner if x.kind is Kind.IDENT):
                yield first, end + 1
        else:
            end = _lane_operand(toks, i + 1)
            if end is not None:
                yield first, end


def _wide_cast(toks: Sequence[Token], k: int) -> bool:
    """`(uint64_t)1 << lane`: the one is already 64 bits wide."""
    if k < 0 or toks[k].text != ")":
        return False
    words: set[str] = set()
    j = k - 1
    while j >= 0 and toks[j].text != "(":
        words.add(toks[j].text)
        j -= 1
    return bool(words & _WIDE)


def _helpers(unit: Unit) -> Iterator[Func]:
    toks = unit.tokens
    for func in functions(unit):
        if not _HELPER.search(func.name) or func.name.startswith("__lanemask"):
            continue
        k = func.name_index - 1
        words: set[str] = set()
        while k >= 0 and toks[k].kind is Kind.IDENT:
            words.add(toks[k].text)
            k -= 1
        if words & _NARROW and not words & _WIDE:
            yield func


def _group_relative(unit: Unit, first: int, end: int) -> bool:
    """Every lane name of the mask expression is a 32-lane group's lane id in its function,
    unless a warp-size constant HZ107 reports gives it and the function reads the hardware
    warp by it (``constant_is_the_fix``): once the constant is 64, so is the lane."""
    toks = unit.tokens
    func = function_at(unit, first)
    names = {t.text for t in toks[first:end] if t.kind is Kind.IDENT and _LANE.search(t.text)}
    return (
        func is not None
        and bool(names)
        and names <= group_lanes(unit, func)
        and not constant_is_the_fix(unit, func)
    )


@hazard_rule(
    "HZ108",
    "lane-mask-32bit",
    Severity.ERROR,
    "lane mask built in 32 bits (1u << lane, 32-bit lanemask helpers)",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not _LANE.search(unit.identifier_lines):
        return
    toks = unit.tokens
    out: list[Finding] = []
    for first, end in [*_shift_sites(unit), *_all_ones_shift_sites(unit)]:
        if _group_relative(unit, first, end):
            continue
        text = unit.text[toks[first].start : toks[end - 1].end]
        out.append(
            report(
                toks[first].start,
                toks[end - 1].end,
                f"`{text}` builds a 32-bit lane mask: lane ids reach 63 on MI300X (gfx942) "
                f"wavefronts; use `1ull << ...` and 64-bit masks",
            )
        )
    for func in _helpers(unit):
        name = toks[func.name_index]
        out.append(
            report(
                name.start,
                name.end,
                f"lane-mask helper `{func.name}` returns 32 bits: a 64-lane wavefront needs a "
                f"64-bit mask (HIP's `__lanemask_lt()` family returns unsigned long long)",
            )
        )
    out.sort(key=lambda f: f.start)
    yield from one_per_line(out, unit)
