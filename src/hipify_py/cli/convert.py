"""``hipify-py convert``: CUDA sources in, HIP sources out, and a summary of what happened.

Only options live here: where the output goes is an ``output.Destination`` carried out by an
``output.Writer`` as each file finishes.
"""

from __future__ import annotations

import json
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from ..cache import load_texts, open_cache, run
from ..context import Context
from ..discover import UsageError, project_index_of, renames_of
from ..output import Destination, WriteBack, WriteError, Writer, plan
from ..portable.tree import write_compat_headers
from ..report.summary import Summary
from ..result import FileStatus, Outcome, RunMode
from ..shard import select
from .common import build_options_context, load_config, write_or_fail
from .nothing import refuse_when_nothing_to_convert
from .option_table import declared
from .params import PathArg
from .progress import progress


@click.command(context_settings={"ignore_unknown_options": False})
@click.argument("paths", nargs=-1, required=True, type=PathArg(path_type=Path))
@declared("convert")
def convert(paths: tuple[Path, ...], **kw: Any) -> None:
    """Convert CUDA sources under PATHS to HIP.

    By default the inputs are never modified: a directory DIR is mirrored to DIR-hip/ (or
    --out-dir), a single file f.cu is written to f.hip beside it (k.cuh, whose tree name is
    its own, to k_hip.cuh).
    """
    if kw["portable"]:  # the sources keep their names and their <<<>>> launches
        kw["keep_names"], kw["launch_syntax"] = True, "cuda"
    dest = _destination(paths, kw)
    kw["keep_names"] = dest.keep_names  # --in-place keeps the names too
    ctx, rules = build_options_context(kw, load_config(paths))
    try:
        refuse_when_nothing_to_convert(paths, kw["include"], kw["exclude"])
        writer = plan(paths, dest, ctx.options, kw["include"], kw["exclude"])
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    # the whole tree's, sharded too
    project = project_index_of(writer.items, paths, ctx.mappings)
    ctx = replace(ctx, renames=renames_of(writer.items, paths), project=project)
    items = select(writer.items, kw["shard"], lambda c: c.rel)
    mode = RunMode.REWRITE if kw["no_hazards"] else RunMode.CONVERT
    cache = open_cache(ctx, mode, rules, enabled=not kw["no_cache"])
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    summary = Summary()
    shown = err.is_terminal and not kw["quiet"] and len(items) > 20
    with progress(err, len(items), shown) as bar:
        outcomes = run(
            items, ctx, cache, jobs=kw["jobs"], mapping_files=rules, mode=mode, on_slow=bar.slow
        )
        try:
            with closing(outcomes):  # the workers stop with the loop, also on Ctrl-C
                for outcome in outcomes:
                    if outcome.cached and writer.keep(outcome):  # in place: no read, no write
                        summary.add(outcome)
                        written = None
                    else:
                        written = _emit(writer, load_texts(outcome, ctx, mode), summary)
                    settled = writer.settled(outcome.candidate.path)
                    if cache is not None and settled is not None:
                        cache.stamp_output(outcome, *settled)
                    bar.advance(outcome.candidate, written)
        finally:
            unsaved = _close(writer)
    if kw["portable"] and dest.mode in (WriteBack.TREE, WriteBack.IN_PLACE, WriteBack.FILE):
        roots = [writer.out_root] if writer.out_root is not None else list(paths)
        for path in write_compat_headers(roots, ctx):
            summary.written.append(str(path))
    summary.finish()
    code = _finish(writer, summary, ctx, paths, kw, err)
    if unsaved is not None:  # the files are whole, but the tree does not say what it holds
        err.print(f"hipify-py: error: {unsaved}", markup=False)
        code = max(code, 1)
    sys.exit(code)


def _close(writer: Writer) -> str | None:
    """Save the output tree's manifest (also after Ctrl-C); why it could not be, or None."""
    try:
        writer.close()
    except WriteError as exc:
        return str(exc)
    return None


