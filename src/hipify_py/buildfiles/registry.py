"""The build systems hipify-py converts, each declared by its own module of ``buildfiles/``.

A build-system module says which files are its own (``build_system(kind, names=..., patterns=...)``)
next to the passes that convert them (``@build_pass(kind, ...)``), so discovery asks this
registry instead of a list of file names of its own, and adding a build system is one module
plus its test.  The modules are imported the first time a file is classified, not before: a
run that takes every result from the per-file cache never needs them.
"""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .unit import BuildFile

# a build file is converted only when it says something about CUDA
_CUDA_MARKER = re.compile(rb"cuda|nvcc|\.cu\b|sm_\d|CUDAExtension", re.IGNORECASE)


@dataclass(frozen=True)
class BuildSystem:
    """One build system's files: ``names`` (exact file names, the first one the usual name)
    and ``patterns`` (globs on the file name, case-sensitive); a file that also needs a
    ``marker`` in its text to be this system's (a ``setup.py`` is PyTorch's only when it uses
    ``cpp_extension``).  ``include_dirs`` reads the header directories a file names, for
    ``verify`` to find a converted project's headers as its build would."""

    kind: str
    names: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    marker: bytes = b""
    include_dirs: Callable[[BuildFile], list[Path]] | None = None

    def claims(self, name: str) -> bool:
        """Whether a file called ``name`` is one of this system's (by its name alone)."""
        return name in self.names or any(fnmatch.fnmatchcase(name, p) for p in self.patterns)


_SYSTEMS: dict[str, BuildSystem] = {}
_loaded = False


def build_system(
    kind: str,
    *,
    names: Sequence[str],
    patterns: Sequence[str] = (),
    marker: bytes = b"",
    include_dirs: Callable[[BuildFile], list[Path]] | None = None,
) -> BuildSystem:
    """Declare build system ``kind`` once; its passes register with ``build_pass(kind, ...)``."""
    if kind in _SYSTEMS:
        raise ValueError(f"build system {kind} registered twice")
    system = BuildSystem(kind, tuple(names), tuple(patterns), marker, include_dirs)
    _SYSTEMS[kind] = system
    return system


def build_systems() -> list[BuildSystem]:
    """Every declared build system, in the order their modules were imported (by name): the
    first whose names claim a file gets it."""
    global _loaded
    if not _loaded:
        package = __name__.rpartition(".")[0]
        for mod in pkgutil.iter_modules(importlib.import_module(package).__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{package}.{mod.name}")
        _loaded = True
    return list(_SYSTEMS.values())


def system_of(path: Path) -> BuildSystem | None:
    """The build system whose file names claim ``path`` (its text not read)."""
    return next((s for s in build_systems() if s.claims(path.name)), None)


def build_kind(path: Path, head: bytes) -> str | None:
    """The build system of a build file that mentions CUDA (``cmake``, ``make``, ...), else
    None; ``head``: the start of its text."""
    system = system_of(path)
    if system is None or (system.marker and system.marker not in head):
        return None
    return system.kind if _CUDA_MARKER.search(head) else None
