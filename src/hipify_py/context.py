"""Options that change what a conversion produces, and the shared, read-only state rules see."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .mappings import MappingIndex


def parse_version(text: str) -> tuple[int, ...]:
    """'7.1' -> (7, 1); raises ValueError with a readable message."""
    try:
        return tuple(int(part) for part in text.strip().split("."))
    except ValueError:
        raise ValueError(f"not a version number: {text!r} (expected e.g. 7.1)") from None


@dataclass(frozen=True)
class Options:
    launch_syntax: str = "hip"  # "hip": hipLaunchKernelGGL(...); "cuda": keep <<<...>>>
    roc: bool = False  # rocBLAS/rocSPARSE/rocRAND/rocSOLVER/MIOpen instead of hip* wrappers
    miopen: bool = False  # cuDNN -> MIOpen only
    experimental: bool = False  # also convert APIs HIP marks experimental
    hip_data_types: bool = False
    target_rocm: tuple[int, ...] = (7, 1)
    pytorch: bool | None = None  # None: decide per file from its includes
    skip_inactive: bool = False  # leave code in inactive #if branches alone
    keep_names: bool = False  # keep .cu file names (and includes of them) instead of .hip
    fix: bool = False  # apply safe hazard fixes
    unsafe_fixes: bool = False
    annotate: bool = False  # write a // hipify-py[ID] comment above each finding
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    extra_clang_args: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Context:
    options: Options
    mappings: MappingIndex


_TORCH_INCLUDE = re.compile(
    r"(?:^|\r)[\ufeff \t]*#[ \t]*include[ \t]*[<\"](?:ATen|torch|c10)/", re.M
)


def pytorch_enabled(options: Options, text: str) -> bool:
    """The PyTorch mapping set applies with --pytorch, or when the file includes ATen/torch/c10."""
    if options.pytorch is not None:
        return options.pytorch
    return bool(_TORCH_INCLUDE.search(text))
