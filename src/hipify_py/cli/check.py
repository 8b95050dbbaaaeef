"""``hipify-py check PATHS``: the CI gate for hazards, unsupported APIs and stale HIP output.

Exit codes: 0 clean; 1 findings at or above ``--fail-on``, stale/missing HIP output, or files
that could not be checked; 2 usage error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console

from ..config import unknown_pattern
from ..discover import UsageError
from ..findings import Severity
from ..gate import run_check
from ..output.manifest import MANIFEST_NAME, Manifest, ManifestError, options_from_record
from ..policy import RunPolicy
from ..report import findings_baseline
from ..report.findings_common import CheckReport
from ..report.formats import Style, render
from ..rule_ids import split_ids
from ..rules import RULES, load_rules
from .common import build_options_context, load_config, write_or_fail
from .nothing import refuse_when_nothing_checked
from .option_table import declared, fields_set_by, of_command
from .params import PathArg


def _check_patterns(patterns: Sequence[str], option: str) -> None:
    bad = unknown_pattern(patterns)
    if bad is not None:
        raise click.BadParameter(
            f"no rule ID starts with {bad!r} (see `hipify-py rules`)", param_hint=option
        )


# the options that say how convert wrote the --in-sync tree
CONVERSION_FLAGS = ("keep_names", "launch_syntax", "fix", "unsafe_fixes", "annotate")


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=PathArg(path_type=Path))
@declared("check")
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
    ctx, rules = build_options_context(kw, config, overrides=_recorded(manifest, paths))
    named = tuple(i for i in select_ids if i in RULES and RULES[i].opt_in)
    if named:  # an opt-in rule named in full is asked for
        ctx = replace(ctx, options=replace(ctx.options, enable=(*ctx.options.enable, *named)))
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
    """The options that say how convert wrote a tree (``--launch-syntax cuda``) need one."""
    convert_flags = [
        o.decls[0] + ("" if o.attrs.get("is_flag") else f" {kw[o.name]}")
        for o in of_command("check")
        if o.name in CONVERSION_FLAGS and o.given(kw[o.name])
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


def _recorded(manifest: Manifest | None, paths: Sequence[Path]) -> dict[str, Any]:
    """The Options ``convert`` used, recorded in the HIP tree's manifest, less the fields an
    option given on this command line sets."""
    if manifest is None:
        return {}
    # the folders checked (and the working directory) are the project the recorded include
    # directories must stay in
    project = [Path.cwd(), *(p if p.is_dir() else p.parent for p in paths)]
    try:
        recorded = options_from_record(manifest.options, manifest.out_root / MANIFEST_NAME, project)
    except ManifestError as exc:
        raise click.UsageError(str(exc)) from None
    ctx = click.get_current_context()
    given = [n for n in ctx.params if ctx.get_parameter_source(n) is ParameterSource.COMMANDLINE]
    for name in fields_set_by("check", given):
        recorded.pop(name, None)
    return recorded


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
