"""Build files converted in the same edit pipeline as sources: one module per build system.

``cmake.py``, ``make.py`` and ``setuptools_ext.py`` each register rewrite passes for their file
kind (phase ``build:<kind>``); they propose Edits and Findings like source rules do, so the
dry-run diff, the summary and ``check`` treat a CMakeLists.txt like any converted file.
"""

from __future__ import annotations

import re
from pathlib import Path

_MAKEFILE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
# a build file is converted only when it says something about CUDA
_CUDA_MARKER = re.compile(rb"cuda|nvcc|\.cu\b|sm_\d|CUDAExtension", re.IGNORECASE)


def build_kind(path: Path, head: bytes) -> str | None:
    """``cmake``, ``make`` or ``setuptools`` for a build file that mentions CUDA, else None."""
    name = path.name
    if name == "CMakeLists.txt" or path.suffix == ".cmake":
        kind = "cmake"
    elif name in _MAKEFILE_NAMES or path.suffix == ".mk" or name.startswith("Makefile."):
        kind = "make"
    elif name == "setup.py" and b"cpp_extension" in head:
        kind = "setuptools"
    else:
        return None
    return kind if _CUDA_MARKER.search(head) else None
