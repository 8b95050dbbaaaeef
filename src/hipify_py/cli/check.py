"""``hipify-py check PATHS``: the CI gate for hazards, unsupported APIs and stale HIP output.

Exit codes: 0 clean; 1 findings at or above ``--fail-on``, stale/missing HIP output, or files
that could not be checked; 2 usage error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console

from ..config import CONFIG_NAME, split_ids, unknown_pattern
from ..discover import UsageError
from ..findings import Severity
from ..gate import run_check
from ..output.manifest import MANIFEST_NAME, Manifest, ManifestError, options_from_record
from ..policy import RunPolicy
from ..report import findings_baseline
from ..report.findings_common import CheckReport
from ..report.formats import Style, load_formats, render
from ..rules import load_rules
from .common import (
    PathArg,
    build_options_context,
    common_options,
    conversion_flags,
    conversion_options,
    load_config,
    selection_options,
    write_or_fail,
)
from .nothing import refuse_when_nothing_checked


def _check_patterns(patterns: Sequence[str], option: str) -> None:
    bad = unknown_pattern(patterns)
    if bad is not None:
        raise click.BadParameter(
            f"no rule ID starts with {bad!r} (see `hipify-py rules`)", param_hint=option
        )


# --------------------------------------------------------------------------- files


# --------------------------------------------------------------------------- command


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=PathArg(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(load_formats())),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--output",
    "-o",
    "output",
    type=PathArg(path_type=Path, dir_okay=False),
    help="Write the report to FILE instead of standard output.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the check fail.",
)
@click.option(
    "--select",
    "select",
    multiple=True,
    metavar="IDS",
    help="Only these rule IDs or prefixes (comma list, e.g. HZ1,HZ300).",
)
@click.option(
    "--ignore",
    "ignore",
    multiple=True,
    metavar="IDS",
    help="Skip these rule IDs or prefixes (comma list).",
)
@click.option(
    "--baseline",
    type=PathArg(path_type=Path, dir_okay=False),
    help="Hide findings recorded in this baseline file (only new ones fail).",
)
@click.option(
    "--write-baseline",
    type=PathArg(path_type=Path, dir_okay=False),
    help="Record today's findings in FILE and exit 0.",
)
@click.option(
    "--in-sync",
    "--out-dir",
    "hip_dir",
    type=PathArg(path_type=Path),
    help="Also fail when the committed HIP tree in DIR is missing, stale or orphaned files "
    "(options come from the manifest convert wrote there).",
)
@conversion_options
@click.option(
    "--config",
    "config_path",
    type=PathArg(path_type=Path, dir_okay=False),
    help=f"Project config (default: the nearest {CONFIG_NAME}).",
)
@click.option(
    "--no-config", is_flag=True, help=f"Ignore the project config ({CONFIG_NAME}, pyproject.toml)."
)
@click.option(
    "-q", "--quiet", is_flag=True, help="Only the findings and failures; no summary line."
)
@selection_options
@common_options
def check(paths: tuple[Path, ...], **kw: Any) -> None:
    """Report porting hazards and unsupported APIs in PATHS; optionally check that the
    committed HIP output (--in-sync DIR) is up to date.

    The conversion options (--keep-names, --launch-syntax, --fix, --unsafe-fixes, --annotate)
    say how the --in-sync tree was made; the manifest convert writes there records them.

    Exit status: 0 clean, 1 findings at or above --fail-on (or stale HIP output), 2 usage error.
    """
    load_rules()
    select_ids, ignore_ids = split_ids(kw["select"]), split_ids(kw["ignore"])
    _check_patterns(select_ids, "--select")
    _check_patterns(ignore_ids, "--ignore")
    if kw["baseline"] and kw["write_baseline"]:
        raise click.UsageError("--baseline and --write-baseline cannot be combined")
    hip_dir: Path | None = kw["hip_dir"]
    _check_in_sync_flags(kw, hip_dir)
    config = load_config(paths, config_path=kw["config_path"], no_config=kw["no_config"])
    manifest = _manifest(hip_dir)
    ctx, rules = build_options_context(kw, config, **_conversion_options(kw, manifest, paths))
    try:
        report = run_check(
            paths,
            ctx,
            mapping_files=rules,
            hip_dir=hip_dir,
            manifest=manifest,
            include=kw["include"],
            exclude=kw["exclude"],
            jobs=kw["jobs"],
            shard=kw["shard"],
            use_cache=not kw["no_cache"],
        )
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    baseline = None
    if kw["baseline"]:
        try:
            baseline = (findings_baseline.load(kw["baseline"]), kw["baseline"])
        except findings_baseline.BaselineError as exc:
            raise click.UsageError(str(exc)) from None
    policy = RunPolicy(config, select_ids, ignore_ids, Severity(kw["fail_on"]), baseline)
    failed = policy.apply(report)
    if kw["write_baseline"]:
        _write_baseline(report, kw["write_baseline"])
    _emit(report, kw["fmt"], kw["output"], kw["quiet"])
    if report.files_checked == 0 and not report.failures and kw["shard"] is None:
        refuse_when_nothing_checked(paths)  # a shard may hold no file of a small tree
    sys.exit(1 if failed else 0)


def _check_in_sync_flags(kw: dict[str, Any], hip_dir: Path | None) -> None:
    convert_flags = [
        name
        for name, on in (
            ("--keep-names", kw["keep_names"]),
            ("--launch-syntax cuda", kw["launch_syntax"] == "cuda"),
            ("--fix", kw["fix"]),
            ("--unsafe-fixes", kw["unsafe_fixes"]),
            ("--annotate", kw["annotate"]),
        )
        if on
    ]
    if convert_flags and not hip_dir:
        verb = "needs" if len(convert_flags) == 1 else "need"
        raise click.UsageError(f"{', '.join(convert_flags)} {verb} --in-sync DIR")
    if hip_dir is not None and hip_dir.exists() and not hip_dir.is_dir():
        raise click.UsageError(f"--in-sync: {hip_dir} is not a directory")


def _manifest(hip_dir: Path | None) -> Manifest | None:
    if hip_dir is None or not hip_dir.is_dir():
        return None
    try:
        return Manifest.load(hip_dir)
    except ManifestError as exc:
        raise click.UsageError(str(exc)) from None


# check option -> the Options fields it sets (for options recorded in a manifest)
_OPTION_FIELDS = {
    "launch_syntax": ("launch_syntax",),
    "fix": ("fix",),
    "unsafe_fixes": ("unsafe_fixes", "fix"),
    "annotate": ("annotate",),
    "keep_names": ("keep_names",),
    "roc": ("roc",),
    "miopen": ("miopen",),
    "experimental": ("experimental",),
    "hip_data_types": ("hip_data_types",),
    "target_rocm": ("target_rocm",),
    "pytorch": ("pytorch",),
    "skip_inactive": ("skip_inactive",),
    "include_dirs": ("include_dirs",),
    "cuda_path": ("include_dirs",),
    "build_dir": ("include_dirs", "defines"),
    "defines": ("defines",),
    "clang_args": ("extra_clang_args",),
}


def _conversion_options(
    kw: dict[str, Any], manifest: Manifest | None, paths: Sequence[Path]
) -> dict[str, Any]:
    """The Options ``convert`` used: recorded in the HIP tree's manifest, except where an
    option is given on this command line; without a manifest, this command line's flags."""
    flags = conversion_flags(
        launch_syntax=kw["launch_syntax"],
        fix=kw["fix"],
        unsafe_fixes=kw["unsafe_fixes"],
        annotate=kw["annotate"],
        keep_names=kw["keep_names"],
    )
    if manifest is None:
        return flags
    # the folders checked (and the working directory) are the project the recorded include
    # directories must stay in
    project = [Path.cwd(), *(p if p.is_dir() else p.parent for p in paths)]
    try:
        recorded = options_from_record(manifest.options, manifest.out_root / MANIFEST_NAME, project)
    except ManifestError as exc:
        raise click.UsageError(str(exc)) from None
    ctx = click.get_current_context()
    for param, fields in _OPTION_FIELDS.items():
        if ctx.get_parameter_source(param) is ParameterSource.COMMANDLINE:
            for name in fields:
                recorded.pop(name, None)
    return {"overrides": recorded, **flags}


def _write_baseline(report: CheckReport, path: Path) -> None:
    write_or_fail(path, findings_baseline.dump(report, path))
    count = sum(map(findings_baseline.recordable, report.findings))
    click.echo(f"hipify-py: recorded {count} finding(s) in {path}", err=True)
    sys.exit(0)


def _emit(report: CheckReport, fmt: str, output: Path | None, quiet: bool) -> None:
    terminal = output is None and Console().is_terminal
    text = render(report, fmt, Style(terminal=terminal, quiet=quiet))
    if output is not None:
        write_or_fail(output, text)
    else:
        click.echo(text, nl=False, color=True if terminal else None)  # FORCE_COLOR in a pipe
