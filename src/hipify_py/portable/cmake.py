"""CMake in portable mode: ``cmake -DUSE_HIP=ON`` builds with CMake's HIP language for ROCm,
the default builds with CUDA as before.

Every command the CMake conversion changes (``project(... CUDA)``, ``CMAKE_CUDA_*``,
``find_package(CUDAToolkit)``, ``CUDA::`` targets, nvcc flags, the ``LANGUAGE HIP`` of kept
``.cu`` sources) is written as ``if(USE_HIP)`` converted ``else()`` original ``endif()``;
an edited ``if()``/``elseif()``/``while()`` condition becomes ``(USE_HIP AND (new)) OR (NOT
USE_HIP AND (old))``.  The file holding ``project()`` declares the option just before it;
subdirectories read the same cache variable.  An edit on another block command (``foreach``,
``function``) has no place to go and is left out: that line stays CUDA's.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..buildfiles.cmake_commands import Command, commands
from ..buildfiles.unit import BUILD_EDITS, BuildFile
from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .build_guard import RULE, Span, fork_proposals, guarded, indent_at, inside, line_span, newline

SWITCH = "USE_HIP"
OPTION = f'option({SWITCH} "Build for ROCm with the HIP language instead of CUDA" OFF)'
_CONDITIONS = frozenset({"if", "elseif", "while"})
_BLOCK_WORDS = frozenset(
    {"else", "endif", "endwhile", "foreach", "endforeach", "function", "endfunction", "macro",
     "endmacro", "block", "endblock"}
)  # fmt: skip


@build_pass("portable-cmake", "portable-cmake", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    edits, findings = fork_proposals(unit, ctx)
    yield from findings
    text, nl = unit.text, newline(unit.text)
    cmds = commands(unit)
    settled = _settled(cmds)
    declared = any(c.name == "option" and c.args and c.args[0].text == SWITCH for c in cmds)
    projects = [c.start for c in cmds if c.name == "project"]
    conditions: dict[int, tuple[Command, list[Edit]]] = {}

    def span_of(e: Edit) -> Span | None:
        if inside(e.start, settled):
            return None
        cmd = next((c for c in cmds if c.start <= e.start <= c.close + 1), None)
        if cmd is None:
            return line_span(text, e.start, e.end)
        if cmd.name in _CONDITIONS and e.start <= cmd.close:
            conditions.setdefault(cmd.start, (cmd, []))[1].append(e)
            return None
        if cmd.name in _BLOCK_WORDS:
            return None
        return line_span(text, cmd.start, cmd.close + 1)

    def block(span: Span, new: str, old: str) -> str:
        ind = indent_at(text, span[0] + len(old) - len(old.lstrip(" \t")))
        head = ""
        if not declared and any(span[0] <= p < span[1] for p in projects):
            head = f"{ind}{OPTION}{nl}"
        end = nl if old.endswith("\n") else ""
        new, old = (s if s.endswith("\n") else s + nl for s in (new, old))
        return (
            f"{head}{ind}if({SWITCH})  # hipify-py --portable{nl}{new}"
            f"{ind}else(){nl}{old}{ind}endif(){end}"
        )

    yield from guarded(text, edits, span_of, block)
    for cmd, group in conditions.values():
        yield _condition(text, cmd, group)


def _condition(text: str, cmd: Command, group: list[Edit]) -> Edit:
    """``if(old)`` -> ``if((USE_HIP AND (new)) OR (NOT USE_HIP AND (old)))``."""
    start, end = cmd.open + 1, cmd.close
    shifted = sorted((e for e in group), key=lambda e: e.start, reverse=True)
    new = text[start:end]
    for e in shifted:
        new = new[: e.start - start] + e.text + new[e.end - start :]
    old = text[start:end]
    cond = f"({SWITCH} AND ({new})) OR (NOT {SWITCH} AND ({old}))"
    return Edit(start, end, cond, RULE)


def _settled(cmds: list[Command]) -> list[Span]:
    """``if()`` blocks that test the switch: written by an earlier portable run (or by hand)."""
    out: list[Span] = []
    stack: list[tuple[Command, bool]] = []
    for c in cmds:
        if c.name == "if":
            stack.append((c, any(a.text == SWITCH for a in c.args)))
        elif c.name == "endif" and stack:
            opened, vendor = stack.pop()
            if vendor:
                out.append((opened.start, c.close + 1))
    return out
