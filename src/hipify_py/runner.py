"""Run the pipeline over many files, in parallel processes, streaming outcomes as they finish.

``process`` is the one per-file function (read, classify, convert); ``run`` applies it to many
files.  The per-file cache (``cache.py``) wraps both from above: this module never calls it.

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
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import interrupts
from .context import Context, Options, Renames, RuleFilter
from .discover import CUDA_SUFFIXES, HEAD_BYTES, Candidate, FileKind, classify
from .mappings.load import RulesText
from .project_index import ProjectIndex
from .result import FileStatus, Outcome, RunMode
from .untrusted import TooLarge, UntrustedInputError, read_regular

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

MAX_BYTES = 16 * 1024 * 1024  # a CUDA source larger than this is refused, not parsed
SLOW_SECONDS = 2.0  # after this long without a finished file, report the file in progress
PR_SET_PDEATHSIG = 1
# a file to process, and the sha256 of the bytes the cache holds a record of (None: no record)
Job = tuple[Candidate, str | None]


_worker_ctx: Context | None = None


def _init_worker(
    options: Options,
    rules: tuple[RulesText, ...],
    renames: Renames,
    ignores: RuleFilter | None,
    project: ProjectIndex,
    parent: int,
) -> None:
    global _worker_ctx
    from .mappings import load_index

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C does
    _die_with(parent)
    _worker_ctx = Context(options, load_index(options, list(rules)), renames, ignores, project)


def worker_args(ctx: Context, mapping_files: Sequence[RulesText]) -> tuple:
    """What ``_init_worker`` rebuilds a worker's context from (it is not pickled whole: the
    mapping index is loaded in each worker)."""
    return (ctx.options, tuple(mapping_files), ctx.renames, ctx.ignores, ctx.project, os.getpid())


def _die_with(parent: int) -> None:
    """Ask the kernel to kill this worker when its parent dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def process(
    candidate: Candidate, ctx: Context, mode: RunMode = RunMode.CONVERT, known: str | None = None
) -> Outcome:
    """Read one file and convert (or only check) it; never raises for a bad file.  When its
    bytes hash to ``known`` (the cache's record of it), the status is "cached" and nothing is
    converted."""
    root = candidate.within
    try:  # opened once: a regular file, inside the tree once opened
        data = read_regular(candidate.path, MAX_BYTES, root=root)
    except TooLarge:
        if not classify(candidate.path, _head(candidate.path)).converted:
            return Outcome(candidate, FileStatus.COPIED)
        limit = MAX_BYTES // (1024 * 1024)
        return Outcome(
            candidate, FileStatus.FAILED, message=f"too large to convert (limit {limit} MiB)"
        )
    except UntrustedInputError as exc:
        message = str(exc).removeprefix(f"cannot read {candidate.path}: ")
        return Outcome(candidate, FileStatus.FAILED, message=f"cannot read: {message}")
    digest = hashlib.sha256(data).hexdigest()
    if known is not None and digest == known:
        return Outcome(candidate, FileStatus.CACHED, digest=digest)
    kind = classify(candidate.path, data)  # once: the outcome carries it
    if not kind.converted and str(candidate.path.absolute()) in ctx.project.clang_headers:
        kind = FileKind(cuda=True)  # a plain header clang compiles within a CUDA source
    if not kind.converted:
        return Outcome(candidate, FileStatus.COPIED, digest=digest)
    outcome = _convert(candidate, data, ctx, mode, kind.build)
    outcome.digest = digest
    outcome.kind = kind.build
    return outcome


