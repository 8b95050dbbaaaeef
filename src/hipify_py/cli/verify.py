"""``hipify-py verify``: compile-check HIP sources for an AMD GPU, errors mapped to CUDA lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..verify import VerifyOptions, verify_paths
from ..verify.arch import UnknownArchFamilyError
from ..verify.compdb import CompileDatabaseError
from ..verify.compile import is_translation_unit
from ..verify.discovery import KINDS
from ..verify.formats import FORMATS, emit
from ..verify.toolchain import ToolchainError
from ..verify.tree import target_rocm as tree_target
from .common import PathArg, check_arch


@click.command("verify")
@click.argument(
    "paths", nargs=-1, required=True, type=PathArg(exists=True, file_okay=True, dir_okay=True)
)
@click.option(
    "--arch",
    default="gfx942",
    show_default=True,
    callback=check_arch,
    help="AMD GPU to check for; falls back (with a warning) to the newest arch of the "
    "same family the compiler knows.",
)
@click.option(
    "--toolchain",
    "toolchain",
    type=click.Choice(KINDS),
    default="auto",
    show_default=True,
    help="hipcc, clang + HIP headers, or libclang (syntax only); auto prefers one that "
    "knows --arch, then the newest HIP.",
)
@click.option(
    "--syntax",
    "mode",
    flag_value="syntax",
    default=True,
    help="Host + device semantic check (-fsyntax-only; default).",
)
@click.option(
    "--codegen",
    "mode",
    flag_value="codegen",
    help="Also build the code object (hipcc, or clang with the ROCm device libraries; "
    "without them clang stops at gfx ISA).",
)
@click.option(
    "--rocm-path",
    type=PathArg(file_okay=False),
    help="ROCm install or header set (bin/hipcc, include/hip, llvm/bin/clang, device "
    "libraries; also a `hipify-py toolchain fetch --dest` directory).",
)
@click.option(
    "--hip-include",
    type=PathArg(file_okay=False),
    help="Directory containing hip/hip_runtime.h for clang [env HIPIFY_PY_HIP_INCLUDE].",
)
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add an include directory.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro.")
@click.option("--std", default="c++17", show_default=True, help="C++ standard.")
@click.option(
    "-p",
    "--build-path",
    type=PathArg(exists=True),
    help="Directory with compile_commands.json; each file gets its entry's -I/-D.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    help="Files compiled in parallel (default: one per core).",
)
@click.option(
    "--cuda-root",
    "--from",
    "cuda_root",
    type=PathArg(exists=True, file_okay=False),
    help="The CUDA tree these files were converted from: errors are also shown at "
    "the CUDA line (the conversion is redone in memory to map them).",
)
@click.option(
    "--target-rocm",
    default=None,
    help="ROCm version the tree was converted for (to reproduce the conversion).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: path:line:col: lines; github: workflow annotations; sarif; json.",
)
@click.option("--warnings", "show_warnings", is_flag=True, help="Also list compiler warnings.")
def verify(
    paths,
    arch,
    toolchain,
    mode,
    rocm_path,
    hip_include,
    include_dirs,
    defines,
    std,
    build_path,
    jobs,
    cuda_root,
    target_rocm,
    fmt,
    show_warnings,
):
    """Compile-check converted HIP sources (files or directories) for an AMD GPU.

    The tree's own include directories are found from its build files, a
    compile_commands.json or the tree itself. A file that needs a third-party header that is
    not there (torch/extension.h) is NOT CHECKABLE, not failed: pass the directory with -I.

    Exit status: 0 nothing checkable failed, 1 a file failed, 2 usage or toolchain error.
    """
    if hip_include and not (Path(hip_include) / "hip" / "hip_runtime.h").is_file():
        raise click.BadParameter(
            f"{hip_include} has no hip/hip_runtime.h", param_hint="--hip-include"
        )
    if rocm_path and toolchain == "hipcc" and not (Path(rocm_path) / "bin" / "hipcc").is_file():
        raise click.BadParameter(
            f"{rocm_path} has no bin/hipcc (needed by --toolchain hipcc)", param_hint="--rocm-path"
        )
    paths = _hip_sources(paths)
    convert_options = None
    explicit_target = None
    if target_rocm:
        from ..context import Options, parse_version

        try:
            explicit_target = parse_version(target_rocm)
            convert_options = Options(target_rocm=explicit_target)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--target-rocm") from None
    target, target_from = tree_target(paths, explicit_target)
    options = VerifyOptions(
        arch=arch,
        toolchain=toolchain,
        mode=mode,
        rocm_path=rocm_path,
        hip_include=hip_include,
        include_dirs=tuple(include_dirs),
        defines=tuple(defines),
        std=std,
        build_path=build_path,
        jobs=jobs,
        cuda_root=cuda_root,
        target_rocm=target,
    )
    try:
        report = verify_paths(paths, options, convert_options=convert_options)
    except UnknownArchFamilyError as exc:
        raise click.BadParameter(str(exc), param_hint="--arch") from None
    except ToolchainError as exc:
        where = ".".join(map(str, target[:2]))
        click.echo(f"hipify-py: error: {exc} (target ROCm {where}, from {target_from})", err=True)
        sys.exit(2)
    except CompileDatabaseError as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        sys.exit(2)
    emit(report, fmt, show_warnings)
    if not report.files:
        sys.exit(2)
    sys.exit(report.exit_code)


def _hip_sources(paths) -> list[str]:
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
    out_root, cuda_root, ctx, *, arch: str = "gfx942", toolchain: str = "auto", fmt: str = "text"
) -> int:
    """``convert --verify``: check the tree ``convert`` just wrote, errors mapped to ``cuda_root``.

    Uses the conversion's own context, so re-converting in memory reproduces the written files
    exactly.  Returns the exit code (0 passed, 1 failed, 2 no toolchain).
    """
    from pathlib import Path

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
