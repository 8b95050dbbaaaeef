"""The check engine behind ``hipify-py check``: run the rules over a tree and, with a committed
HIP tree, compare it with what ``convert`` makes now (stale, missing and orphaned files).

Pure of output and option parsing: it returns a ``CheckReport`` for a formatter.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from . import __version__
from .cache import load_texts, open_cache, run
from .context import Context
from .discover import Candidate, discover, output_name, project_index_of
from .files import holds
from .mappings.load import RulesText
from .output.manifest import Manifest
from .report.findings_common import CheckReport, stale_finding
from .result import FileResult, FileStatus, Outcome, RunMode
from .shard import select
from .untrusted import UntrustedInputError, read_regular

COMPARE_LIMIT = 1 << 31  # bytes of a committed HIP file compared with --in-sync


def display(path: Path) -> str:
    try:
        return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:
        return str(path)


def first_difference(expected: str, actual: str) -> int:
    """The first line of ``actual`` that differs from ``expected``."""
    exp, act = expected.splitlines(), actual.splitlines()
    matcher = difflib.SequenceMatcher(None, exp, act, autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1
    return min(len(exp), len(act)) + 1


def run_check(
    paths: Sequence[Path],
    ctx: Context,
    *,
    mapping_files: Sequence[RulesText] = (),
    hip_dir: Path | None = None,
    manifest: Manifest | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    jobs: int = 0,
    shard: tuple[int, int] | None = None,
    use_cache: bool = True,
) -> CheckReport:
    """Check files (only ``shard`` I/N of them, if given) and build the report (no filtering,
    no output); raises ``discover.UsageError`` for a path that does not exist."""
    skip = [hip_dir] if hip_dir is not None else []
    cands = discover(paths, include, exclude, skip)
    ctx = replace(ctx, project=project_index_of(cands, paths, ctx.mappings))  # the whole tree's
    cands = select(cands, shard, lambda c: c.rel)
    mode = RunMode.CONVERT if hip_dir is not None else RunMode.CHECK
    cache = open_cache(ctx, mode, mapping_files, enabled=use_cache)
    report = CheckReport(findings=[], tool_version=__version__)
    layout = Layout(hip_dir, ctx.options.keep_names) if hip_dir is not None else None
    outcomes = run(cands, ctx, cache, jobs=jobs, mode=mode, mapping_files=mapping_files)
    with closing(outcomes):  # the workers stop with the loop, also on Ctrl-C
        for outcome in outcomes:
            if outcome.cached and (_has_findings(outcome) or not _in_sync(layout, outcome)):
                outcome = load_texts(outcome, ctx, mode)  # the source lines, the expected text
            result = _record(report, outcome)
            if result is None or layout is None or outcome.candidate.path.suffix == ".hip":
                continue
            if not outcome.cached:  # a cached one is in sync (see above)
                _compare(report, layout, outcome.candidate, result.text)
    if manifest is not None:
        for rel, source in manifest.orphans():
            if select([Path(rel)], shard, lambda p: p) and (manifest.out_root / rel).is_file():
                report.findings.append(
                    stale_finding(display(manifest.out_root / rel), display(source), "orphaned")
                )
    report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.rule))
    report.fixed.sort(key=lambda f: (f.path, f.line, f.column, f.rule))  # any -j, cache or not
    report.failures.sort()
    return report


def _has_findings(outcome: Outcome) -> bool:
    return outcome.result is not None and bool(outcome.result.findings)


def _in_sync(layout: Layout | None, outcome: Outcome) -> bool:
    """For a cached outcome: no HIP tree to compare with, or its file holds the output the
    cache says the source makes (no need to load the source and compare texts)."""
    if layout is None or outcome.result is None or outcome.candidate.path.suffix == ".hip":
        return True
    return holds(layout.target(outcome.candidate), outcome.out_digest, COMPARE_LIMIT)


def _record(report: CheckReport, outcome: Outcome) -> FileResult | None:
    """Add one file's findings (or failure) to the report; the result when it has one."""
    shown = display(outcome.candidate.path)
    if outcome.status is FileStatus.COPIED:
        return None
    result = outcome.result
    if result is None:
        if outcome.status is FileStatus.FAILED:
            report.failures.append((shown, outcome.message))
        return None
    report.files_checked += 1
    shown_findings = [replace(f, path=shown) for f in result.findings]
    report.add_source(shown, result.printable_original, shown_findings)
    for f in shown_findings:
        (report.fixed if f.fixed else report.findings).append(f)
    if outcome.status is FileStatus.FAILED or result.rule_errors:
        report.failures.append((shown, outcome.message or "; ".join(result.rule_errors)))
        return None
    return result


class Layout:
    """Where ``convert`` puts the HIP file of a CUDA file, derived from the options and the
    inputs as ``convert`` derives it: the mirrored layout of the inputs given to ``check``,
    and a file argument placed relative to the input root ``DIR`` of a ``DIR-hip`` tree.
    Never read from the tree's manifest: a pull request can edit that file, and a manifest
    that mapped ``a.cu`` to a fresh decoy would let a stale ``a.hip`` pass."""

    def __init__(self, hip_dir: Path, keep_names: bool) -> None:
        self.hip_dir = hip_dir
        self.keep_names = keep_names
        name = hip_dir.resolve().name
        self.guessed_root = (
            hip_dir.resolve().with_name(name.removesuffix("-hip"))
            if name.endswith("-hip")
            else None
        )

    def target(self, cand: Candidate) -> Path:
        rel = cand.rel
        if cand.within is None and self.guessed_root is not None:
            real = cand.path.resolve()
            if real.is_relative_to(self.guessed_root):
                rel = real.relative_to(self.guessed_root)
        return self.hip_dir / output_name(rel, self.keep_names)


def _compare(report: CheckReport, layout: Layout, cand: Candidate, expected: str) -> None:
    shown = display(cand.path)
    target = layout.target(cand)
    if not target.is_file():
        report.findings.append(stale_finding(display(target), shown, "missing"))
        return
    try:
        committed = read_regular(target, COMPARE_LIMIT).decode("utf-8", "surrogateescape")
    except UntrustedInputError as exc:
        report.failures.append((display(target), str(exc)))
        return
    if committed != expected:
        line = first_difference(expected, committed)
        report.findings.append(stale_finding(display(target), shown, "stale", line))
