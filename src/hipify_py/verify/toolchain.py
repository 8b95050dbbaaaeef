"""What a toolchain is: a compiler that can check HIP code for an AMD GPU, the arch it
targets and the HIP headers it uses, plus the probes every kind of toolchain shares.

How one is found: ``discovery`` (the entry point), ``hipcc`` and ``clang_hip`` (the two kinds of
real toolchain), ``arch`` (GPU names and the fallback when a compiler does not know one).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..frontend.directives import macro_numbers


class ToolchainError(RuntimeError):
    """The toolchain the user asked for does not exist or cannot target anything useful."""


@dataclass
class Toolchain:
    kind: str  # "hipcc" | "clang" | "libclang"
    compiler: str | None = None  # absolute path of hipcc / clang
    hip_include: str | None = None  # directory holding hip/hip_runtime.h
    hip_version: tuple[int, int] | None = None
    clang: str | None = None  # the clang that compiles (hipcc's backend or the clang itself)
    clang_version: str | None = None
    resource_dir: str | None = None
    known_archs: tuple[str, ...] = ()
    arch_requested: str = "gfx942"
    arch: str = "gfx942"  # the arch actually used
    rocm_path: str | None = None  # the ROCm prefix the headers belong to (clang --rocm-path)
    device_libs: str | None = None  # amdgcn bitcode this clang reads: real code objects
    warnings: list[str] = field(default_factory=list)

    @property
    def hip_version_text(self) -> str:
        return ".".join(map(str, self.hip_version)) if self.hip_version else "unknown"

    def describe(self) -> str:
        if self.kind == "libclang":
            where = f", HIP {self.hip_version_text} headers" if self.hip_include else ""
            return f"libclang syntax check (no AMD compiler){where}"
        name = Path(self.compiler or "?").name
        extra = f" ({self.clang_version})" if self.clang_version else ""
        return f"{name}{extra}, HIP {self.hip_version_text}, --offload-arch={self.arch}"

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "compiler": self.compiler,
            "clang_version": self.clang_version,
            "hip_version": self.hip_version_text if self.hip_version else None,
            "hip_include": self.hip_include,
            "arch_requested": self.arch_requested,
            "arch": self.arch,
            "rocm_path": self.rocm_path,
            "device_libs": self.device_libs,
            "warnings": list(self.warnings),
        }


def run_tool(
    cmd: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(cmd),
        capture_output=True,
        text=True,
        env=dict(env or os.environ),
        timeout=timeout,
        errors="replace",
    )


def read_hip_version(include_dir: str | os.PathLike) -> tuple[int, int] | None:
    """HIP_VERSION_MAJOR/MINOR from ``<include_dir>/hip/hip_version.h``."""
    header = Path(include_dir) / "hip" / "hip_version.h"
    try:
        macros = macro_numbers(header.read_text(errors="replace"))
    except OSError:
        return None
    major, minor = macros.get("HIP_VERSION_MAJOR"), macros.get("HIP_VERSION_MINOR")
    return None if major is None or minor is None else (major, minor)


def has_hip_headers(include_dir: str | os.PathLike) -> bool:
    return (Path(include_dir) / "hip" / "hip_runtime.h").is_file()


@functools.lru_cache(maxsize=32)
def clang_info(clang: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(version line, resource dir, AMDGPU archs) of one clang binary."""
    try:
        version = run_tool([clang, "--version"], timeout=30).stdout.splitlines()
        resource = run_tool([clang, "-print-resource-dir"], timeout=30).stdout.strip() or None
        cpus = run_tool(
            [clang, "--target=amdgcn-amd-amdhsa", "-nogpulib", "--print-supported-cpus"], timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None, None, ()
    archs = tuple(
        sorted({m.group(0) for m in re.finditer(r"\bgfx[0-9a-f]+\b", cpus.stdout + cpus.stderr)})
    )
    m = re.search(r"clang version (\S+)", version[0] if version else "")
    return (f"clang {m.group(1)}" if m else None), resource, archs


def which(name: str, env: Mapping[str, str]) -> str | None:
    found = shutil.which(name, path=env.get("PATH", ""))
    return os.path.abspath(found) if found else None
