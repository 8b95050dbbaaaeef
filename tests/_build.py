"""Helpers for build-file tests: run a build system's passes on a string."""

from __future__ import annotations

from pathlib import Path

from _convert import ctx
from hipify_py.buildfiles.registry import build_systems
from hipify_py.context import Context, Renames
from hipify_py.pipeline import FileResult, convert_build_text

# each build system's usual file name, as its module declares it
NAMES = {system.kind: system.names[0] for system in build_systems()}


def build_result(
    kind: str, text: str, *, root: Path = Path("/proj"), renamed=None, **options
) -> FileResult:
    """``renamed``: paths (relative to ``root``) of the .cu files the run renames; None means
    no tree is known (every .cu name is renamed)."""
    context = ctx(**options)
    if renamed is not None:
        files = frozenset(str((root / r).resolve()) for r in renamed)
        context = Context(context.options, context.mappings, Renames(files))
    result = convert_build_text(text, str(root / NAMES[kind]), context, kind)
    assert result.error is None, result.error
    return result


def converted(kind: str, text: str, **kw) -> str:
    """The converted text; also asserts that converting it again changes nothing."""
    out = build_result(kind, text, **kw).text
    assert build_result(kind, out, **kw).text == out, "conversion is not idempotent"
    return out


def rules(kind: str, text: str, **kw) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in build_result(kind, text, **kw).findings]