def _destination(paths: tuple[Path, ...], kw: dict[str, Any]) -> Destination:
    """The one output mode the options ask for (usage errors for combinations)."""
    chosen = [
        (flag, mode)
        for flag, mode, on in (
            ("--out-dir", WriteBack.TREE, kw["out_dir"]),
            ("-o", WriteBack.FILE, kw["output_file"]),
            ("--stdout", WriteBack.STDOUT, kw["to_stdout"]),
            ("--in-place", WriteBack.IN_PLACE, kw["in_place"]),
            ("--dry-run", WriteBack.DIFF, kw["dry_run"]),
        )
        if on
    ]
    if len(chosen) > 1:
        raise click.UsageError(f"choose one of {', '.join(flag for flag, _ in chosen)}")
    single = len(paths) == 1 and paths[0].is_file()
    if kw["output_file"] or kw["to_stdout"]:
        if not single:
            raise click.UsageError("-o/--stdout take exactly one input file")
    if kw["diff_file"] and not kw["dry_run"]:
        raise click.UsageError("--diff-file goes with --dry-run")
    if str(kw["json_file"]) == "-" and (kw["to_stdout"] or (kw["dry_run"] and not kw["diff_file"])):
        taken = "--stdout writes the file" if kw["to_stdout"] else "--dry-run prints the diff"
        raise click.UsageError(
            f"--json - and {taken} on stdout, which would mix them: give --json a FILE"
            + ("" if kw["to_stdout"] else " or the diff --diff-file FILE")
        )
    if chosen:
        mode = chosen[0][1]
    else:
        mode = WriteBack.FILE if single else WriteBack.TREE
    return Destination(
        mode,
        out_dir=kw["out_dir"],
        output_file=kw["output_file"],
        keep_names=kw["keep_names"] or mode is WriteBack.IN_PLACE,
        backup=not kw["no_backup"],
        force=kw["force"],
    )


def _emit(writer: Writer, outcome: Outcome, summary: Summary) -> Path | None:
    """Count and write one outcome; a file that cannot be written is a failure, not a stop."""
    summary.add(outcome)
    try:
        written = writer.emit(outcome)
    except (OSError, UsageError) as exc:
        if outcome.status is FileStatus.FAILED:  # counted and said once already (a file
            return None  # that vanished cannot be copied either)
        summary.failed += 1
        # a WriteError names the file and the cause already
        message = str(exc) if isinstance(exc, WriteError) else f"cannot write: {exc}"
        summary.failures.append((str(outcome.candidate.path), message))
        written = None
    if written is not None:
        summary.written.append(str(written))
    outcome.result = None  # release the texts: memory stays flat
    return written


def _finish(
    writer: Writer,
    summary: Summary,
    ctx: Context,
    paths: tuple[Path, ...],
    kw: dict[str, Any],
    err: Console,
) -> int:
    """Diff, JSON, summary and --verify after the run; returns the exit code."""
    if writer.dest.mode is WriteBack.DIFF:
        diff = writer.diff_text()
        if kw["diff_file"]:
            write_or_fail(kw["diff_file"], diff)
        elif diff:
            from ..report.diff import print_diff  # difflib, for --dry-run only

            print_diff(Console(highlight=False, soft_wrap=True), diff)
    if kw["json_file"]:
        write_or_fail(kw["json_file"], json.dumps(summary.to_json(), indent=2) + "\n")
    if kw["quiet"]:
        summary.render_findings(err)
        summary.render_failures(err)
    else:
        summary.render(err)
        if writer.out_root is not None:
            err.print(f"HIP sources written to {writer.out_root} (inputs untouched)", markup=False)
    code = 1 if summary.failed else 0
    if kw["strict"] and (summary.unsupported or summary.errors):
        code = 1
    if kw["verify_after"] and writer.out_root is not None:
        from .verify import verify_tree  # optional heavy path

        verified = verify_tree(
            writer.out_root, paths[0], ctx, arch=kw["arch"], toolchain=kw["toolchain"]
        )
        code = max(code, verified)
    return code
