"""Fold a conversion's edits back onto the CUDA text, so one file builds for both vendors.

Each edit the conversion proposed becomes one of:

- a rename (``rename/*``): dropped; ``hip_compat.h`` maps the name under HIP;
- a header edit: ``#include "hip_compat.h"``, plus a ``#if HIP_COMPAT_HIP`` choice between the
  HIP and the CUDA library header when the header is not the runtime's;
- anything else (64-bit masks, shims, fixes): the lines it touches are written twice,
  ``#if defined(__HIP_PLATFORM_AMD__)`` with the edit, ``#else`` as they were, so the CUDA
  build compiles the original text.  An edit about the HIP *API* rather than AMD hardware
  (``HIP_SYMBOL``, an argument list HIP spells differently) is needed by every HIP build, HIP
  on NVIDIA too (its ``hipMemcpyToSymbol`` takes ``const void*``): it is guarded by the compat
  header's ``HIP_COMPAT_HIP`` instead, and a line with both kinds gets an ``#elif`` for it.
  An edit on an ``#if``/``#elif`` line (a version gate) becomes one condition that picks the
  AMD or the original expression.

Code already inside a branch on ``__HIP_PLATFORM_AMD__`` or a HIP switch (``HIP_COMPAT_HIP``,
the project's own ``USE_ROCM``), or one the HIP build never compiles, is left alone: that is
what makes a second run change nothing.
"""

from __future__ import annotations

from ..edits import Edit, apply_edits
from ..frontend.conditions import inactive_in
from ..frontend.directives import CONDITIONAL_OPEN, Include, Line
from ..frontend.directives import includes as directive_includes
from ..frontend.directives import lines as directive_lines
from ..frontend.hip_build import hip_switch
from ..frontend.unit import Unit
from .build_guard import line_span
from .compat_header import HIP_SWITCH, NAME

AMD = "__HIP_PLATFORM_AMD__"
RUNTIME_HEADERS = frozenset({"hip/hip_runtime.h", "hip/hip_runtime_api.h"})
_GUARD = f"#if defined({AMD})  // hipify-py --portable"
_API_GUARD = f"#if {HIP_SWITCH}  // hipify-py --portable"
# rewrites of the HIP API's shape, which HIP's NVIDIA backend has too (rewrite/symbols.py,
# rewrite/arguments.py); every other rewrite is about AMD's hardware or its compiler
HIP_API_RULES = frozenset({"symbol", "arguments"})
_INCLUDE = f'#include "{NAME}"'


def portable_edits(unit: Unit, edits: list[Edit]) -> list[Edit]:
    """The edits that make ``unit`` portable, from the ones that would fork it to HIP."""
    text, nl = unit.text, unit.newline
    dlines = directive_lines(unit.tokens, unit.directives)
    settled = _settled_ranges(dlines, unit)
    wanted = [
        e
        for e in edits
        if not e.rule.startswith("rename/") and not any(s <= e.start < t for s, t in settled)
    ]
    has_compat = any(inc.path == NAME for inc in _includes(unit))
    out: list[Edit] = []
    guarded: dict[tuple[int, int], list[Edit]] = {}
    conditions: dict[int, tuple[Line, list[Edit]]] = {}
    headers = [e for e in wanted if e.rule == "header"]
    inserted: dict[int, list[Edit]] = {}  # whole lines inserted (shims): a block of their own
    for e in wanted:
        if e.rule == "header":
            continue
        if e.start == e.end and e.text.endswith("\n") and text[e.start - 1 : e.start] in ("", "\n"):
            inserted.setdefault(e.start, []).append(e)
            continue
        line = _directive_at(dlines, e.start)
        if line is not None and (line.word in CONDITIONAL_OPEN or line.word == "elif"):
            conditions.setdefault(line.start, (line, []))[1].append(e)
        elif line is not None:  # a #define or #pragma: the whole logical line is guarded
            guarded.setdefault(line_span(text, line.start, line.end), []).append(e)
        else:
            guarded.setdefault(line_span(text, e.start, e.end), []).append(e)
    out += _header_edits(unit, headers, has_compat, nl)
    if (guarded or conditions or inserted) and not has_compat and not out:
        at = _first_include(unit)
        out.append(Edit(at, at, _INCLUDE + nl, "portable"))
    for at, group in inserted.items():
        block = "".join(
            f"{_API_GUARD if e.rule in HIP_API_RULES else _GUARD}{nl}{e.text}#endif{nl}"
            for e in group
        )
        same = [o for o in out if o.start == o.end == at]  # the compat include: it goes first
        out = [o for o in out if o not in same]
        out.append(Edit(at, at, "".join(o.text for o in same) + block, "portable"))
    for (start, end), group in _merge(guarded).items():
        out.append(Edit(start, end, _guarded(text, start, end, group, nl), "portable"))
    for line, group in conditions.values():
        body_start = line.body[0].start if line.body else line.end
        old = text[body_start : line.end]
        new = _applied(text, body_start, line.end, group)
        cond = f"(defined({AMD}) && ({new})) || (!defined({AMD}) && ({old}))"
        out.append(Edit(body_start, line.end, cond, "portable"))
    return out


