"""Where a verify result points a person: the CUDA line when the error maps back, else the HIP
one, as a path relative to the working directory.  Shared by the text report and the machine
formats (``report.py``, ``formats.py``)."""

from __future__ import annotations

import os

from . import FileReport
from .compile import Diagnostic


def shown_path(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("../../") else rel


def location(f: FileReport, d: Diagnostic) -> tuple[str, int, int]:
    """Where a person fixes ``d``: its CUDA position when mapped, else the HIP one."""
    if d.cuda and d.cuda.get("path"):
        return (
            shown_path(d.cuda["path"]),
            int(d.cuda["line"]),
            max(1, int(d.cuda.get("column") or 1)),
        )
    if d.anchor:
        return shown_path(f.path), d.anchor[0], d.anchor[1]
    if d.file and d.line:
        return shown_path(d.file), d.line, max(1, d.column or 1)
    return shown_path(f.path), 1, 1
