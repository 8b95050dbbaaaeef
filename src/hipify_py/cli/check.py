"""``hipify-py check PATHS``: the CI gate for hazards, unsupported APIs and stale HIP output.

Exit codes: 0 clean; 1 findings at or above ``--fail-on``, stale/missing HIP output, or files
that could not be checked; 2 usage error.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console

from .. import __version__
from ..config import CONFIG_NAME, Config, ConfigFileError, matches_rule, split_ids, unknown_pattern
from ..findings import Severity
from ..report.findings_common import CheckReport
from ..rules import load_rules
from .common import (
    ConfigError,
    build_options_context,
    common_options,
    conversion_flags,
    selection_options,
    write_or_fail,
)

FORMATS = ("text", "json", "sarif", "github", "markdown")
STALE_RULE = "HZ001"


def _check_patterns(patterns: Sequence[str], option: str) -> None:
    bad = unknown_pattern(patterns)
    if bad is not None:
        raise click.BadParameter(
            f"no rule ID starts with {bad!r} (see `hipify-py rules`)", param_hint=option
        )


# --------------------------------------------------------------------------- files


def _display(path: Path) -> str:
    try:
        return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:
        return str(path)


def _candidates(
    paths: Sequence[Path], include: Sequence[str], exclude: Sequence[str], skip: Sequence[Path]
):
    from ..discover import UsageError, walk

    try:
        return list(walk(paths, include, exclude, skip))
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None


def _first_difference(expected: str, actual: str) -> tuple[int, str]:
    exp, act = expected.splitlines(), actual.splitlines()
    matcher = difflib.SequenceMatcher(None, exp, act, autojunk=False)
    for tag, i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1, exp[i1] if i1 < len(exp) else ""
    return min(len(exp), len(act)) + 1, ""


# --------------------------------------------------------------------------- command


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(path_type=Path, dir_okay=False),
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
    type=click.Path(path_type=Path, dir_okay=False),
    help="Hide findings recorded in this baseline file (only new ones fail).",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record today's findings in FILE and exit 0.",
)
@click.option(
    "--in-sync",
    "--out-dir",
    "hip_dir",
    type=click.Path(path_type=Path),
    help="Also fail when the committed HIP tree in DIR is missing files or is stale.",
)
@click.option(
    "--keep-names",
    is_flag=True,
    help="With --in-sync: HIP files keep the CUDA names (no .cu -> .hip).",
)
@click.option(
    "--launch-syntax",
    type=click.Choice(["hip", "cuda"]),
    default="hip",
    show_default=True,
    help="With --in-sync: the tree was converted with this `convert --launch-syntax`.",
)
@click.option("--fix", is_flag=True, help="With --in-sync: the tree was converted with --fix.")
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="With --in-sync: the tree was converted with --unsafe-fixes.",
)
@click.option(
    "--annotate", is_flag=True, help="With --in-sync: the tree was converted with --annotate."
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help=f"Project config (default: the nearest {CONFIG_NAME}).",
)
@click.option("--no-config", is_flag=True, help=f"Ignore {CONFIG_NAME} files.")
@selection_options
@common_options
def check(
    paths,
    fmt,
    output,
    fail_on,
    select,
    ignore,
    baseline,
    write_baseline,
    hip_dir,
    keep_names,
    launch_syntax,
    fix,
    unsafe_fixes,
    annotate,
    include,
    exclude,
    config_path,
    no_config,
    jobs,
    **common,
) -> None:
    """Report porting hazards and unsupported APIs in PATHS; optionally check that the
    committed HIP output (--in-sync DIR) is up to date.

    Exit status: 0 clean, 1 findings at or above --fail-on (or stale HIP output), 2 usage error.
    """
    load_rules()
    select_ids, ignore_ids = split_ids(select), split_ids(ignore)
    _check_patterns(select_ids, "--select")
    _check_patterns(ignore_ids, "--ignore")
    if baseline and write_baseline:
        raise click.UsageError("--baseline and --write-baseline cannot be combined")
    convert_flags = [
        name
        for name, on in (
            ("--keep-names", keep_names),
            ("--launch-syntax cuda", launch_syntax == "cuda"),
            ("--fix", fix),
            ("--unsafe-fixes", unsafe_fixes),
            ("--annotate", annotate),
        )
        if on
    ]
    if convert_flags and not hip_dir:
        verb = "needs" if len(convert_flags) == 1 else "need"
        raise click.UsageError(f"{', '.join(convert_flags)} {verb} --in-sync DIR")
    if hip_dir is not None and hip_dir.exists() and not hip_dir.is_dir():
        raise click.UsageError(f"--in-sync: {hip_dir} is not a directory")
    try:
        if no_config:
            config = Config()
        elif config_path:
            config = Config.load(config_path)
        else:
            config = Config.find(paths[0])
    except ConfigFileError as exc:
        raise ConfigError(str(exc)) from None

    # The same Options `convert` builds from these flags, so --in-sync reproduces its output.
    options_kw = conversion_flags(
        launch_syntax=launch_syntax,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        annotate=annotate,
        keep_names=keep_names,
    )
    ctx, mapping_files = build_options_context(
        common, list(paths), config_file=not no_config, **options_kw
    )
    report = run_check(
        paths,
        ctx,
        mapping_files=mapping_files,
        hip_dir=hip_dir,
        keep_names=keep_names,
        include=include,
        exclude=exclude,
        jobs=jobs,
    )
    report.findings = [
        f
        for f in report.findings
        if (not select_ids or matches_rule(f.rule, select_ids))
        and not matches_rule(f.rule, ignore_ids)
        and not config.ignored(f)
    ]
    # Stale HIP output (HZ001) was asked for with --in-sync: neither --select nor a prefix such
    # as `--ignore HZ` hides it, only naming HZ001 in --ignore, `ignore:` or the CUDA source's
    # `per-file-ignores:`.
    report.stale = [
        s
        for s in report.stale
        if STALE_RULE not in ignore_ids
        and not config.ignores_rule(STALE_RULE, s.source, exact=True)
    ]

    from ..report import findings_baseline

    if write_baseline:
        text = findings_baseline.dump(report, write_baseline)
        write_or_fail(write_baseline, lambda: write_baseline.write_text(text, encoding="utf-8"))
        click.echo(
            f"hipify-py: recorded {len(report.findings)} finding(s) in {write_baseline}", err=True
        )
        sys.exit(0)
    if baseline:
        try:
            known = findings_baseline.load(baseline)
        except findings_baseline.BaselineError as exc:
            raise click.UsageError(str(exc)) from None
        findings_baseline.apply(report, known, baseline)

    _emit(report, fmt, output)
    threshold = Severity(fail_on).rank
    failed = any(f.severity.rank >= threshold for f in report.findings)
    sys.exit(1 if failed or report.stale or report.failures else 0)


def run_check(
    paths: Sequence[Path],
    ctx,
    *,
    mapping_files: Sequence[str] = (),
    hip_dir: Path | None = None,
    keep_names: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    jobs: int = 0,
):
    """Check files and build the report (no filtering, no output)."""
    from ..discover import mirror_layout, output_name
    from ..report.findings_common import StaleFile
    from ..runner import run

    skip = [hip_dir] if hip_dir is not None else []
    cands = mirror_layout(_candidates(paths, include, exclude, skip), paths)
    mode = "convert" if hip_dir is not None else "check"
    report = CheckReport(findings=[], tool_version=__version__)
    for outcome in run(cands, ctx, jobs=jobs, mode=mode, mapping_files=mapping_files):
        cand = outcome.candidate
        shown = _display(cand.path)
        if outcome.status == "copied":
            continue
        if outcome.status == "binary":
            # A CUDA source that is binary or not UTF-8 could not be checked: a failure.
            reason = outcome.message.removesuffix("; left unchanged")
            reason = reason.removesuffix(" left unchanged").strip() or "binary file"
            report.failures.append((shown, f"{reason}; cannot be checked"))
            continue
        if outcome.status == "failed" and outcome.result is None:
            report.failures.append((shown, outcome.message))
            continue
        result = outcome.result
        if result is None:
            continue
        report.files_checked += 1
        report.sources[shown] = result.printable_original
        for f in result.findings:
            (report.fixed if f.fixed else report.findings).append(replace(f, path=shown))
        if outcome.status == "failed" or result.rule_errors:
            report.failures.append((shown, outcome.message or "; ".join(result.rule_errors)))
            continue
        if hip_dir is None or cand.path.suffix == ".hip":
            continue
        target = hip_dir / output_name(cand.rel, keep_names)
        if not target.is_file():
            report.stale.append(StaleFile(_display(target), shown, "missing"))
            continue
        try:
            committed = target.read_text("utf-8", "surrogateescape")
        except (OSError, UnicodeDecodeError) as exc:
            report.failures.append((_display(target), f"cannot read: {exc}"))
            continue
        if committed != result.text:
            line, expected = _first_difference(result.text, committed)
            report.stale.append(StaleFile(_display(target), shown, "stale", line, expected))
    report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.rule))
    return report


def render(report, fmt: str) -> str | None:
    """The report as text in ``fmt`` (None for ``text``, which prints with rich)."""
    from ..report import findings_github, findings_json, findings_markdown, findings_sarif

    return {
        "json": findings_json.render,
        "sarif": findings_sarif.render,
        "github": findings_github.render,
        "markdown": findings_markdown.render,
    }.get(fmt, lambda r: None)(report)


def _emit(report, fmt: str, output: Path | None) -> None:
    text = render(report, fmt)
    if text is None:
        from ..report import findings_text

        if output is not None:

            def write_text_report() -> None:
                with output.open("w", encoding="utf-8") as fh:
                    findings_text.render(report, Console(file=fh, no_color=True, width=120))

            write_or_fail(output, write_text_report)
        else:
            findings_text.render(report, Console())
        return
    if output is not None:
        write_or_fail(output, lambda: output.write_text(text, encoding="utf-8"))
    else:
        click.echo(text, nl=False)
