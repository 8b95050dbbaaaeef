"""Run the pipeline over many files, in parallel processes, streaming outcomes as they finish.

Workers read and convert; the parent writes, so all file-system changes happen in one place.
Outcomes are yielded as each file finishes (a slow file does not hold back the others) and can
be dropped after use: memory stays flat in the number of files.  Workers ignore Ctrl-C (the
parent handles it and stops them) and die with the parent, even after ``kill -9``.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

from .buildfiles import build_kind
from .context import Context, Options, Renames, RuleFilter
from .discover import Candidate, is_cuda_source
from .mappings.load import RulesText
from .pipeline import FileResult, check_result, convert_build_text, convert_text
from .untrusted import TooLarge, UntrustedInputError, read_regular

MAX_BYTES = 16 * 1024 * 1024  # a CUDA source larger than this is refused, not parsed
SLOW_SECONDS = 2.0  # after this long without a finished file, report the file in progress
PR_SET_PDEATHSIG = 1


@dataclass
class Outcome:
    candidate: Candidate
    status: str  # "converted", "unchanged", "copied" (not CUDA), "binary", "failed"
    # mode: "convert" (rewrite + hazards), "rewrite" (no hazard rules) or "check" (no output)
    result: FileResult | None = None
    message: str = ""
    digest: str = ""  # sha256 of the bytes the worker read (--in-place rewrites only those)


_worker_ctx: Context | None = None


def _init_worker(
    options: Options,
    rules: tuple[RulesText, ...],
    renames: Renames,
    ignores: RuleFilter | None,
    parent: int,
) -> None:
    global _worker_ctx
    from .mappings import load_index

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C does
    _die_with(parent)
    _worker_ctx = Context(options, load_index(options, list(rules)), renames, ignores)


def _die_with(parent: int) -> None:
    """Ask the kernel to kill this worker when its parent dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def process(candidate: Candidate, ctx: Context, mode: str = "convert") -> Outcome:
    """Read one file and convert (or only check) it; never raises for a bad file."""
    root = candidate.root if candidate.contained else None
    try:  # opened once: a regular file, inside the tree once opened
        data = read_regular(candidate.path, MAX_BYTES, root=root)
    except TooLarge:
        head = _head(candidate.path)
        if build_kind(candidate.path, head) is None and not is_cuda_source(candidate.path, head):
            return Outcome(candidate, "copied")
        limit = MAX_BYTES // (1024 * 1024)
        return Outcome(candidate, "failed", message=f"too large to convert (limit {limit} MiB)")
    except UntrustedInputError as exc:
        message = str(exc).removeprefix(f"cannot read {candidate.path}: ")
        return Outcome(candidate, "failed", message=f"cannot read: {message}")
    kind = build_kind(candidate.path, data[:65536])
    if kind is None and not is_cuda_source(candidate.path, data[:65536]):
        return Outcome(candidate, "copied")
    outcome = _convert(candidate, data, ctx, mode, kind)
    outcome.digest = hashlib.sha256(data).hexdigest()
    return outcome


def _convert(
    candidate: Candidate, data: bytes, ctx: Context, mode: str, kind: str | None
) -> Outcome:
    """The pipeline on a CUDA file's (or a build file's, of ``kind``) bytes."""
    if b"\0" in data[:8192]:
        # a CUDA source that is binary (or UTF-16) cannot be converted: a failure, not a copy
        return Outcome(candidate, "failed", message="binary file (NUL bytes); cannot be converted")
    # bytes that are not UTF-8 (a Latin-1 comment) pass through unchanged as lone surrogates
    text = data.decode("utf-8", "surrogateescape")
    path = str(candidate.path)
    if kind is not None:  # a build file: its build system's passes (findings in every mode)
        result = convert_build_text(text, path, ctx, kind)
        if mode == "check":  # nothing is written: the result carries findings only
            result = replace(result, text=text, edits=(), applied=None)
            return Outcome(candidate, "unchanged", result)
    elif mode == "check":
        return Outcome(candidate, "unchanged", check_result(text, path, ctx))
    else:
        result = convert_text(text, path, ctx, with_hazards=mode != "rewrite")
    if result.error:
        return Outcome(candidate, "failed", result, result.error)
    return Outcome(candidate, "converted" if result.changed else "unchanged", result)


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(65536)


def _work(args: tuple[Candidate, str]) -> Outcome:
    assert _worker_ctx is not None
    return process(args[0], _worker_ctx, args[1])


def run(
    candidates: Iterable[Candidate],
    ctx: Context,
    *,
    jobs: int = 0,
    mode: str = "convert",
    mapping_files: Sequence[RulesText] = (),
    on_slow: Callable[[Candidate], None] | None = None,
) -> Iterator[Outcome]:
    """Outcomes as files finish; ``jobs`` 0 means one process per core.  ``on_slow`` is called
    with the oldest file still in progress when no file has finished for a while."""
    items = list(candidates)
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(items) < 4:
        for cand in items:
            yield process(cand, ctx, mode)
        return
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(items)),
        initializer=_init_worker,
        initargs=(ctx.options, tuple(mapping_files), ctx.renames, ctx.ignores, os.getpid()),
    )
    try:
        yield from _stream(pool, items, mode, jobs, on_slow)
    except BaseException:  # Ctrl-C or the consumer stopped: stop the workers now
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _stream(
    pool: ProcessPoolExecutor,
    items: list[Candidate],
    mode: str,
    jobs: int,
    on_slow: Callable[[Candidate], None] | None,
) -> Iterator[Outcome]:
    """Keep a bounded number of files in flight; yield each outcome when it is ready."""
    todo = iter(items)
    pending: dict[Future[Outcome], tuple[Candidate, float]] = {}
    limit = jobs * 4

    def fill() -> None:
        for cand in todo:
            pending[pool.submit(_work, (cand, mode))] = (cand, time.monotonic())
            if len(pending) >= limit:
                return

    fill()
    while pending:
        done, _ = wait(pending, timeout=SLOW_SECONDS, return_when=FIRST_COMPLETED)
        if not done:
            if on_slow is not None:
                on_slow(min(pending.values(), key=lambda v: v[1])[0])
            continue
        for future in done:
            cand, _started = pending.pop(future)
            yield future.result()
        fill()
