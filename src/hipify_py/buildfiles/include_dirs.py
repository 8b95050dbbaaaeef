"""The include directories a CMakeLists.txt or a Makefile names, read with the same parsers the
build-file passes use (CMake commands with their quoting and comments, make's comments).

``verify`` reads them to find a converted project's headers the way its own build would.
Directories named through a variable other than the source directory are not knowable without
running the build system and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from .cmake_commands import commands
from .unit import BuildFile

_CMAKE_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"})
_CMAKE_ROOTS = (
    "${CMAKE_CURRENT_SOURCE_DIR}",
    "${CMAKE_CURRENT_LIST_DIR}",
    "${PROJECT_SOURCE_DIR}",
    "${CMAKE_SOURCE_DIR}",
)
_MAKE_DIRS = re.compile(r"(?<![\w-])-I\s*([^\s$()]+)")


def cmake_include_dirs(unit: BuildFile) -> list[Path]:
    """Directories of ``include_directories`` / ``target_include_directories``."""
    out: list[Path] = []
    for cmd in commands(unit):
        if cmd.name not in ("include_directories", "target_include_directories"):
            continue
        args = cmd.args[1:] if cmd.name == "target_include_directories" else cmd.args
        for arg in args:
            text = arg.text
            if text in _CMAKE_KEYWORDS:
                continue
            for root in _CMAKE_ROOTS:
                if text.startswith(root):
                    text = text[len(root) :].lstrip("/") or "."
                    break
            if "$" in text:
                continue  # another variable: not knowable without running CMake
            out.append((unit.base_dir / text).resolve())
    return out


def make_include_dirs(unit: BuildFile) -> list[Path]:
    """Directories of the ``-I`` flags outside comments."""
    return [
        (unit.base_dir / m.group(1)).resolve()
        for m in _MAKE_DIRS.finditer(unit.text)
        if not unit.in_comment(m.start())
    ]
