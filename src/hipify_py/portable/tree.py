"""Write ``hip_compat.h`` beside every portable source that includes it, after a run."""

from __future__ import annotations

from pathlib import Path

from ..context import Context
from .compat_header import NAME, compat_header, early_headers, tests_rocm_switch, used_names

_SUFFIXES = frozenset(
    {".cu", ".cuh", ".hu", ".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".cxx", ".inl"}
)
_INCLUDE = f'#include "{NAME}"'


def write_compat_headers(roots: list[Path], ctx: Context) -> list[Path]:
    """The project's header (names from every source under ``roots``) written into each
    directory whose sources include it; returns the headers that changed."""
    sources = [
        p
        for root in roots
        for p in (sorted(root.rglob("*")) if root.is_dir() else [root])
        if p.suffix in _SUFFIXES and p.name != NAME and p.is_file()
    ]
    names: dict[str, str] = {}
    headers: set[str] = set()
    rocm_switch = False
    dirs: set[Path] = set()
    for path in sources:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if _INCLUDE in text:
            dirs.add(path.parent)
        names.update(used_names(text, str(path), ctx))
        headers |= early_headers(text, ctx)
        rocm_switch = rocm_switch or tests_rocm_switch(text)
    header = compat_header(names, headers, rocm_switch)
    written = []
    for d in sorted(dirs):
        target = d / NAME
        if not target.exists() or target.read_text(encoding="utf-8") != header:
            target.write_text(header, encoding="utf-8")
            written.append(target)
    return written
