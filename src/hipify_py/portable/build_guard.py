"""Build files in portable mode: the forked conversion's edits, each behind a vendor switch.

A build system's portable pass (``cmake``, ``make``, ``setup_py`` here) runs the normal passes
of its file kind (``build:<kind>``), so everything they know (languages, flags, libraries,
packages) is reused; it then writes each piece of the file they touch twice, the converted
text for a ROCm build and the original for CUDA, behind the switch its build system offers
(``if(USE_HIP)``, ``ifeq ($(HIP),1)``, ``torch.version.hip``).  The CUDA build reads the file's
original text.  Pieces already behind the switch are left alone: a second run changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..buildfiles.unit import BuildFile
from ..context import Context
from ..edits import Edit, apply_edits
from ..findings import Finding
from ..rules import passes

RULE = "build/portable"
Span = tuple[int, int]


def fork_proposals(unit: BuildFile, ctx: Context) -> tuple[list[Edit], list[Finding]]:
    """What converting the file to a HIP-only build would do."""
    edits: list[Edit] = []
    findings: list[Finding] = []
    for rule_pass in passes(f"build:{unit.kind}"):
        for proposal in rule_pass.check(unit, ctx):
            if isinstance(proposal, Edit):
                edits.append(proposal)
            else:
                findings.append(proposal)
    return edits, findings


def inside(offset: int, spans: Iterable[Span]) -> bool:
    return any(s <= offset < e for s, e in spans)


def guarded(
    text: str,
    edits: list[Edit],
    span_of: Callable[[Edit], Span | None],
    block: Callable[[Span, str, str], str],
) -> list[Edit]:
    """One edit per piece of ``text`` the ``edits`` touch (``span_of``; None drops the edit):
    the piece replaced by ``block(span, converted piece, original piece)``.  Pieces that
    overlap or touch are joined first, so each line is written twice once."""
    groups: dict[Span, list[Edit]] = {}
    for e in edits:
        span = span_of(e)
        if span is not None:
            groups.setdefault(span, []).append(e)
    merged: list[tuple[Span, list[Edit]]] = []
    for span in sorted(groups):
        if merged and span[0] <= merged[-1][0][1]:  # adjacent pieces: one block
            (start, end), group = merged[-1]
            merged[-1] = ((start, max(end, span[1])), group + groups[span])
        else:
            merged.append((span, list(groups[span])))
    out = []
    for (start, end), group in merged:
        shifted = [Edit(e.start - start, e.end - start, e.text, e.rule) for e in group]
        new = apply_edits(text[start:end], shifted).text
        out.append(Edit(start, end, block((start, end), new, text[start:end]), RULE))
    return out


def line_span(text: str, start: int, end: int) -> Span:
    """Whole lines around [start, end], the last line's break included."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", max(end - 1, start))
    return first, (len(text) if last < 0 else last + 1)


def indent_at(text: str, offset: int) -> str:
    first = text.rfind("\n", 0, offset) + 1
    line = text[first:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"
