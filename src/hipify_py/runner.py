"""Run the pipeline over many files, in parallel processes, streaming outcomes in input order.

Workers read and convert; the parent writes, so all file-system changes happen in one place.
Outcomes are yielded one by one and can be dropped after use: memory stays flat in the number
of files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from .buildfiles import build_kind
from .context import Context, Options, Renames
from .discover import Candidate, is_cuda_source
from .pipeline import FileResult, check_result, convert_build_text, convert_text

MAX_BYTES = 16 * 1024 * 1024  # a CUDA source larger than this is refused, not parsed


@dataclass
class Outcome:
    candidate: Candidate
    status: str  # "converted", "unchanged", "copied" (not CUDA), "binary", "failed"
    # mode: "convert" (rewrite + hazards), "rewrite" (no hazard rules) or "check" (no output)
    result: FileResult | None = None
    message: str = ""


_worker_ctx: Context | None = None


def _init_worker(options: Options, mapping_files: tuple[str, ...], renames: Renames) -> None:
    global _worker_ctx
    from .mappings import load_index

    index = load_index(options, [Path(p) for p in mapping_files])
    _worker_ctx = Context(options, index, renames)


def process(candidate: Candidate, ctx: Context, mode: str = "convert") -> Outcome:
    """Read one file and convert (or only check) it; never raises for a bad file."""
    try:
        data = candidate.path.read_bytes()
    except OSError as exc:
        return Outcome(candidate, "failed", message=f"cannot read: {exc.strerror or exc}")
    kind = build_kind(candidate.path, data[:65536])
    if kind is None and not is_cuda_source(candidate.path, data[:65536]):
        return Outcome(candidate, "copied")
    if len(data) > MAX_BYTES:
        return Outcome(
            candidate,
            "failed",
            message=f"too large to convert ({len(data) // (1024 * 1024)} MiB; "
            f"limit {MAX_BYTES // (1024 * 1024)} MiB)",
        )
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


def _work(args: tuple[Candidate, str]) -> Outcome:
    assert _worker_ctx is not None
    return process(args[0], _worker_ctx, args[1])


def run(
    candidates: Iterable[Candidate],
    ctx: Context,
    *,
    jobs: int = 0,
    mode: str = "convert",
    mapping_files: Sequence[str] = (),
) -> Iterator[Outcome]:
    """Outcomes in the order of ``candidates``; ``jobs`` 0 means one process per core."""
    items = list(candidates)
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(items) < 4:
        for cand in items:
            yield process(cand, ctx, mode)
        return
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(items)),
        initializer=_init_worker,
        initargs=(ctx.options, tuple(mapping_files), ctx.renames),
    ) as pool:
        chunk = max(1, min(16, len(items) // (jobs * 4)))
        yield from pool.map(_work, [(c, mode) for c in items], chunksize=chunk)