def _convert(
    candidate: Candidate, data: bytes, ctx: Context, mode: RunMode, kind: str | None
) -> Outcome:
    """The pipeline on a CUDA file's (or a build file's, of ``kind``) bytes."""
    from .pipeline import check_result, convert_build_text, convert_text  # not for cache hits

    if b"\0" in data[:8192]:
        # a CUDA source that is binary (or UTF-16) cannot be converted: a failure, not a copy
        return Outcome(
            candidate, FileStatus.FAILED, message="binary file (NUL bytes); cannot be converted"
        )
    # bytes that are not UTF-8 (a Latin-1 comment) pass through unchanged as lone surrogates
    text = data.decode("utf-8", "surrogateescape")
    path = str(candidate.path)
    if kind is not None:  # a build file: its build system's passes (findings in every mode)
        result = convert_build_text(text, path, ctx, kind)
        if mode is RunMode.CHECK:  # nothing is written: the result carries findings only
            result = replace(result, text=text, edits=(), applied=None)
            return Outcome(candidate, FileStatus.UNCHANGED, result)
    elif mode is RunMode.CHECK:
        return Outcome(candidate, FileStatus.UNCHANGED, check_result(text, path, ctx))
    else:
        result = convert_text(text, path, ctx, with_hazards=mode is not RunMode.REWRITE)
    if result.error:
        return Outcome(candidate, FileStatus.FAILED, result, result.error)
    return Outcome(
        candidate, FileStatus.CONVERTED if result.changed else FileStatus.UNCHANGED, result
    )


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(HEAD_BYTES)


def has_work(items: Sequence[Candidate]) -> bool:
    """Whether any of ``items`` is a CUDA source or a build file that mentions CUDA: a run with
    none has nothing to convert or check, which is surely a mistake (a wrong path).  A
    look before the run, not the run's classification: by name first (no read), then by each
    file's head until one is work; an unreadable file counts as work (the run reports it)."""
    if any(c.path.suffix.lower() in CUDA_SUFFIXES for c in items):
        return True
    for c in items:
        try:
            head = _head(c.path)
        except OSError:
            return True
        if classify(c.path, head).converted:
            return True
    return False


def _work(args: tuple[Candidate, RunMode, str | None]) -> Outcome:
    assert _worker_ctx is not None
    return process(args[0], _worker_ctx, args[1], args[2])


def in_order(count: int, jobs: int) -> bool:
    """Whether ``count`` files are processed one after the other in this process: with one
    job, or too few files to be worth starting workers for."""
    return (jobs or os.cpu_count() or 1) == 1 or count < 4


def run(
    candidates: Iterable[Candidate],
    ctx: Context,
    *,
    jobs: int = 0,
    mode: RunMode = RunMode.CONVERT,
    mapping_files: Sequence[RulesText] = (),
    on_slow: Callable[[Candidate], None] | None = None,
) -> Generator[Outcome, None, None]:
    """Outcomes as files finish; ``jobs`` 0 means one process per core.  ``on_slow`` is called
    with the oldest file still in progress when no file has finished for a while."""
    todo = [(cand, None) for cand in candidates]
    return run_jobs(todo, ctx, jobs=jobs, mode=mode, mapping_files=mapping_files, on_slow=on_slow)


def run_jobs(
    todo: Sequence[Job],
    ctx: Context,
    *,
    jobs: int = 0,
    mode: RunMode = RunMode.CONVERT,
    mapping_files: Sequence[RulesText] = (),
    on_slow: Callable[[Candidate], None] | None = None,
) -> Generator[Outcome, None, None]:
    """``run`` over files with what the cache knows of each (``process``'s ``known``)."""
    if in_order(len(todo), jobs):
        outcomes: Generator[Outcome, None, None] = (
            process(c, ctx, mode, known) for c, known in todo
        )
    else:
        workers = jobs or os.cpu_count() or 1
        outcomes = _parallel(list(todo), ctx, workers, mode, mapping_files, on_slow)
    return until_interrupted(outcomes)


