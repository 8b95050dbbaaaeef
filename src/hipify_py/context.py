"""Options that change what a conversion produces, and the shared, read-only state rules see."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .mappings.index import MappingIndex


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
    offload_arch: tuple[str, ...] = ("gfx942",)  # AMD targets build files compile for
    portable: bool = False  # one source for nvcc and HIP (portable/), not a forked HIP tree


@dataclass(frozen=True)
class Renames:
    """Which ``.cu`` inputs this run writes as ``.hip``, so build files can follow the names.

    ``files`` holds their resolved paths; None means no tree is known (a file converted on its
    own, or a string in a test): then every ``.cu`` name is taken to be renamed.
    """

    files: frozenset[str] | None = None

    def renamed(self, path: str) -> bool:
        return self.files is None or path in self.files


class RuleFilter(Protocol):
    """The project config's ignores (``config.Config``): whether a rule is off for a file."""

    def ignores_rule(self, rule: str, path: str, *, exact: bool = False) -> bool: ...


@dataclass(frozen=True)
class Context:
    options: Options
    mappings: MappingIndex
    renames: Renames = Renames()
    # project-config ignores, applied where inline suppressions are, so a finding the project
    # turned off is neither reported, nor fixed, nor annotated, in convert and check alike
    ignores: RuleFilter | None = None


# searched from its literal part (a line-start anchor first would make the search visit every
# byte of a long file); that the '#' starts its line is checked per match
_TORCH_INCLUDE = re.compile(r"#[ \t]*include[ \t]*[<\"](?:ATen|torch|c10)/")


def pytorch_enabled(options: Options, text: str) -> bool:
    """The PyTorch mapping set applies with --pytorch, or when the file includes ATen/torch/c10."""
    if options.pytorch is not None:
        return options.pytorch
    return any(_starts_line(text, m.start()) for m in _TORCH_INCLUDE.finditer(text))


def _starts_line(text: str, i: int) -> bool:
    """Only blanks (or a byte-order mark) between the last line break and ``i``."""
    start = max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1
    return not text[start:i].strip(" \t\ufeff")
