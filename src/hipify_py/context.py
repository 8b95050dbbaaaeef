"""Options that change what a conversion produces, and the shared, read-only state rules see."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .arch_names import amd_arch
from .option_spec import CONVERT, TREE, WRITES, cli
from .project_index import ProjectIndex
from .rule_ids import rule_patterns, split_ids

if TYPE_CHECKING:
    from .mappings.index import MappingIndex


DEFAULT_TARGET_ROCM = (7, 2)
"""The ROCm release the output is built and checked against unless ``--target-rocm`` says
otherwise: the 7.2 line, whose 7.2.4 headers the mapping audit and the compile tests use."""


def parse_version(text: str) -> tuple[int, ...]:
    """'7.1' -> (7, 1); raises ValueError with a readable message."""
    try:
        return tuple(int(part) for part in text.strip().split("."))
    except ValueError:
        raise ValueError(f"not a version number: {text!r} (expected e.g. 7.1)") from None


def parse_rocm_version(text: str) -> tuple[int, ...]:
    """``--target-rocm X.Y``: a version a ROCm release can have; ValueError otherwise."""
    target = parse_version(text)
    if not 1 <= target[0] <= 99 or any(part < 0 or part > 999 for part in target):
        raise ValueError(f"not a ROCm version: {text}")
    return target


@dataclass(frozen=True)
class Options:
    """What a conversion produces.  A field that an option sets declares that option here, in
    its metadata (``option_spec.cli``): flag, help, commands, config key, ``--help`` section."""

    launch_syntax: str = field(
        default="hip",
        metadata=cli(
            "--launch-syntax",
            commands=TREE,
            help="hip: hipLaunchKernelGGL(...); cuda: keep <<<...>>> (HIP accepts it).",
            choices=("hip", "cuda"),
            section="output",
        ),
    )
    roc: bool = field(
        default=False,
        metadata=cli(
            "--roc",
            commands=TREE,
            help="Use rocBLAS/rocSPARSE/rocRAND/rocSOLVER/MIOpen, not hip* wrappers.",
            section="parse",
        ),
    )
    miopen: bool = field(
        default=False,
        metadata=cli("--miopen", commands=TREE, help="Translate cuDNN to MIOpen.", section="parse"),
    )
    experimental: bool = field(
        default=False,
        metadata=cli(
            "--experimental",
            commands=TREE,
            help="Also convert APIs HIP marks experimental.",
            section="parse",
        ),
    )
    hip_data_types: bool = field(
        default=False,
        metadata=cli(
            "--use-hip-data-types",
            commands=TREE,
            help="Emit hipDataType instead of library-specific data types.",
            section="parse",
        ),
    )
    target_rocm: tuple[int, ...] = field(
        default=DEFAULT_TARGET_ROCM,
        metadata=cli(
            "--target-rocm",
            commands=TREE,
            help="ROCm version the output must build with.",
            metavar="X.Y",
            parse=parse_rocm_version,
            default_text=".".join(map(str, DEFAULT_TARGET_ROCM)),
            section="parse",
        ),
    )
    pytorch: bool | None = field(  # None: decide per file from its includes
        default=None,
        metadata=cli(
            "--pytorch/--no-pytorch",
            commands=TREE,
            help="PyTorch extension mappings (default: when ATen/torch is included).",
            section="parse",
        ),
    )
    skip_inactive: bool = field(
        default=False,
        metadata=cli(
            "--skip-inactive",
            commands=TREE,
            help="Leave code in inactive #if branches alone (default: convert it).",
            section="parse",
        ),
    )
    keep_names: bool = field(  # keep .cu file names (and includes of them) instead of .hip
        default=False,
        metadata=cli(
            "--keep-names",
            commands=TREE,
            help="Keep .cu names instead of renaming to .hip.",
            section="output",
        ),
    )
    fix: bool = field(
        default=False,
        metadata=cli(
            "--fix",
            commands=TREE,
            help="Apply the safe fixes hazard rules offer.",
            section="output",
        ),
    )
    unsafe_fixes: bool = field(
        default=False,
        metadata=cli(
            "--unsafe-fixes",
            commands=TREE,
            help="Also apply fixes that need review.",
            also=("fix",),
            section="output",
        ),
    )
    annotate: bool = field(
        default=False,
        metadata=cli(
            "--annotate",
            commands=TREE,
            help="Write a // hipify-py[ID] comment above each finding.",
            section="output",
        ),
    )
    enable: tuple[str, ...] = field(  # opt-in rules reported (``RuleInfo.opt_in``)
        default=(),
        metadata=cli(
            "--enable",
            commands=TREE,
            help="Also report these opt-in rules (IDs or prefixes, comma list; ALL: every one). "
            "`hipify-py rules` marks them.",
            metavar="IDS",
            parse=rule_patterns,
            config="enable",
            section="output",
        ),
    )
    include_dirs: tuple[str, ...] = field(
        default=(),
        metadata=cli(
            "-I",
            commands=TREE,
            help="Parse with this include directory (turns off the hermetic parse).",
            metavar="DIR",
            section="parse",
        ),
    )
    defines: tuple[str, ...] = field(
        default=(),
        metadata=cli(
            "-D",
            commands=TREE,
            help="Parse with this macro defined.",
            metavar="MACRO[=V]",
            section="parse",
        ),
    )
    extra_clang_args: tuple[str, ...] = field(
        default=(),
        metadata=cli(
            "--clang-arg",
            commands=TREE,
            help="Extra argument for the libclang parse (also: everything after --).",
            metavar="ARG",
            section="clang",
        ),
    )
    offload_arch: tuple[str, ...] = field(  # AMD targets the converted build files compile for
        default=("gfx942",),
        metadata=cli(
            "--offload-arch",
            commands=WRITES,
            help="AMD GPU the converted build files compile for (repeatable; default gfx942).",
            metavar="GFX",
            parse=amd_arch,
            section="output",
        ),
    )
    portable: bool = field(  # one source for nvcc and HIP (portable/), not a forked HIP tree
        default=False,
        metadata=cli(
            "--portable",
            commands=CONVERT,
            help="Keep one CUDA source that also builds for HIP: hip_compat.h + guarded AMD fixes.",
            section="convert",
        ),
    )

    @property
    def enabled(self) -> tuple[str, ...]:
        """The opt-in rules ``enable`` turns on, one pattern each (policy step b)."""
        return split_ids(self.enable)


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
    project: ProjectIndex = ProjectIndex()  # what the rest of the tree defines


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