def _guarded(text: str, start: int, end: int, group: list[Edit], nl: str) -> str:
    """Lines [start, end) written once per vendor: AMD's edits, HIP's API edits, the original."""
    api = [e for e in group if e.rule in HIP_API_RULES]
    amd = _applied(text, start, end, group)
    original = f"#else{nl}{text[start:end]}#endif{nl}"
    if len(api) == len(group):
        return f"{_API_GUARD}{nl}{amd}{original}"
    if not api:
        return f"{_GUARD}{nl}{amd}{original}"
    hip = _applied(text, start, end, api)
    return f"{_GUARD}{nl}{amd}#elif {HIP_SWITCH}{nl}{hip}{original}"


def _includes(unit: Unit) -> list[Include]:
    return directive_includes(unit.text, unit.tokens, unit.directives)


def _first_include(unit: Unit) -> int:
    incs = _includes(unit)
    return incs[0].start if incs else 0


def _header_edits(unit: Unit, headers: list[Edit], has_compat: bool, nl: str) -> list[Edit]:
    """Includes of CUDA headers -> the compat header (+ the library header per vendor)."""
    out: list[Edit] = []
    compat = has_compat
    includes = _includes(unit)
    by_path = {inc.path_start: inc for inc in includes}
    by_line = {inc.start: inc for inc in includes}  # a line rewritten whole (hipblas.h's define)
    for e in sorted(headers, key=lambda e: e.start):
        inc = by_path.get(e.start) or (by_line.get(e.start) if e.start != e.end else None)
        if inc is None:  # an inserted hip_runtime.h, or a duplicate include's removal
            if e.start == e.end:
                # the C headers nvcc includes implicitly (<string.h> for memset) stay: HIP
                # needs them, and to nvcc they say what it already did
                block = "" if compat else _INCLUDE + nl
                block += "".join(f"{x}{nl}" for x in _implicit(e.text))
                if block:
                    out.append(Edit(e.start, e.end, block, "portable"))
                compat = True
            continue
        whole = e.start == inc.start
        spelled = e.text.rpartition("#include ")[2] if whole else e.text
        hip = spelled[1:-1]
        block = "" if compat else _INCLUDE + nl
        compat = True
        if hip not in RUNTIME_HEADERS:
            original = unit.text[inc.start : inc.line_end].rstrip("\r\n")
            amd = e.text if whole else f"#include {e.text}"
            block += f"#if {HIP_SWITCH}{nl}{amd}{nl}#else{nl}{original}{nl}#endif{nl}"
        end = inc.line_end
        out.append(Edit(inc.start, end, block if block else "", "portable"))
    return out


def _implicit(inserted: str) -> list[str]:
    """The include lines of a header insertion other than HIP's runtime header."""
    lines = [x.strip() for x in inserted.splitlines()]
    return [x for x in lines if x.startswith("#include <") and x[10:-1] not in RUNTIME_HEADERS]


def _settled_ranges(dlines: list[Line], unit: Unit) -> list[tuple[int, int]]:
    """Blocks that already choose a vendor (their #if names AMD's macro or a HIP switch: the
    compat header's, the project's own), and text the HIP build never compiles."""
    ranges: list[tuple[int, int]] = []
    stack: list[tuple[int, bool]] = []
    for line in dlines:
        if line.word in CONDITIONAL_OPEN:
            vendor = any(t.text == AMD or hip_switch(t.text) for t in line.body)
            stack.append((line.start, vendor))
        elif line.word == "endif" and stack:
            start, vendor = stack.pop()
            if vendor:
                ranges.append((start, line.end))
    inactive = inactive_in(unit)
    ranges += list(inactive.ranges)
    return ranges


def _directive_at(dlines: list[Line], offset: int) -> Line | None:
    for line in dlines:
        if line.start <= offset < line.end or (line.start <= offset == line.end):
            return line
    return None


def _merge(spans: dict[tuple[int, int], list[Edit]]) -> dict[tuple[int, int], list[Edit]]:
    """Overlapping line spans joined, so each line is guarded once."""
    merged: dict[tuple[int, int], list[Edit]] = {}
    cur: tuple[int, int] | None = None
    for span in sorted(spans):
        if cur is not None and span[0] < cur[1]:
            group = merged.pop(cur) + spans[span]
            cur = (cur[0], max(cur[1], span[1]))
            merged[cur] = group
        else:
            cur = span
            merged[cur] = list(spans[span])
    return merged


def _applied(text: str, start: int, end: int, edits: list[Edit]) -> str:
    """text[start:end] with ``edits`` (offsets in ``text``) applied."""
    shifted = [Edit(e.start - start, e.end - start, e.text, e.rule) for e in edits]
    return apply_edits(text[start:end], shifted).text