def until_interrupted(
    outcomes: Generator[Outcome, None, None],
) -> Generator[Outcome, None, None]:
    """``outcomes``, stopped by a Ctrl-C.

    A caller that may stop early (an error, Ctrl-C while it handles an outcome) closes the
    iterator: that stops the workers then, not whenever the generator is collected (a Ctrl-C
    that left it alive hung the interpreter's exit on the pool's result thread).  A Ctrl-C
    that something swallowed still stops the run at the next file (``interrupts``)."""
    with closing(outcomes):
        for outcome in outcomes:
            if interrupts.requested():
                raise KeyboardInterrupt
            yield outcome


def _parallel(
    todo: list[tuple[Candidate, str | None]],
    ctx: Context,
    jobs: int,
    mode: RunMode,
    mapping_files: Sequence[RulesText],
    on_slow: Callable[[Candidate], None] | None,
) -> Generator[Outcome, None, None]:
    pool = _Pool(min(jobs, len(todo)), worker_args(ctx, mapping_files))
    try:
        yield from _stream(pool, todo, mode, jobs, on_slow)
    except BaseException:  # Ctrl-C or the consumer stopped: stop the workers now
        pool.kill()
        raise
    pool.executor.shutdown()


class _Pool:
    """The worker processes, replaced when one dies (a crash while converting a file costs that
    file only, never the run)."""

    def __init__(self, workers: int, initargs: tuple) -> None:
        self.workers = workers
        self.initargs = initargs
        self.executor = self._new(workers)

    def _new(self, workers: int) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor  # only runs with misses need it

        return ProcessPoolExecutor(
            max_workers=workers, initializer=_init_worker, initargs=self.initargs
        )

    def submit(self, cand: Candidate, mode: RunMode, known: str | None) -> Future[Outcome]:
        return self.executor.submit(_work, (cand, mode, known))

    def kill(self) -> None:
        # A worker killed while sending a result leaves half a message in the result pipe: the
        # executor's thread reading it waits for the rest forever, and the interpreter joins
        # that thread at exit (Ctrl-C hung there).  With every worker gone, closing this
        # process's copy of the pipe's write end turns that wait into end-of-file.  Taken
        # before ``shutdown``, which drops the executor's reference to the queue.
        writer = getattr(getattr(self.executor, "_result_queue", None), "_writer", None)
        procs = list(getattr(self.executor, "_processes", {}).values())
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.join(timeout=5)
        self.executor.shutdown(wait=False, cancel_futures=True)
        if writer is not None:
            writer.close()

    def renew(self) -> None:
        self.kill()
        self.executor = self._new(self.workers)

    def alone(self, cand: Candidate, mode: RunMode) -> Outcome:
        """``cand`` in a worker of its own: which of the files in flight killed the worker."""
        from concurrent.futures.process import BrokenProcessPool

        solo = self._new(1)
        try:
            return solo.submit(_work, (cand, mode, None)).result()
        except BrokenProcessPool:
            code = [p.exitcode for p in getattr(solo, "_processes", {}).values()]
            why = f" (exit {code[0]})" if code and code[0] is not None else ""
            return Outcome(cand, FileStatus.FAILED, message=f"the worker converting it died{why}")
        finally:
            solo.shutdown(wait=False, cancel_futures=True)


def _stream(
    pool: _Pool,
    items: list[tuple[Candidate, str | None]],
    mode: RunMode,
    jobs: int,
    on_slow: Callable[[Candidate], None] | None,
) -> Iterator[Outcome]:
    """Keep a bounded number of files in flight; yield each outcome when it is ready."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    todo = iter(items)
    pending: dict[Future[Outcome], tuple[Candidate, float]] = {}
    limit = jobs * 4

    def fill() -> None:
        for cand, known in todo:
            pending[pool.submit(cand, mode, known)] = (cand, time.monotonic())
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
            try:
                outcome = future.result()
            except BrokenProcessPool:  # a worker died: every file in flight is a suspect
                suspects = [cand] + [c for c, _ in pending.values()]
                pending.clear()
                pool.renew()
                for suspect in suspects:
                    yield pool.alone(suspect, mode)
                break
            yield outcome
        fill()
