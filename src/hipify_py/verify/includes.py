"""Include directories a converted project needs, found the way its own build would find them.

A user runs ``hipify-py verify examples-hip`` on a tree, not on a compile database.  The
project's headers are then reachable through what the tree itself says: the converted
``CMakeLists.txt`` (``include_directories``, ``target_include_directories``), a Makefile's
``-I`` flags, a ``compile_commands.json`` at the root or in ``build/``, and, for anything still
missing, the tree itself: ``#include "saxpy.cuh"`` resolves to ``include/saxpy.cuh`` when that
is the one file of the tree with that path.

A header that is in none of these places is classified by ``missing_header_kind``: a CUDA
header left in the port (one the mapping tables or the header pass know as CUDA's, or a
``.cu``/``.cuh`` file of the project that was not carried over) is a failure, a third-party
header (``torch/extension.h``) makes the file not checkable without the user's ``-I``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from ..buildfiles.registry import system_of
from ..buildfiles.unit import BuildFile
from ..discover import C_LIKE_SUFFIXES, CUDA_SUFFIXES, discover
from ..frontend.directives import include_targets
from ..mappings.load import load_index
from ..rewrite.headers import is_cuda_header
from .compdb import CompileDatabase
from .compile import Flags

_INCLUDABLE = CUDA_SUFFIXES | C_LIKE_SUFFIXES  # the files of the tree an #include may name
_MAX_HEADERS = 400  # per translation unit: enough for real trees, bounded for pathological ones

_ROCM_HEADER = re.compile(r"^(?:hip|roc|miopen|rccl)")


class ProjectIncludes:
    """Per tree: the include directories its build files name and an index of its files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_name: dict[str, list[Path]] = {}
        self.build_dirs: list[tuple[Path, tuple[str, ...]]] = []  # (scope dir, include dirs)
        self.compdb: CompileDatabase | None = None
        if root.is_dir():
            for where in (root, root / "build"):
                if (where / "compile_commands.json").is_file():
                    try:
                        self.compdb = CompileDatabase(where)
                    except (OSError, ValueError, KeyError):
                        continue
                    break
            self._scan(root)

    def _scan(self, root: Path) -> None:
        for candidate in discover([root]):  # the files convert and verify see, no others
            path = candidate.path
            system = system_of(path)
            if system is not None and system.include_dirs is not None:
                dirs = _build_dirs(path, system.kind, system.include_dirs)
                self._add_build_dirs(path.parent, dirs)
            if path.suffix.lower() in _INCLUDABLE:
                self._by_name.setdefault(path.name, []).append(path)

    def _add_build_dirs(self, scope: Path, dirs: list[Path]) -> None:
        found = tuple(str(d) for d in dirs if d.is_dir())
        if found:
            self.build_dirs.append((scope, found))

    def flags_for(self, source: Path) -> tuple[Flags, list[str]]:
        """-I flags for ``source`` and notes saying where they came from."""
        notes: list[str] = []
        dirs: list[str] = []
        if self.compdb is not None:
            extra = self.compdb.flags_for(source)
            if extra is not None:
                notes.append(f"flags from {self.compdb.path}")
                return extra, notes
        for scope, found in self.build_dirs:
            if _inside(source, scope):
                dirs += [d for d in found if d not in dirs]
        from_build = list(dirs)
        resolved = self._resolve(source, dirs)
        if from_build:
            shown = ", ".join(os.path.relpath(d) for d in from_build)
            notes.append(f"include directories from the build files: {shown}")
        if resolved:
            shown = ", ".join(os.path.relpath(d) for d in resolved)
            notes.append(f"include directories found in the tree: {shown}")
        return Flags(include_dirs=tuple(dirs)), notes

    def _resolve(self, source: Path, dirs: list[str]) -> list[str]:
        """Follow the includes of ``source`` and its headers; add the directory of each one
        that only the tree can resolve.  Returns the directories added."""
        added: list[str] = []
        queue = [source]
        seen = {source.resolve()}
        while queue and len(seen) < _MAX_HEADERS:
            current = queue.pop()
            try:
                text = current.read_text(errors="replace")
            except OSError:
                continue
            for name in include_targets(text):
                name = name.strip()
                header = self._find(current.parent, name, dirs)
                if header is None:
                    located = self._locate(name)
                    if located is None:
                        continue
                    header, directory = located
                    if directory not in dirs:
                        dirs.append(directory)
                        added.append(directory)
                key = header.resolve()
                if key not in seen:
                    seen.add(key)
                    queue.append(header)
        return added

    @staticmethod
    def _find(here: Path, name: str, dirs: list[str]) -> Path | None:
        for base in (here, *map(Path, dirs)):
            cand = base / name
            if cand.is_file():
                return cand
        return None

    def _locate(self, name: str) -> tuple[Path, str] | None:
        """The one file of the tree whose path ends with ``name``, and the directory to add."""
        parts = Path(name).parts
        if not parts or ".." in parts:
            return None
        hits = [p for p in self._by_name.get(parts[-1], []) if p.parts[-len(parts) :] == parts]
        if len(hits) != 1:
            return None
        hit = hits[0]
        return hit, str(Path(*hit.parts[: -len(parts)]))


def _inside(path: Path, scope: Path) -> bool:
    try:
        path.resolve().relative_to(scope.resolve())
    except ValueError:
        return False
    return True


def _build_dirs(path: Path, kind: str, read: Callable[[BuildFile], list[Path]]) -> list[Path]:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    return read(BuildFile(str(path), text, kind))


_NOT_FOUND = re.compile(r"^'([^']+)' file not found")


def missing_headers(messages: list[str]) -> list[str]:
    """Header names of ``'x' file not found`` errors."""
    out = []
    for message in messages:
        m = _NOT_FOUND.match(message)
        if m:
            out.append(m.group(1))
    return out


def missing_header_kind(name: str) -> str:
    """ "cuda" (left in the port: a failure), "rocm" (not in the HIP header set used) or
    "third-party" (outside the tree and not ours to judge: the user passes -I)."""
    if is_cuda_header(name, load_index()) or Path(name).suffix in CUDA_SUFFIXES:
        return "cuda"
    if _ROCM_HEADER.match(name):
        return "rocm"
    return "third-party"
