"""Options shared by the commands that convert or check code, and the Context they build."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from ..config import Config, ConfigFileError
from ..context import Context, Options, parse_version
from ..files import WriteError, write_file
from ..mappings import load_index
from ..mappings.load import RulesText
from ..mappings.schema import MappingError
from ..user_mappings import user_rules


class PathArg(click.Path):
    """``click.Path`` that refuses an empty path: ``-o ''`` would name the working directory
    (``Path('')`` is ``.``), which is a usage error, not a failed write."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | bytes) and not value:
            self.fail("an empty path", param, ctx)
        return super().convert(value, param, ctx)


class ConfigError(click.ClickException):
    """Bad mapping rules or project configuration: one line, exit code 2 like a usage error."""

    exit_code = 2


def common_options(func: Callable) -> Callable:
    decorators = [
        click.option(
            "--roc",
            is_flag=True,
            help="Use rocBLAS/rocSPARSE/rocRAND/rocSOLVER/MIOpen, not hip* wrappers.",
        ),
        click.option("--miopen", is_flag=True, help="Translate cuDNN to MIOpen."),
        click.option(
            "--experimental", is_flag=True, help="Also convert APIs HIP marks experimental."
        ),
        click.option(
            "--use-hip-data-types",
            "hip_data_types",
            is_flag=True,
            help="Emit hipDataType instead of library-specific data types.",
        ),
        click.option(
            "--target-rocm",
            default="7.1",
            show_default=True,
            metavar="X.Y",
            help="ROCm version the output must build with.",
        ),
        click.option(
            "--pytorch/--no-pytorch",
            default=None,
            help="PyTorch extension mappings (default: when ATen/torch is included).",
        ),
        click.option(
            "--skip-inactive",
            is_flag=True,
            help="Leave code in inactive #if branches alone (default: convert it).",
        ),
        click.option(
            "-I",
            "include_dirs",
            multiple=True,
            metavar="DIR",
            help="Parse with this include directory (turns off the hermetic parse).",
        ),
        click.option(
            "-D",
            "defines",
            multiple=True,
            metavar="MACRO[=V]",
            help="Parse with this macro defined.",
        ),
        click.option(
            "--cuda-path",
            type=PathArg(path_type=Path, file_okay=False, exists=True),
            help="A CUDA installation to parse against.",
        ),
        click.option(
            "-p",
            "build_dir",
            type=PathArg(path_type=Path),
            help="Directory with compile_commands.json: parse with its flags.",
        ),
        click.option(
            "--mapping",
            "mapping_files",
            multiple=True,
            type=PathArg(path_type=Path, dir_okay=False),
            help="Extra mapping rules (YAML, same schema; they win).",
        ),
        click.option(
            "--clang-arg",
            "clang_args",
            multiple=True,
            metavar="ARG",
            help="Extra argument for the libclang parse (also: everything after --).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def selection_options(func: Callable) -> Callable:
    """--include/--exclude/-j, shared by the commands that walk a tree (convert, check)."""
    decorators = [
        click.option(
            "--include",
            "include",
            multiple=True,
            metavar="GLOB",
            help="Only look at files matching GLOB (repeatable).",
        ),
        click.option(
            "--exclude",
            "exclude",
            multiple=True,
            metavar="GLOB",
            help="Skip files matching GLOB (repeatable).",
        ),
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(0),
            default=0,
            help="Parallel processes (default: all cores).",
        ),
        click.option(
            "--shard",
            callback=_shard,
            metavar="I/N",
            help="Only the I-th of N parts of the files (split by path; for N CI jobs).",
        ),
        click.option(
            "--no-cache",
            is_flag=True,
            help="Convert every file; neither read nor update the per-file result cache.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _shard(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    """click callback: ``--shard I/N`` as (I, N)."""
    if value is None:
        return None
    from ..shard import ShardError, parse_shard

    try:
        return parse_shard(value)
    except ShardError as exc:
        raise click.BadParameter(str(exc)) from None


def conversion_options(func: Callable) -> Callable:
    """The options that shape convert's output; ``check`` takes them too, to describe how an
    ``--in-sync`` tree was converted."""
    decorators = [
        click.option(
            "--keep-names", is_flag=True, help="Keep .cu names instead of renaming to .hip."
        ),
        click.option(
            "--launch-syntax",
            type=click.Choice(["hip", "cuda"]),
            default="hip",
            show_default=True,
            help="hip: hipLaunchKernelGGL(...); cuda: keep <<<...>>> (HIP accepts it).",
        ),
        click.option("--fix", is_flag=True, help="Apply the safe fixes hazard rules offer."),
        click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that need review."),
        click.option(
            "--annotate",
            is_flag=True,
            help="Write a // hipify-py[ID] comment above each finding.",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def conversion_flags(
    *, launch_syntax: str, fix: bool, unsafe_fixes: bool, annotate: bool, keep_names: bool
) -> dict[str, Any]:
    """The Options fields that shape convert's output; ``check --in-sync`` uses the same
    mapping, so it reproduces exactly what convert wrote."""
    return dict(
        launch_syntax=launch_syntax,
        fix=fix or unsafe_fixes,
        unsafe_fixes=unsafe_fixes,
        annotate=annotate,
        keep_names=keep_names,
    )


def write_or_fail(path: Path, text: str) -> None:
    """Write a report, diff or baseline the way every output is written (a regular file
    replaced atomically, or written through to a FIFO/device); a failure is the one-line
    ``cannot write PATH: reason`` (exit 1)."""
    if str(path) == "-":
        stream = sys.stdout.buffer
        stream.write(text.encode("utf-8", "surrogateescape"))
        stream.flush()
        return
    try:
        write_file(path, text.encode("utf-8", "surrogateescape"))  # a diff keeps raw bytes
    except WriteError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None


def offload_arch_option(func: Callable) -> Callable:
    """--offload-arch: the AMD GPUs converted build files compile for (convert, report)."""
    return click.option(
        "--offload-arch",
        "offload_arch",
        multiple=True,
        callback=lambda ctx, param, values: tuple(check_arch(ctx, param, v) for v in values),
        metavar="GFX",
        help="AMD GPU the converted build files compile for (repeatable; default gfx942).",
    )(func)


def check_arch(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """click callback: ``--arch`` must look like an AMD GPU name (gfx942, gfx90a:xnack+).
    The default needs no check (and no import of the verifier)."""
    if value == param.default:
        return value
    from ..verify.arch import arch_name_error

    error = arch_name_error(value)
    if error is not None:
        raise click.BadParameter(error)
    return value


def _compile_db_flags(build_dir: Path) -> tuple[list[str], list[str]]:
    """Union of -I/-D flags in compile_commands.json (paths made absolute)."""
    from ..verify.compdb import CompileDatabaseError, union_flags

    try:
        flags = union_flags(build_dir)
    except CompileDatabaseError as exc:
        raise click.UsageError(str(exc)) from None
    return list(flags.include_dirs), list(flags.defines)


def load_config(
    paths: Sequence[Path], *, config_path: Path | None = None, no_config: bool = False
) -> Config:
    """The project config, loaded once: ``--config FILE``, else the one for the first path."""
    try:
        if no_config:
            return Config()
        if config_path is not None:
            return Config.load(config_path)
        return Config.find(paths[0] if paths else Path.cwd())
    except ConfigFileError as exc:
        raise ConfigError(str(exc)) from None


def build_options_context(
    common: dict[str, Any], config: Config, *, overrides: dict[str, Any] | None = None, **extra: Any
) -> tuple[Context, list[RulesText]]:
    """Options from the command line (``overrides``: fields recorded elsewhere, e.g. in a HIP
    tree's manifest), and the mapping tables with the project config's and ``--mapping`` rules
    (returned too, for the worker processes)."""
    try:
        target = parse_version(common["target_rocm"])
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--target-rocm") from None
    if not 1 <= target[0] <= 99 or any(part < 0 or part > 999 for part in target):
        raise click.BadParameter(
            f"not a ROCm version: {common['target_rocm']}", param_hint="--target-rocm"
        )
    include_dirs = list(common["include_dirs"])
    defines = list(common["defines"])
    if common["cuda_path"]:
        include_dirs.append(str(Path(common["cuda_path"]) / "include"))
    if common["build_dir"]:
        incs, defs = _compile_db_flags(common["build_dir"])
        include_dirs += incs
        defines += defs
    options = Options(
        roc=common["roc"],
        miopen=common["miopen"],
        experimental=common["experimental"],
        hip_data_types=common["hip_data_types"],
        target_rocm=target,
        pytorch=common["pytorch"],
        skip_inactive=common["skip_inactive"],
        include_dirs=tuple(include_dirs),
        defines=tuple(defines),
        extra_clang_args=tuple(common["clang_args"]),
        **extra,
    )
    if overrides:
        options = replace(options, **overrides)
    try:
        rules = user_rules(config, common["mapping_files"])
        index = load_index(options, rules)
    except MappingError as exc:
        raise ConfigError(str(exc)) from None
    ignores = config if config.ignore or config.per_file else None
    return Context(options, index, ignores=ignores), rules
