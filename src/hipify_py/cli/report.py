"""``hipify-py report PATHS``: the whole port in one file a person reviews (HTML) or a
pull-request comment (Markdown).

The conversion is done in memory with convert's options (nothing is written but the report),
so the report shows exactly what ``convert`` with the same options writes.  A compile check
is not run here: ``--verify-json`` takes the result of ``hipify-py verify --format json``.
"""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .. import __version__
from ..cache import open_cache
from ..discover import UsageError, renames_of, walk
from ..report.porting import PortReport, VerifyIndex, entry_of, load_port_formats
from ..result import RunMode
from ..rules import load_rules
from ..runner import load_texts, run
from ..shard import select
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

DEFAULT_OUTPUT = {"html": "hipify-report.html", "markdown": "-"}
# options that say where the report goes, not how the code was converted
_NOT_CONVERSION = {"fmt", "output", "verify_json", "title", "jobs", "no_cache", "shard"}


@click.command("report")
@click.argument("paths", nargs=-1, required=True, type=PathArg(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(load_port_formats())),
    default="html",
    show_default=True,
    help="html: one self-contained page; markdown: a short pull-request comment.",
)
@click.option(
    "-o",
    "--output",
    type=PathArg(path_type=Path, dir_okay=False, allow_dash=True),
    help="Write the report to FILE ('-' for stdout; default: hipify-report.html for html, "
    "stdout for markdown).",
)
@click.option(
    "--verify-json",
    type=PathArg(path_type=Path, dir_okay=False, exists=True),
    help="Show each translation unit's result from `hipify-py verify --format json` output.",
)
@click.option("--title", help="The report's title (default: names the PATHS).")
@conversion_options
@selection_options
@common_options
def report(paths: tuple[Path, ...], **kw: Any) -> None:
    """Write one porting report for PATHS: a summary of what needs a human (most severe
    first), then each changed file's diff with its findings at their lines, the build-flag
    changes to review, the rule pages, and the compile check of each file (--verify-json).

    Exit status: 0 written, 1 nothing to report or the report could not be written, 2 usage.
    """
    load_rules()  # names and pages of the rules (they run in the worker processes)
    verify = _verify_index(kw["verify_json"])
    flags = conversion_flags(
        launch_syntax=kw["launch_syntax"],
        fix=kw["fix"],
        unsafe_fixes=kw["unsafe_fixes"],
        annotate=kw["annotate"],
        keep_names=kw["keep_names"],
    )
    ctx, rules = build_options_context(kw, load_config(paths), **flags)
    try:
        items = list(walk(paths, kw["include"], kw["exclude"]))
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    if not items:
        raise click.ClickException(
            f"nothing to report: no files under {', '.join(map(str, paths))}"
        )
    ctx = replace(ctx, renames=renames_of(items, paths))
    title = kw["title"] or f"hipify-py porting report: {', '.join(map(str, paths))}"
    port = PortReport(title, __version__, _conversion_options())
    cache = open_cache(ctx, RunMode.CONVERT, rules, enabled=not kw["no_cache"])
    outcomes = run(
        select(items, kw["shard"], lambda c: c.rel),
        ctx,
        jobs=kw["jobs"],
        mapping_files=rules,
        mode=RunMode.CONVERT,
        cache=cache,
    )
    with closing(outcomes):
        for outcome in outcomes:
            loaded = load_texts(outcome, ctx, RunMode.CONVERT)
            port.files.append(entry_of(loaded, kw["keep_names"], verify))
    port.files.sort(key=lambda e: e.path)
    if verify is not None:
        port.verify, port.verify_source = verify.run, str(kw["verify_json"])
        port.unmatched_verify = verify.unmatched()
    text = load_port_formats()[kw["fmt"]](port)
    target = kw["output"] or Path(DEFAULT_OUTPUT[kw["fmt"]])
    write_or_fail(target, text)
    if str(target) != "-":
        click.echo(f"hipify-py: report written to {target}", err=True)


def _verify_index(path: Path | None) -> VerifyIndex | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="--verify-json") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise click.BadParameter(
            f"{path} is not the output of `hipify-py verify --format json`",
            param_hint="--verify-json",
        )
    return VerifyIndex(data)


def _conversion_options() -> list[str]:
    """The conversion options given on the command line, as the report's header names them."""
    ctx = click.get_current_context()
    out = []
    for param in ctx.command.params:
        name = param.name or ""
        if name in _NOT_CONVERSION or not isinstance(param, click.Option):
            continue
        if ctx.get_parameter_source(name) is not ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[name]
        flag = param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0]
        if param.is_flag:
            out.append(flag)
        else:
            values = value if isinstance(value, tuple) else (value,)
            out += [f"{flag} {v}" for v in values]
    return out
