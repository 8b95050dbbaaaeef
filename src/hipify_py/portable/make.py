"""Makefiles in portable mode: ``make`` builds with nvcc as before, ``make HIP=1`` with hipcc.

Every logical line the Makefile conversion changes (the compiler, nvcc flags, CUDA paths and
libraries) is written as ``ifeq ($(HIP),1)`` converted ``else`` original ``endif``.  GNU make
reads conditionals between a rule's recipe lines too, so a recipe line is guarded the same
way.  Edits on a conditional's own line, or inside a ``define`` (whose body make does not
parse), are left out: those lines stay CUDA's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..buildfiles.make import _lines
from ..buildfiles.unit import BUILD_EDITS, BuildFile
from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .build_guard import Span, fork_proposals, guarded, inside, line_span, newline

SWITCH = "ifeq ($(HIP),1)"
_OPEN = re.compile(r"^[ ]*(ifeq|ifneq|ifdef|ifndef)\b")
_ELSE_END = re.compile(r"^[ ]*(else|endif)\b")
_DEFINE = re.compile(r"^[ ]*(?:(?:override|export)\s+)*define\b")
_ENDEF = re.compile(r"^[ ]*endef\b")
_TESTS_SWITCH = re.compile(r"\$[({]HIP[)}]|\bifn?def\s+HIP\b")


@build_pass("portable-make", "portable-make", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    edits, findings = fork_proposals(unit, ctx)
    yield from findings
    text, nl = unit.text, newline(unit.text)
    lines = list(_lines(unit))
    skipped = _skipped(text, lines)

    def span_of(e: Edit) -> Span | None:
        if inside(e.start, skipped):
            return None
        start, end = next(((s, t) for s, t in lines if s <= e.start <= t), (e.start, e.end))
        return line_span(text, start, end)

    def block(span: Span, new: str, old: str) -> str:
        end = nl if old.endswith("\n") else ""
        new, old = (s if s.endswith("\n") else s + nl for s in (new, old))
        return f"{SWITCH}  # hipify-py --portable{nl}{new}else{nl}{old}endif{end}"

    yield from guarded(text, edits, span_of, block)


def _skipped(text: str, lines: list[Span]) -> list[Span]:
    """Where no edit goes: blocks testing ``HIP`` (an earlier portable run's), conditional
    lines themselves, and ``define`` bodies."""
    out: list[Span] = []
    stack: list[tuple[int, bool]] = []
    define: int | None = None
    for start, end in lines:
        line = text[start:end]
        if define is not None:
            if _ENDEF.match(line):
                out.append((define, end + 1))
                define = None
            continue
        if _DEFINE.match(line):
            define = start
        elif _OPEN.match(line):
            stack.append((start, bool(_TESTS_SWITCH.search(line))))
            out.append((start, end + 1))
        elif _ELSE_END.match(line):
            out.append((start, end + 1))
            if line.lstrip().startswith("endif") and stack:
                opened, vendor = stack.pop()
                if vendor:
                    out.append((opened, end + 1))
    return out
