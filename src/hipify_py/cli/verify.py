"""``hipify-py verify``: compile-check HIP sources for an AMD GPU, errors mapped to CUDA lines."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from ..context import Context, Options, parse_version
from ..verify import VerifyOptions, verify_paths
from ..verify.arch import UnknownArchFamilyError
from ..verify.compdb import CompileDatabaseError
from ..verify.compile import is_translation_unit
from ..verify.formats import emit
from ..verify.toolchain import ToolchainError
from ..verify.tree import target_rocm as tree_target
from .option_table import declared
from .params import PathArg

# the options that are VerifyOptions fields (the others say how the report is shown)
_VERIFY_FIELDS = {f.name for f in fields(VerifyOptions)}


@click.command("verify")
@click.argument(
    "paths", nargs=-1, required=True, type=PathArg(exists=True, file_okay=True, dir_okay=True)
)
@declared("verify")
def verify(paths: tuple[str, ...], **kw: Any) -> None:
    """Compile-check converted HIP sources (files or directories) for an AMD GPU.

    The tree's own include directories are found from its build files, a
    compile_commands.json or the tree itself. A file that needs a third-party header that is
    not there (torch/extension.h) is NOT CHECKABLE, not failed: pass the directory with -I.

    Exit status: 0 nothing checkable failed, 1 a file failed, 2 usage or toolchain error.
    """
    _check_paths(kw)
    sources = _hip_sources(paths)
    convert_options = None
    explicit_target = None
    if kw["target_rocm"]:
        try:
            explicit_target = parse_version(kw["target_rocm"])
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--target-rocm") from None
        convert_options = Options(target_rocm=explicit_target)
    target, target_from = tree_target(sources, explicit_target)
    given = {name: value for name, value in kw.items() if name in _VERIFY_FIELDS}
    options = VerifyOptions(**given | {"target_rocm": target})
    try:
        report = verify_paths(sources, options, convert_options=convert_options)
    except UnknownArchFamilyError as exc:
        raise click.BadParameter(str(exc), param_hint="--arch") from None
    except ToolchainError as exc:
        where = ".".join(map(str, target[:2]))
        click.echo(f"hipify-py: error: {exc} (target ROCm {where}, from {target_from})", err=True)
        sys.exit(2)
    except CompileDatabaseError as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        sys.exit(2)
    emit(report, kw["fmt"], kw["show_warnings"])
    sys.exit(report.exit_code if report.files else 2)


def _check_paths(kw: dict[str, Any]) -> None:
    """--hip-include and --rocm-path must hold what they are given for."""
    hip_include, rocm_path = kw["hip_include"], kw["rocm_path"]
    if hip_include and not (Path(hip_include) / "hip" / "hip_runtime.h").is_file():
        raise click.BadParameter(
            f"{hip_include} has no hip/hip_runtime.h", param_hint="--hip-include"
        )
    hipcc = kw["toolchain"] == "hipcc"
    if rocm_path and hipcc and not (Path(rocm_path) / "bin" / "hipcc").is_file():
        raise click.BadParameter(
            f"{rocm_path} has no bin/hipcc (needed by --toolchain hipcc)", param_hint="--rocm-path"
        )


def _hip_sources(paths: Sequence[str]) -> list[str]:
    """``paths`` without named files that are not translation units (each skipped with a
    warning); exit 2 when nothing is left to check."""
    kept: list[str] = []
    skipped: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file() and not is_translation_unit(p):
            click.echo(f"hipify-py verify: warning: skipped {raw}: not a HIP source", err=True)
            skipped.append(str(raw))
        else:
            kept.append(raw)
    if not kept:
        click.echo(
            f"hipify-py verify: nothing to check: {', '.join(skipped)} "
            f"{'is not a HIP source' if len(skipped) == 1 else 'are not HIP sources'}",
            err=True,
        )
        sys.exit(2)
    return kept


def verify_tree(
    out_root: Path,
    cuda_root: Path,
    ctx: Context,
    *,
    arch: str = "gfx942",
    toolchain: str = "auto",
    fmt: str = "text",
) -> int:
    """``convert --verify``: check the tree ``convert`` just wrote, errors mapped to ``cuda_root``.

    Uses the conversion's own context, so re-converting in memory reproduces the written files
    exactly.  Returns the exit code (0 passed, 1 failed, 2 no toolchain).
    """
    from ..verify.report import render

    options = VerifyOptions.of_conversion(ctx, Path(cuda_root), arch, toolchain)
    try:
        report = verify_paths([out_root], options, convert_options=ctx)
    except (ToolchainError, CompileDatabaseError) as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        return 2
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        from rich.console import Console

        render(report, Console(stderr=True, highlight=False, soft_wrap=True))
    return report.exit_code
