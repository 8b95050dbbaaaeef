"""``#ifdef __CUDA_ARCH__`` asks "is this the device pass?"; HIP has an exact answer.

hip-clang never defines ``__CUDA_ARCH__``, so a device/host split left alone takes the host
branch in the AMD device pass too: ``#ifdef __CUDA_ARCH__ #include <math_constants.h>`` leaves
device code without its constants, ``#ifndef __CUDA_ARCH__ throw ...`` puts host-only code in
kernels.  hip-clang predefines ``__HIP_DEVICE_COMPILE__`` in the device pass; on HIP's NVIDIA
platform ``hip_common.h`` defines it from ``__CUDA_ARCH__``, but only once a HIP header is
included.  So a directive whose every ``__CUDA_ARCH__`` is a defined-test becomes a test of
either name, true in the device pass on both platforms whatever came before it:

    #ifdef __CUDA_ARCH__   ->  #if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
    #ifndef __CUDA_ARCH__  ->  #if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
    #if defined(__CUDA_ARCH__) && X
                           ->  #if (defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)) && X

A line that also compares ``__CUDA_ARCH__`` with a number is a capability gate, left to HZ501;
a line that already names ``__HIP_DEVICE_COMPILE__`` was written for HIP (or converted before).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from ..analysis.tokens import cached
from ..context import Context
from ..edits import Edit
from ..frontend.directives import defined_span
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "device-pass-guard"
ARCH = "__CUDA_ARCH__"
DEVICE = "__HIP_DEVICE_COMPILE__"
_EITHER = f"defined({DEVICE}) || defined({ARCH})"
_NEITHER = f"!defined({DEVICE}) && !defined({ARCH})"


def device_pass_edits(unit: Unit) -> dict[int, Edit]:
    """The edit for each ``__CUDA_ARCH__`` token (by index) that only asks for the device
    pass (shared with HZ501, which leaves those lines)."""
    return cached(unit, "_device_pass_edits", lambda: _edits(unit))


def _edits(unit: Unit) -> dict[int, Edit]:
    if ARCH not in unit.identifiers:
        return {}
    toks, dirs = unit.tokens, unit.directives
    by_line: dict[int, list[int]] = {}
    for i in unit.identifier_positions[ARCH]:
        if toks[i].in_directive:
            by_line.setdefault(dirs[bisect.bisect_right(dirs, i) - 1], []).append(i)
    out: dict[int, Edit] = {}
    for hash_at, uses in by_line.items():
        out.update(_line_edits(unit, hash_at, uses))
    return out


def _line_edits(unit: Unit, hash_at: int, uses: list[int]) -> dict[int, Edit]:
    """The edits of one directive line (its '#' at ``hash_at``), none unless every use of
    ``__CUDA_ARCH__`` on it is a defined-test."""
    toks = unit.tokens
    word = unit.directive_word(hash_at)
    end = hash_at + 1
    while end < len(toks) and toks[end].in_directive and toks[end].text != "#":
        end += 1
    if any(t.text == DEVICE for t in toks[hash_at:end]):
        return {}  # written for HIP already
    if word in ("ifdef", "ifndef") and uses == [hash_at + 2] and end == hash_at + 3:
        test = _EITHER if word == "ifdef" else _NEITHER
        return {uses[0]: Edit(toks[hash_at + 1].start, toks[uses[0]].end, f"if {test}", RULE)}
    if word not in ("if", "elif"):
        return {}
    tests = {i: span for i in uses if (span := defined_span(toks, i)) is not None}
    if len(tests) < len(uses):
        return {}  # a comparison too: a capability gate
    return {i: Edit(a, b, f"({_EITHER})", RULE) for i, (a, b) in tests.items()}


@rewrite_pass(
    "device-pass-guards",
    order=8,
    tallies=(Tally(RULE, "device_pass_tests_rewritten", "__CUDA_ARCH__ device-pass tests"),),
)
def device_pass_guards(unit: Unit, ctx: Context) -> Iterator[Edit]:
    yield from device_pass_edits(unit).values()
