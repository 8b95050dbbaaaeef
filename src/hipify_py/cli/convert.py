"""``hipify-py convert``: CUDA sources in, HIP sources out, and a summary of what happened."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..config import Config, ConfigFileError
from ..context import Context, Options, parse_version
from ..discover import (
    UsageError,
    default_out_root,
    mirror_layout,
    output_name,
    renames_of,
    safe_target,
    single_file_output,
    walk,
)
from ..report.diff import print_diff, unified_diff
from ..report.summary import Summary
from ..runner import Outcome, run
from .common import (
    ConfigError,
    build_options_context,
    check_arch,
    common_options,
    conversion_flags,
    selection_options,
    write_or_fail,
)

BACKUP_SUFFIX = ".prehip"


@click.command(context_settings={"ignore_unknown_options": False})
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out-dir",
    type=click.Path(path_type=Path),
    help="Write the converted tree here (default: a sibling DIR-hip/).",
)
@click.option(
    "-o",
    "--output",
    "output_file",
    type=click.Path(path_type=Path),
    help="Write the single converted input to FILE.",
)
@click.option("--stdout", "to_stdout", is_flag=True, help="Print the single converted input.")
@click.option(
    "--in-place",
    is_flag=True,
    help=f"Rewrite the inputs atomically, keeping a {BACKUP_SUFFIX} backup.",
)
@click.option("--no-backup", is_flag=True, help="With --in-place: keep no backup.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print a unified diff.")
@click.option(
    "--diff-file",
    type=click.Path(path_type=Path),
    help="With --dry-run: save the diff to FILE instead of printing it.",
)
@click.option("--keep-names", is_flag=True, help="Keep .cu names instead of renaming to .hip.")
@selection_options
@click.option(
    "--launch-syntax",
    type=click.Choice(["hip", "cuda"]),
    default="hip",
    show_default=True,
    help="hip: hipLaunchKernelGGL(...); cuda: keep <<<...>>> (HIP accepts it).",
)
@click.option(
    "--offload-arch",
    "offload_arch",
    multiple=True,
    callback=lambda ctx, param, values: tuple(check_arch(ctx, param, v) for v in values),
    metavar="GFX",
    help="AMD GPU the converted build files compile for (repeatable; default gfx942).",
)
@click.option("--fix", is_flag=True, help="Apply the safe fixes hazard rules offer.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that need review.")
@click.option(
    "--annotate", is_flag=True, help="Write a // hipify-py[ID] comment above each finding."
)
@click.option("--no-hazards", is_flag=True, help="Convert only; skip the hazard rules.")
@click.option(
    "--json",
    "json_file",
    type=click.Path(path_type=Path, allow_dash=True),
    help="Write the summary as JSON to FILE ('-' for stdout).",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 when unsupported APIs or error-level findings remain."
)
@click.option(
    "--verify",
    "verify_after",
    is_flag=True,
    help="Compile-check the converted files for an AMD target afterwards.",
)
@click.option(
    "--arch",
    default="gfx942",
    show_default=True,
    callback=check_arch,
    help="With --verify: the AMD GPU to check for.",
)
@click.option(
    "--toolchain",
    type=click.Choice(["auto", "hipcc", "clang", "libclang"]),
    default="auto",
    show_default=True,
    help="With --verify: which compiler to use.",
)
@click.option("-q", "--quiet", is_flag=True, help="No summary table.")
@common_options
def convert(
    paths: tuple[Path, ...],
    out_dir: Path | None,
    output_file: Path | None,
    to_stdout: bool,
    in_place: bool,
    no_backup: bool,
    dry_run: bool,
    diff_file: Path | None,
    keep_names: bool,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    jobs: int,
    launch_syntax: str,
    offload_arch: tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool,
    annotate: bool,
    no_hazards: bool,
    json_file: Path | None,
    strict: bool,
    verify_after: bool,
    arch: str,
    toolchain: str,
    quiet: bool,
    **common,
) -> None:
    """Convert CUDA sources under PATHS to HIP.

    By default the inputs are never modified: a directory DIR is mirrored to DIR-hip/ (or
    --out-dir), a single file f.cu is written to f.hip beside it.
    """
    modes = [
        m
        for m, on in (
            ("--out-dir", out_dir),
            ("-o", output_file),
            ("--stdout", to_stdout),
            ("--in-place", in_place),
            ("--dry-run", dry_run),
        )
        if on
    ]
    if len(modes) > 1:
        raise click.UsageError(f"choose one of {', '.join(modes)}")
    if (output_file or to_stdout) and (len(paths) != 1 or paths[0].is_dir()):
        raise click.UsageError("-o/--stdout take exactly one input file")
    if diff_file and not dry_run:
        raise click.UsageError("--diff-file goes with --dry-run")
    if output_file and output_file.resolve() == paths[0].resolve():
        raise click.UsageError("the output file is the input; use --in-place to rewrite sources")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise click.UsageError(f"--out-dir {out_dir} exists and is not a directory")

    options_kw = conversion_flags(
        launch_syntax=launch_syntax,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        annotate=annotate,
        keep_names=keep_names or in_place,
    )
    if offload_arch:
        options_kw["offload_arch"] = offload_arch
    ctx, mapping_files = build_options_context(common, paths, **options_kw)
    try:
        config = Config.find(paths[0])
    except ConfigFileError as exc:
        raise ConfigError(str(exc)) from None
    err = Console(stderr=True)
    out = Console()
    summary = Summary()

    try:
        candidates = _candidates(
            paths, include, exclude, out_dir, in_place, dry_run, output_file, to_stdout, keep_names
        )
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    ctx = replace(ctx, renames=renames_of(candidates.items, paths))

    diff_chunks: list[str] = []
    outcomes = run(
        candidates.items,
        ctx,
        jobs=jobs,
        mapping_files=mapping_files,
        mode="rewrite" if no_hazards else "convert",
    )
    show_progress = err.is_terminal and not quiet and len(candidates.items) > 20
    with _progress(err, len(candidates.items), show_progress) as advance:
        for outcome in outcomes:
            if outcome.result is not None and (config.ignore or config.per_file):
                outcome.result.findings = [
                    f for f in outcome.result.findings if not config.ignored(f)
                ]
            summary.add(outcome)
            advance()
            try:
                _emit(
                    outcome,
                    candidates,
                    summary,
                    out,
                    diff_chunks,
                    in_place=in_place,
                    dry_run=dry_run,
                    backup=not no_backup,
                    to_stdout=to_stdout,
                    output_file=output_file,
                    keep_names=ctx.options.keep_names,
                )
            except (OSError, UsageError) as exc:
                summary.failed += 1
                summary.failures.append((str(outcome.candidate.path), f"cannot write: {exc}"))
            outcome.result = None  # release the texts: memory stays flat

    if dry_run:
        diff = "".join(diff_chunks)
        if diff_file:
            write_or_fail(diff_file, lambda: diff_file.write_text(diff, "utf-8", "surrogateescape"))
        elif diff:
            print_diff(out, diff)
    if json_file:
        data = json.dumps(summary.to_json(), indent=2)
        if str(json_file) == "-":
            click.echo(data)
        else:
            write_or_fail(json_file, lambda: json_file.write_text(data + "\n", encoding="utf-8"))
    if quiet:
        summary.render_failures(err)
    else:
        summary.render(err)
        if candidates.out_root and not dry_run:
            err.print(
                f"HIP sources written to [bold]{candidates.out_root}[/] (inputs untouched)",
                highlight=False,
            )
    code = 0
    if summary.failed:
        code = 1
    if strict and (summary.unsupported or summary.errors):
        code = 1
    if verify_after and not dry_run and candidates.out_root is not None:
        from .verify import verify_tree  # noqa: PLC0415 - optional heavy path

        code = max(
            code, verify_tree(candidates.out_root, paths[0], ctx, arch=arch, toolchain=toolchain)
        )
    sys.exit(code)


class _Plan:
    def __init__(
        self,
        items,
        out_root: Path | None,
        single_target: Path | None,  # noqa: ANN001
        keep_names: bool = False,
    ) -> None:
        self.items = items
        self.out_root = out_root
        self.single_target = single_target
        # output names that conversions of .cu files take (k.cu -> k.hip)
        self.renamed_targets = frozenset(
            output_name(c.rel, keep_names) for c in items if c.rel.suffix == ".cu"
        ) - {c.rel for c in items if c.rel.suffix == ".cu"}
        self.sources: dict[Path, Path] = {}  # output path -> the input written there


def _candidates(
    paths,
    include,
    exclude,
    out_dir,
    in_place,
    dry_run,
    output_file,  # noqa: ANN001
    to_stdout,
    keep_names,
) -> _Plan:
    if output_file or to_stdout:
        return _Plan(list(walk(paths)), None, output_file)
    if in_place or dry_run:
        return _Plan(list(walk(paths, include, exclude)), None, None)
    if len(paths) == 1 and paths[0].is_file() and out_dir is None:
        target = single_file_output(paths[0], keep_names)
        return _Plan(list(walk(paths)), None, target)
    if out_dir is None:
        if len(paths) != 1:
            raise UsageError("several inputs need --out-dir")
        out_dir = default_out_root(paths[0])
    out_root = out_dir.resolve()
    for p in paths:
        if p.is_dir() and p.resolve() == out_root:
            raise UsageError("the output directory is the input; use --in-place to rewrite sources")
    items = mirror_layout(list(walk(paths, include, exclude, skip=[out_root])), paths)
    out_root.mkdir(parents=True, exist_ok=True)
    return _Plan(items, out_root, None, keep_names)


def _emit(
    outcome: Outcome,
    plan: _Plan,
    summary: Summary,
    out: Console,
    diff_chunks: list[str],
    *,
    in_place: bool,
    dry_run: bool,
    backup: bool,
    to_stdout: bool,
    output_file: Path | None,
    keep_names: bool,
) -> None:
    """Write (or print, or diff) one outcome."""
    cand = outcome.candidate
    result = outcome.result
    converted = outcome.status == "converted" and result is not None
    if to_stdout:
        stream = click.get_binary_stream("stdout")
        if result is not None and outcome.status != "failed":
            stream.write(result.data)
        else:  # not converted: the bytes as they are (never re-encoded)
            stream.write(cand.path.read_bytes())
        stream.flush()
        return
    if dry_run:
        if converted:
            new_rel = output_name(cand.rel, keep_names)
            diff_chunks.append(
                unified_diff(result.original, result.text, cand.rel.as_posix(), new_rel.as_posix())
            )
        return
    if in_place:
        if converted:
            _atomic_write(cand.path, result.data, backup=backup, like=cand.path)
            summary.written.append(str(cand.path))
        return
    if plan.single_target is not None:
        target = plan.single_target
        if result is not None and outcome.status != "failed":
            _atomic_write(target, result.data, backup=False, like=cand.path)
        else:
            _copy(cand.path, target)
        summary.written.append(str(target))
        return
    assert plan.out_root is not None
    is_source = result is not None
    rel = output_name(cand.rel, keep_names) if is_source else cand.rel
    if rel in plan.renamed_targets and rel == cand.rel:
        # e.g. a hand-written k.hip beside k.cu: the conversion of k.cu owns that name
        summary.failed += 1
        summary.failures.append(
            (
                str(cand.path),
                f"name collision: the conversion of "
                f"{cand.rel.with_suffix('.cu')} is written to {rel}; this file "
                "was not copied (use --keep-names)",
            )
        )
        return
    target = safe_target(plan.out_root, rel)
    earlier = plan.sources.setdefault(target, cand.path)
    if earlier != cand.path:
        summary.failed += 1
        summary.failures.append(
            (str(cand.path), f"name collision: {earlier} is already written to {target}")
        )
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if converted:
        _atomic_write(target, result.data, backup=False, like=cand.path)
    else:  # unchanged, not CUDA, binary or failed: byte-identical copy
        _copy(cand.path, target)
    summary.written.append(str(target))


def _copy(source: Path, target: Path) -> None:
    """Bytes and permission bits, so a script stays executable in the mirrored tree."""
    shutil.copyfile(source, target)
    shutil.copymode(source, target)


def _atomic_write(path: Path, data: bytes, *, backup: bool, like: Path) -> None:
    """Write via a temporary file in the same directory and rename over the target; the
    result gets the permission bits of ``like`` (its source file)."""
    if path.exists() and backup:
        saved = path.with_name(path.name + BACKUP_SUFFIX)
        if not saved.exists():  # the first backup is the original: never overwrite it
            shutil.copy2(path, saved)
    mode = like.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _progress:
    """A rich progress bar on a terminal; a no-op otherwise."""

    def __init__(self, console: Console, total: int, enabled: bool) -> None:
        self.enabled = enabled
        self.bar = (
            Progress(
                TextColumn("converting"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            if enabled
            else None
        )
        self.total = total

    def __enter__(self):  # noqa: ANN204
        if self.bar is None:
            return lambda: None
        self.bar.start()
        task = self.bar.add_task("convert", total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        if self.bar is not None:
            self.bar.stop()


__all__ = ["convert", "Options", "Context", "parse_version"]
