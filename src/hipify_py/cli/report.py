"""``hipify-py report PATHS``: the whole port in one file a person reviews (HTML) or a
pull-request comment (Markdown).

The conversion is done in memory with convert's options (nothing is written but the report),
so the report shows exactly what ``convert`` with the same options writes.  A compile check
is run with ``--verify`` (on a temporary copy of the converted tree), or read from
``hipify-py verify --format json`` output with ``--verify-json``.
"""

from __future__ import annotations

import json
from contextlib import closing, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .. import __version__
from ..cache import load_texts, open_cache, run
from ..context import Context
from ..discover import UsageError, discover, project_index_of, renames_of
from ..report.porting import (
    PortReport,
    VerifyIndex,
    entry_of,
    hidden_error_lines,
    load_port_formats,
    printable,
    show_diff,
)
from ..result import RunMode
from ..rules import load_rules
from ..shard import select
from ..verify.report_tree import VerifyTree
from .common import build_options_context, load_config, write_or_fail
from .option_table import declared, of_command
from .params import PathArg

DEFAULT_OUTPUT = {"html": "hipify-report.html", "markdown": "-"}


@click.command("report")
@click.argument("paths", nargs=-1, required=True, type=PathArg(path_type=Path))
@declared("report")
def report(paths: tuple[Path, ...], **kw: Any) -> None:
    """Write one porting report for PATHS: a summary of what needs a human (most severe
    first), then each changed file's diff with its findings at their lines, the build-flag
    changes to review, the rule pages, and the compile check of each file (--verify, or
    --verify-json with the output of `hipify-py verify --format json`).

    Exit status: 0 written, 1 nothing to report or the report could not be written, 2 usage.
    """
    load_rules()  # names and pages of the rules (they run in the worker processes)
    if kw["verify_run"] and kw["verify_json"]:
        raise click.UsageError("--verify and --verify-json cannot be combined")
    verify = _verify_index(kw["verify_json"])
    ctx, rules = build_options_context(kw, load_config(paths))
    try:
        items = discover(paths, kw["include"], kw["exclude"])
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    if not items:
        raise click.ClickException(
            f"nothing to report: no files under {', '.join(map(str, paths))}"
        )
    project = project_index_of(items, paths, ctx.mappings)
    ctx = replace(ctx, renames=renames_of(items, paths), project=project)
    title = kw["title"] or f"hipify-py porting report: {', '.join(map(str, paths))}"
    port = PortReport(title, __version__, _conversion_options())
    cache = open_cache(ctx, RunMode.CONVERT, rules, enabled=not kw["no_cache"])
    outcomes = run(
        select(items, kw["shard"], lambda c: c.rel),
        ctx,
        cache,
        jobs=kw["jobs"],
        mapping_files=rules,
        mode=RunMode.CONVERT,
    )
    with VerifyTree() if kw["verify_run"] else nullcontext() as tree, closing(outcomes):
        for outcome in outcomes:
            loaded = load_texts(outcome, ctx, RunMode.CONVERT)
            entry = entry_of(loaded, kw["keep_names"], verify)
            if tree is not None:
                tree.add(loaded, entry.out)
            port.files.append(entry)
        if tree is not None:
            verify = VerifyIndex(_verify(tree, ctx, paths[0], kw))
            _attach(port, verify, tree.root)
    port.files.sort(key=lambda e: e.path)
    if verify is not None:
        port.verify, port.verify_source = verify.run, str(kw["verify_json"] or "this run")
        port.unmatched_verify = verify.unmatched()
    text = load_port_formats()[kw["fmt"]](port)
    target = kw["output"] or Path(DEFAULT_OUTPUT[kw["fmt"]])
    write_or_fail(target, text)
    if str(target) != "-":
        click.echo(f"hipify-py: report written to {target}", err=True)


def _verify(tree: VerifyTree, ctx: Context, source: Path, kw: dict[str, Any]) -> dict:
    from ..verify.compdb import CompileDatabaseError  # only with --verify
    from ..verify.toolchain import ToolchainError

    click.echo(f"hipify-py: compile-checking the conversion for {kw['arch']}", err=True)
    try:
        return tree.verify(ctx, source, kw["arch"], kw["toolchain"])
    except (ToolchainError, CompileDatabaseError) as exc:
        raise click.ClickException(f"--verify: {exc}") from None


def _attach(port: PortReport, verify: VerifyIndex, root: Path) -> None:
    """Give each file its compile result; a file whose errors point at lines the diff does
    not show gets its diff again, with those lines."""
    for entry in port.files:
        entry.verify = verify.find(entry.path, entry.out)
        if entry.verify is None or not hidden_error_lines(entry):
            continue
        try:
            hip, cuda = (root / entry.out).read_bytes(), Path(entry.path).read_bytes()
        except OSError:
            continue
        text = [printable(data.decode("utf-8", "surrogateescape")) for data in (cuda, hip)]
        show_diff(entry, *text)


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
    conversion = {o.name for o in of_command("report") if o.conversion}
    out = []
    for param in ctx.command.params:
        name = param.name or ""
        if name not in conversion or not isinstance(param, click.Option):
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
