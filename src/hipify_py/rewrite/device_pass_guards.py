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
a line that already names ``__HIP_DEVICE_COMPILE__`` or ``__HIP__`` was written for HIP (or
converted before), and so is every line of a file that tests HIP's compiler macros itself
(``conditions.tests_hip_compiler``): MMseqs2's libmarv, which hipcc builds, keeps its
`#ifdef __CUDA_ARCH__` SIMD intrinsics (`__vminu4`) from HIP's device pass (compile round 35).

A test whose device branch only defines a function or variable decoration (InfiniTAM's
``#if defined(__CUDACC__) && defined(__CUDA_ARCH__)`` / ``#define _CPU_AND_GPU_CODE_
__device__`` / ``#else`` / ``#define _CPU_AND_GPU_CODE_``) cannot be split by pass on HIP:
nvcc never checks a kernel's body in its host pass, hip-clang does, and finds a host function
where the kernel calls it ("no matching function", issue 23 round 29).  There the test asks
for any HIP compilation (``__HIP__``, both passes) and ``__device__`` becomes ``__host__
__device__``, callable from the kernels and the host code of the file alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.tokens import cached
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import tests_hip_compiler
from ..frontend.directives import (
    ARCH,
    Line,
    branch_bounds,
    defined_span,
    device_pass_test,
    lines,
)
from ..frontend.lexer import Token
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "device-pass-guard"
DEVICE = "__HIP_DEVICE_COMPILE__"
_EITHER = f"defined({DEVICE}) || defined({ARCH})"
_NEITHER = f"!defined({DEVICE}) && !defined({ARCH})"
# any HIP compilation, both passes (clang defines __HIP__ for HIP sources), or nvcc's device pass
_ANY_HIP = f"defined(__HIP__) || defined({ARCH})"


def device_pass_edits(unit: Unit) -> dict[int, Edit]:
    """The edit for each ``__CUDA_ARCH__`` token (by index) that only asks for the device
    pass (shared with HZ501, which leaves those lines)."""
    return cached(unit, "_device_pass_edits", lambda: _edits(unit))


def _edits(unit: Unit) -> dict[int, Edit]:
    if ARCH not in unit.identifiers or tests_hip_compiler(unit):
        return {}
    toks = unit.tokens
    out: dict[int, Edit] = {}
    found = lines(toks, unit.directives)
    # tokens of #if/#elif lines: a comparison there reads 0 on HIP, no undeclared name
    conditions = {k for ln in found if ln.word in ("if", "elif") for k in range(ln.at, ln.after)}
    for n, line in enumerate(found):
        if device_pass_test(line.word, line.body) and not {DEVICE, "__HIP__"} & {
            t.text for t in line.body
        }:
            decoration = _decoration(toks, found, n)
            if decoration is not None:
                out.update(_line_edits(toks, line, _ANY_HIP))
                out.update(decoration)
            elif not _device_branch_reads_arch(
                toks, found, n, conditions
            ) and not _defines_a_default(found, n):
                out.update(_line_edits(toks, line))  # (a line naming either is HIP's already)
    return out


# what a macro that decorates functions or variables may expand to
_DECORATIONS = frozenset({"__device__", "__host__", "__constant__", "inline", "__forceinline__"})
_DEVICE_ONLY = frozenset({"__device__", "__constant__"})


def _decoration(toks: Sequence[Token], found: list[Line], n: int) -> dict[int, Edit] | None:
    """The edits of a device-pass test at line ``n`` whose branches only define the same
    macros, in the same order, as device decorations in the device pass (`__device__`,
    `__constant__`, `__host__`) and as none in the other (``_ANY_HIP``): OWL's and
    cudaKDTree's `__owl_device` / `__owl_host`, of which `__both__` is made (issue 23 round
    35); `__device__` alone becomes `__host__ __device__`; None for any other test (a
    negated one included)."""
    bounds, negated = _branches(found, n)
    if negated or len(bounds) != 3 or found[bounds[1]].word != "else":
        return None
    device, other = found[n + 1 : bounds[1]], found[bounds[1] + 1 : bounds[2]]
    if not device or len(device) != len(other):
        return None
    if any(ln.word != "define" or not ln.body for ln in (*device, *other)):
        return None
    if [ln.body[0].text for ln in device] != [ln.body[0].text for ln in other]:
        return None
    bodies = [[t.text for t in ln.body[1:]] for ln in device]
    rest = {t.text for ln in other for t in ln.body[1:]}
    if not all(body and set(body) <= _DECORATIONS for body in bodies):
        return None
    if not _DEVICE_ONLY & {w for body in bodies for w in body}:
        return None
    if rest & (_DEVICE_ONLY | {"__host__"}):
        return None
    out = {}
    for ln, body in zip(device, bodies, strict=True):
        if body == ["__device__"]:  # keyed by its token, as the tests' edits are by theirs
            at = ln.at + 3
            out[at] = Edit(toks[at].start, toks[at].end, "__host__ __device__", RULE)
    return out


def _device_branch_reads_arch(
    toks: Sequence[Token], found: list[Line], n: int, conditions: set[int]
) -> bool:
    """The branch the device pass takes at line ``n`` (after `#ifdef __CUDA_ARCH__`, the
    `#else` of `#ifndef`) uses ``__CUDA_ARCH__`` as a value, in code or a `#define` body
    (candle's `#define NO_DEVICE_CODE no_device_code(..., __CUDA_ARCH__, ...)`): HIP's device
    pass would compile an undeclared name, so the test is left for HZ501 to report."""
    bounds, negated = _branches(found, n)
    if negated and len(bounds) > 2 and found[bounds[1]].word == "else":
        first, last = found[bounds[1]].after, found[bounds[2]].at
    elif not negated and len(bounds) > 1:
        first, last = found[n].after, found[bounds[1]].at
    else:
        return False
    return any(
        toks[k].text == ARCH and k not in conditions and defined_span(toks, k) is None
        for k in range(first, last)
    )


def _defines_a_default(found: list[Line], n: int) -> bool:
    """Line ``n`` is `#ifndef __CUDA_ARCH__` (or `!defined`) whose branch `#define`s the name:
    a default for code that reads it as a value (mfaktc's `#define __CUDA_ARCH__ 0` for its
    `RES[0] = __CUDA_ARCH__` kernel, compile round 34), not a split by pass.  Left alone, HIP
    gets the default in both passes; tested by pass, its device pass reads an undeclared name."""
    bounds, negated = _branches(found, n)
    if not negated or len(bounds) < 2:
        return False
    return any(
        found[k].word == "define" and found[k].body and found[k].body[0].text == ARCH
        for k in range(n + 1, bounds[1])
    )


def _branches(found: list[Line], n: int) -> tuple[list[int], bool]:
    """The directive positions of the conditional at line ``n`` (``branch_bounds``), and
    whether its test is negated (`#ifndef`, a `!`): then the device pass takes its `#else`."""
    line = found[n]
    negated = line.word == "ifndef" or any(t.text == "!" for t in line.body)
    return branch_bounds(lambda k: found[k].word, n, len(found)), negated


def _line_edits(toks: Sequence[Token], line: Line, either: str = _EITHER) -> dict[int, Edit]:
    """The edits of one device-pass test: ``#ifdef``/``#ifndef`` becomes an ``#if`` of
    ``either`` (or neither) name, each ``defined(__CUDA_ARCH__)`` of an ``#if``/``#elif`` a
    test of either."""
    first = line.at + 2  # the body's first token
    if line.word in ("ifdef", "ifndef"):
        test = either if line.word == "ifdef" else _NEITHER
        return {first: Edit(toks[line.at + 1].start, toks[first].end, f"if {test}", RULE)}
    out = {}
    for i in range(first, first + len(line.body)):
        span = defined_span(toks, i) if toks[i].text == ARCH else None
        if span is not None:
            out[i] = Edit(span[0], span[1], f"({either})", RULE)
    return out


@rewrite_pass(
    "device-pass-guards",
    order=8,
    tallies=(Tally(RULE, "device_pass_tests_rewritten", "__CUDA_ARCH__ device-pass tests"),),
)
def device_pass_guards(unit: Unit, ctx: Context) -> Iterator[Edit]:
    yield from device_pass_edits(unit).values()
