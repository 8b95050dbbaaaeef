"""PyTorch extensions in ``verify``: a file that includes torch/ATen/c10 headers is compiled as
``CUDAExtension`` compiles it on a ROCm build of PyTorch, with torch's include directories and
its ROCm defines; without them it fails inside torch's own headers (``USE_ROCM`` selects their
HIP branches).  torch is found without importing it (an import takes seconds): its package
directory in this interpreter.  The extension's name (``TORCH_EXTENSION_NAME``) comes from the
``setup.py`` whose ``CUDAExtension`` lists the file.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ..discover import discover

USES_TORCH = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:torch|ATen|c10)/", re.M)
# what torch.utils.cpp_extension passes hipcc for a CUDAExtension on ROCm (PyTorch 2.x):
# the HIP platform, USE_ROCM for torch's own headers, hipBLAS's v2 API, and the half-type
# switches of COMMON_HIP_FLAGS / COMMON_HIPCC_FLAGS; TORCH_API_INCLUDE_EXTENSION_H as for any
# extension
ROCM_DEFINES = (
    "__HIP_PLATFORM_AMD__=1",
    "USE_ROCM=1",
    "HIPBLAS_V2",
    "CUDA_HAS_FP16=1",
    "__HIP_NO_HALF_OPERATORS__=1",
    "__HIP_NO_HALF_CONVERSIONS__=1",
    "HIP_ENABLE_WARP_SYNC_BUILTINS=1",
    "TORCH_API_INCLUDE_EXTENSION_H",
)
_EXTENSION = re.compile(r"CUDAExtension\s*\((?P<args>.*?)\)\s*(?:,|\])", re.S)
_NAME = re.compile(r"^\s*[\"']([\w.]+)[\"']|\bname\s*=\s*[\"']([\w.]+)[\"']")
_SOURCES = re.compile(r"\bsources\s*=\s*\[(?P<list>[^\]]*)\]", re.S)
_STRING = re.compile(r"[\"']([^\"'\n]+)[\"']")


@dataclass(frozen=True)
class Torch:
    version: str
    hip: str | None  # torch.version.hip: set on a ROCm build of PyTorch
    include_dirs: tuple[str, ...]

    def describe(self) -> str:
        build = (
            f"ROCm {self.hip}" if self.hip else "no ROCm: its ATen/hip, c10/hip headers are absent"
        )
        return f"PyTorch {self.version} ({build})"


def uses_torch(text: str) -> bool:
    return USES_TORCH.search(text.encode("utf-8", "surrogateescape")) is not None


@functools.lru_cache(maxsize=1)
def find_torch() -> Torch | None:
    """The PyTorch of this interpreter (None when it has none)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    root = Path(spec.origin).parent
    include = root / "include"
    if not (include / "torch" / "extension.h").is_file():
        return None
    try:
        text = (root / "version.py").read_text(errors="replace")
    except OSError:
        text = ""
    version = re.search(r"^__version__\s*=\s*[\"']([^\"']+)", text, re.M)
    hip = re.search(r"^hip\s*(?::[^=]*)?=\s*[\"']([^\"']+)", text, re.M)
    dirs = [str(include), str(include / "torch" / "csrc" / "api" / "include")]
    python = sysconfig.get_paths().get("include")
    if python and (Path(python) / "Python.h").is_file():
        dirs.append(python)  # torch/extension.h includes pybind11, which includes Python.h
    return Torch(
        version.group(1) if version else "unknown",
        hip.group(1) if hip else None,
        tuple(dirs),
    )


def extension_names(root: Path) -> dict[Path, str]:
    """Each source a ``CUDAExtension`` of a setup.py under ``root`` lists -> the extension's
    name (resolved paths)."""
    names: dict[Path, str] = {}
    for candidate in discover([root]):
        if candidate.path.name != "setup.py":
            continue
        try:
            text = candidate.path.read_text(errors="replace")
        except OSError:
            continue
        for ext in _EXTENSION.finditer(text):
            name, sources = _NAME.search(ext["args"]), _SOURCES.search(ext["args"])
            if name is None or sources is None:
                continue
            for src in _STRING.findall(sources["list"]):
                full = name.group(1) or name.group(2)
                names[(candidate.path.parent / src).resolve()] = full.split(".")[-1]
    return names


def torch_header_note(name: str) -> str:
    """Why a PyTorch header was not found, and exactly what to do."""
    torch = find_torch()
    if torch is None:
        return (
            f"{name} not found: this Python ({sys.executable}) has no PyTorch, so the file "
            "cannot be checked; install PyTorch into it (a ROCm build has every header a port "
            "needs), or pass torch's include directories with -I DIR and -D USE_ROCM=1 "
            "-D __HIP_PLATFORM_AMD__=1"
        )
    if not torch.hip and name.split("/")[1:2] == ["hip"]:
        return (
            f"{name} not found: {torch.describe()}; a ROCm build of PyTorch is needed to "
            "check this file"
        )
    return f"{name} not found in {torch.describe()} ({torch.include_dirs[0]})"
