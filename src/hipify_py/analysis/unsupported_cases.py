"""``case`` groups labelled only by CUDA enum values HIP does not have.

An error-string helper (``helper_cuda.h``'s ``_cudaGetErrorEnum(cufftResult)``) lists every
status code of a library; the HIP library lacks a few (``CUFFT_MISSING_DEPENDENCY``,
``CUSOLVER_STATUS_INVALID_LICENSE``), so the converted switch names undeclared enumerators.  A
HIP function never returns a value HIP has no enumerator for, so such a case cannot be taken
on AMD.  A group qualifies when every label is such a name, nothing falls into it (it opens the
switch or follows a ``return``/``break``), it ends in a ``return``/``break``, and it covers
whole lines with no preprocessor directive inside; the rewrite pass puts it under
``#if !defined(__HIP_PLATFORM_AMD__)`` and HZ300 leaves its names alone.  So does a single
label of such a name on a line of its own beside another label of its group (cuda_force's
`case cudaErrorHardwareStackError:` among the sticky errors, compile round 45: 7 TUs): the
group's statements stay reachable through the others, as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..context import Context
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..mappings import is_convertible
from .tokens import cached, match, match_back

_EXITS = frozenset({"return", "break"})


@dataclass(frozen=True)
class CaseGroup:
    """Token range [first, end) of one group (its labels and statements), or of consecutive
    groups."""

    first: int
    end: int


def unsupported_case_groups(unit: Unit, ctx: Context) -> list[CaseGroup]:
    """The qualifying groups of the file, in order (computed once per file)."""
    return cached(unit, "_unsupported_case_groups", lambda: _groups(unit, ctx))


def _groups(unit: Unit, ctx: Context) -> list[CaseGroup]:
    toks = unit.tokens
    positions = unit.identifier_positions
    if "case" not in positions:
        return []
    missing = {
        i
        for name, e in unit.mapped.items()
        if e.kind == "enum" and e.status in ("unsupported", "removed")
        if not is_convertible(e, ctx.options)
        for i in positions[name]
    }
    if not missing:
        return []
    inactive = inactive_in(unit)
    out: list[CaseGroup] = []
    for c in positions["case"]:
        if out and c < out[-1].end or toks[c].start in inactive:
            continue
        group = _group_at(toks, c, missing)
        if group is None or not _no_fall_in(toks, c):
            group = _label_beside_labels(toks, c, missing)
        if group is None or not _whole_lines(unit, group):
            continue
        if out and out[-1].end == group.first:  # consecutive groups share one guard
            group = CaseGroup(out.pop().first, group.end)
        out.append(group)
    return out


def _group_at(toks: Sequence[Token], c: int, missing: set[int]) -> CaseGroup | None:
    """The group whose first label is at ``c``: labels all missing, statements ending in an
    exit; None otherwise."""
    i = c
    while i < len(toks) and toks[i].text == "case":
        if not (i + 2 < len(toks) and i + 1 in missing and toks[i + 2].text == ":"):
            return None
        i += 3
    end = _next_label(toks, i)
    if end is None or end == i or not _ends_in_exit(toks, i, end):
        return None
    return CaseGroup(c, end)


def _label_beside_labels(toks: Sequence[Token], c: int, missing: set[int]) -> CaseGroup | None:
    """The label at ``c`` alone, where it names a missing value and another label of its group
    comes right before or after it (`case A: case X:` or `case X: case A:`); None otherwise."""
    if not (c + 3 < len(toks) and c + 1 in missing and toks[c + 2].text == ":"):
        return None
    after = toks[c + 3].text in ("case", "default")
    before = c > 0 and toks[c - 1].text == ":" and _labels_at(toks, c - 1)
    return CaseGroup(c, c + 3) if after or before else None


def _labels_at(toks: Sequence[Token], colon: int) -> bool:
    """The ``:`` at ``colon`` ends a `case X:` or `default:` label."""
    return toks[colon - 1].text == "default" or colon > 1 and toks[colon - 2].text == "case"


def _next_label(toks: Sequence[Token], i: int) -> int | None:
    """The next ``case``/``default`` of this switch, or its closing brace."""
    while i < len(toks):
        t = toks[i]
        if t.kind is Kind.DIRECTIVE or t.in_directive:
            return None
        if t.text in ("case", "default", "}"):
            return i
        if t.text in ("(", "[", "{"):
            close = match(toks, i)
            if close is None:
                return None
            i = close
        i += 1
    return None


def _ends_in_exit(toks: Sequence[Token], first: int, end: int) -> bool:
    """The last statement of tokens[first:end) is ``return ...;`` or ``break;``."""
    if toks[end - 1].text != ";":
        return False
    j = end - 2
    while j >= first and toks[j].text not in (";", ":", "{", "}"):
        if toks[j].text in (")", "]"):
            opened = match_back(toks, j)
            if opened is None:
                return False
            j = opened
        j -= 1
    return toks[j + 1].text in _EXITS


def _no_fall_in(toks: Sequence[Token], c: int) -> bool:
    """Nothing runs into the group: it opens the switch body or follows an exit."""
    before = toks[c - 1].text if c > 0 else ""
    if before == "{":
        return True
    if before != ";":
        return False
    j = c - 2
    while j >= 0 and toks[j].text not in (";", ":", "{", "}"):
        j -= 1
    return toks[j + 1].text in _EXITS


def _whole_lines(unit: Unit, group: CaseGroup) -> bool:
    """Only blanks precede the first label and the next label on their lines."""
    text, toks = unit.text, unit.tokens
    for i in (group.first, group.end):
        start = toks[i].start
        if text[unit.lines.line_start(start) : start].strip():
            return False
    return True
