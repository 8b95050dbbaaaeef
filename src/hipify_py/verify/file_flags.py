"""The flags each translation unit ``verify`` checks is compiled with: the command line's, then
its tree's include directories (or its ``compile_commands.json`` entry), then PyTorch's for an
extension source.  What a tree contributes is computed once per input root and shared by the
threads that check its files."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .compdb import CompileDatabase
from .compile import Flags
from .includes import ProjectIncludes
from .torch_ext import ROCM_DEFINES as TORCH_ROCM_DEFINES
from .torch_ext import extension_names, find_torch, uses_torch


class Trees:
    """What the threads share per input root, computed once: its include index, its manifest,
    its setup.py extensions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._memo: dict[tuple[str, Path], Any] = {}

    def get(self, what: str, root: Path, make: Callable[[Path], Any]) -> Any:
        with self._lock:
            if (what, root) not in self._memo:
                self._memo[what, root] = make(root)
            return self._memo[what, root]


class FileFlags:
    """``base`` (the command line's -I/-D/--std) plus what each file's tree says: the
    ``compile_commands.json`` entry when ``cdb`` is given (looked up under the CUDA name when
    the tree was converted from ``cuda_root``), the tree's own include directories otherwise."""

    def __init__(
        self, base: Flags, cdb: CompileDatabase | None, cuda_root: Path | None, trees: Trees
    ) -> None:
        self.base = base
        self.cdb = cdb
        self.cuda_root = cuda_root
        self.trees = trees

    def of(
        self, hip_file: Path, root: Path, cuda_file: Path | None, hip_text: str, notes: list[str]
    ) -> Flags:
        """The flags for ``hip_file`` under input ``root``; what was found or is missing goes
        to ``notes``."""
        flags = self.base.merged(self._tree_flags(hip_file, root, cuda_file, notes))
        if uses_torch(hip_text):
            names = self.trees.get("extensions", root, extension_names)
            flags = flags.merged(_torch_flags(names.get(hip_file.resolve(), hip_file.stem), notes))
        return flags

    def _tree_flags(
        self, hip_file: Path, root: Path, cuda_file: Path | None, notes: list[str]
    ) -> Flags:
        if self.cdb is None:
            extra, found = self.trees.get("project", root, ProjectIncludes).flags_for(hip_file)
            notes += found
            return extra
        remap = (self.cuda_root, root) if self.cuda_root else None
        listed = self.cdb.flags_for(hip_file, cuda_file, remap=remap)
        if listed is None:
            notes.append(f"{hip_file.name} is not in {self.cdb.path}")
            return Flags()
        return listed


def _torch_flags(name: str, notes: list[str]) -> Flags:
    """A PyTorch extension source: torch's headers and a ROCm CUDAExtension's defines."""
    torch = find_torch()
    if torch is None:
        return Flags()  # the missing header's note says what to do
    notes.append(
        f"{torch.describe()}: its include directories and the defines a ROCm CUDAExtension "
        f"build adds (-DUSE_ROCM=1 -D__HIP_PLATFORM_AMD__=1 ..., TORCH_EXTENSION_NAME={name})"
    )
    return Flags(
        system_dirs=torch.include_dirs,
        defines=(*TORCH_ROCM_DEFINES, f"TORCH_EXTENSION_NAME={name}"),
    )
