"""The per-file result cache: an unchanged file is neither read again nor converted again.

A wrapper around the one per-file function, ``runner.process``: ``run`` looks each file up,
has the runner convert only the misses and remembers what they made; ``load_texts`` gives a
cached outcome its texts.  Calls go one way, from here down to the runner, never back.

As black's cache: one file per *run key* under ``$XDG_CACHE_HOME/hipify-py/files/`` (or
``~/.cache/hipify-py/files/``).  The run key hashes everything that shapes a file's result
other than its bytes: the tool's code, the mapping tables in effect (shipped and user rules),
the Options, the project config's ignores and the mode (convert, rewrite, check).  Inside, one
record per input file (by absolute path) holds its stat (mtime, size), the sha256 of its bytes, and
what a run needs instead of converting it again: the status, the applied edits (the output is
the input with them applied), the findings, the conversion counts, the parse problems and the
sha256 of the output.

A file whose stat matches its record is not even read; one whose stat changed but whose bytes
did not (``touch``, a checkout) is read once, hashed and not converted.  Build files also key on
the run's ``.cu`` renames, which their output follows.  Failed files and files a rule crashed
on are never cached.  Parses that read headers from disk (``-I``, ``-p``, ``--cuda-path``,
``--clang-arg``) are not cached at all: their results depend on files the key cannot see.

Safety: the cache is advisory.  A cache file that is missing, truncated, corrupt, foreign or too
large is ignored (the run converts everything); a record that does not have the expected shape
is a miss.  Writes are atomic (a temporary file renamed into place) and only ever go to
``<cache dir>/files/<hex>.json``; a ``files`` directory that is a symlink is not used.  The size
is bounded: records of files that no longer exist are dropped on save, and only the
``MAX_CACHE_FILES`` most recently used run keys are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import __version__
from .cache_records import plain, record_of, result_of, stamp_of
from .context import Context, Renames
from .discover import Candidate
from .edits import apply_edits
from .files import TEMPORARY_NAME, file_stamp, replace_cache_file
from .mappings.load import RulesText, cache_dir, cache_enabled, tables_fingerprint
from .output.manifest import options_record
from .result import FileStatus, Outcome, RunMode
from .runner import MAX_BYTES, Job, in_order, process, run_jobs, until_interrupted
from .untrusted import UntrustedInputError, read_regular

# 2: conversions count launches and HIP_SYMBOL wraps (result.conversions_of); 3: a record's
# edits are one JSON text, parsed only when an output is written (a no-change run skips them);
# 4: that text packed (``pack_edits``); 5: an edit's rank (``Edit.rank``)
FORMAT = 5
MAX_CACHE_FILES = 16  # run keys kept (the most recently used)
MAX_RECORDS = 200_000  # files in one cache file (held in memory during a run)
LOAD_LIMIT = 1 << 30  # bytes of one cache file
_NAME = re.compile(r"[0-9a-f]{32}\.json")
CACHED_STATUSES = (FileStatus.CONVERTED, FileStatus.UNCHANGED, FileStatus.COPIED)


class FileCache:
    """The records of one run key; look-ups before a file is read, records after."""

    def __init__(self, path: Path, key: str, renames: Renames) -> None:
        self.path = path
        self.key = key
        self.renames = _renames_digest(renames)
        self.records: dict[str, dict[str, Any]] = (
            {} if path.parent.is_symlink() else _load(path, key)
        )
        self._stats: dict[str, tuple[int, int]] = {}  # absolute path -> stat before reading
        self._seen: set[str] = set()
        self._dirty = False

    # ------------------------------------------------------------------ look-up

    def lookup(self, cand: Candidate) -> tuple[Outcome | None, str | None]:
        """Before ``cand`` is read: ``(outcome, None)`` for a hit by stat; ``(None, sha256)``
        when the file's stat changed but its recorded hash may still match (the reader decides);
        ``(None, None)`` for a miss."""
        where = os.path.abspath(cand.path)
        self._seen.add(where)
        try:
            info = os.stat(where)
        except OSError:
            return None, None
        if not stat.S_ISREG(info.st_mode):
            return None, None
        now = (info.st_mtime_ns, info.st_size)
        self._stats[where] = now
        record = self.records.get(where)
        if not self._applies(record, cand):
            return None, None
        assert record is not None
        outcome = self.outcome(cand, record)
        if outcome is None:  # a malformed record: a miss
            return None, None
        if record.get("stat") == list(now):
            return outcome, None
        return None, outcome.digest

    def _applies(self, record: dict[str, Any] | None, cand: Candidate) -> bool:
        return (
            isinstance(record, dict)
            and record.get("given") == str(cand.path)
            and record.get("renames", "") in ("", self.renames)
            and record.get("status") in CACHED_STATUSES
        )

    def outcome(self, cand: Candidate, record: dict[str, Any]) -> Outcome | None:
        """The Outcome a record stands for (texts not loaded: see ``load_texts``);
        None when the record is malformed."""
        try:
            status = FileStatus(record["status"])
            result = None if status is FileStatus.COPIED else result_of(record)
            return Outcome(
                cand,
                status,
                result,
                digest=str(record["sha"]),
                cached=True,
                out_digest=str(record["out"]),
                kind=record.get("kind"),
                out_stamp=stamp_of(record.get("out_stamp")),
            )
        except (KeyError, TypeError, ValueError, IndexError):
            return None

    def revalidated(self, cand: Candidate, digest: str) -> Outcome | None:
        """A file whose stat changed but whose bytes hash to its record: the record's outcome,
        with the new stat remembered."""
        where = os.path.abspath(cand.path)
        record = self.records.get(where)
        if record is None or record.get("sha") != digest:
            return None
        outcome = self.outcome(cand, record)
        if outcome is not None and where in self._stats:
            record["stat"] = list(self._stats[where])
            self._dirty = True
        return outcome

    # ------------------------------------------------------------------ recording

    def settle(self, outcome: Outcome, ctx: Context, mode: RunMode) -> Outcome:
        """A processed file's outcome, remembered; a "cached" status (the bytes were those
        recorded) becomes the record's outcome, or, when the record went bad, a conversion."""
        if outcome.status is FileStatus.CACHED:
            hit = self.revalidated(outcome.candidate, outcome.digest)
            if hit is not None:
                return hit
            outcome = process(outcome.candidate, ctx, mode)
        self.remember(outcome)
        return outcome

    def remember(self, outcome: Outcome) -> None:
        """Record a freshly processed file (failures and crashed rules are not recorded)."""
        where = os.path.abspath(outcome.candidate.path)
        before = self._stats.get(where)
        if before is None or outcome.cached or outcome.status not in CACHED_STATUSES:
            return
        if not outcome.digest:
            return
        result = outcome.result
        if result is not None and (result.rule_errors or result.error or not plain(result)):
            return
        record: dict[str, Any] = {
            "given": str(outcome.candidate.path),
            "stat": list(before),
            "sha": outcome.digest,
            "status": outcome.status,
            "kind": outcome.kind,
            "renames": self.renames if outcome.kind else "",
        }
        if result is None:
            record["out"] = outcome.digest
        else:
            record["out"] = hashlib.sha256(result.data).hexdigest()
            record.update(record_of(result))
        self.records[where] = record
        self._dirty = True

    def stamp_output(self, outcome: Outcome, target: Path, digest: str) -> None:
        """Remember the ``file_stamp`` of ``target``, which holds bytes hashing to ``digest``,
        as the output of ``outcome``'s input, so the next run can trust it without reading it;
        only when the record names exactly that input and that output."""
        record = self.records.get(os.path.abspath(outcome.candidate.path))
        if record is None or record.get("sha") != outcome.digest or record.get("out") != digest:
            return
        stamp = file_stamp(target)
        if record.get("out_stamp") != stamp:
            record["out_stamp"] = stamp
            self._dirty = True

    def save(self) -> None:
        """Write the records (merged with what another run saved meanwhile), dropping files
        that no longer exist; an unwritable cache is left alone."""
        try:
            directory = self.path.parent
            if not self._dirty:
                if self.path.exists():
                    os.utime(self.path)  # most recently used: kept by the pruning
                return
            directory.mkdir(parents=True, exist_ok=True)
            if directory.is_symlink():
                return
            merged = {
                where: rec
                for where, rec in _load(self.path, self.key).items()
                if where not in self._seen and os.path.exists(where)
            }
            merged.update(
                (where, rec)
                for where, rec in self.records.items()
                if where in self._seen or os.path.exists(where)
            )
            if len(merged) > MAX_RECORDS:
                merged = dict(list(merged.items())[-MAX_RECORDS:])
            doc = {"format": FORMAT, "key": self.key, "files": merged}
            data = json.dumps(doc, separators=(",", ":")).encode("ascii")
            replace_cache_file(self.path, data, mode=0o600)  # others' paths and findings
            _prune(directory)
            self._dirty = False
        except OSError:
            pass


def run(
    candidates: Iterable[Candidate],
    ctx: Context,
    cache: FileCache | None,
    *,
    jobs: int = 0,
    mode: RunMode = RunMode.CONVERT,
    mapping_files: Sequence[RulesText] = (),
    on_slow: Callable[[Candidate], None] | None = None,
) -> Generator[Outcome, None, None]:
    """``runner.run_jobs`` with the cache around it: each file is looked up (a stat, no read), only
    a miss is converted, and what it made is remembered; the records are saved at the end.

    A hit comes out ``cached`` and without texts (``load_texts`` reads them when output needs
    them).  One process goes through the files in order; in parallel, the hits come first."""
    items = list(candidates)
    if cache is None:
        todo: list[Job] = [(cand, None) for cand in items]
        return run_jobs(
            todo, ctx, jobs=jobs, mode=mode, mapping_files=mapping_files, on_slow=on_slow
        )
    if in_order(len(items), jobs):
        outcomes = _in_order(items, ctx, cache, mode)
    else:
        outcomes = _hits_first(items, ctx, cache, jobs, mode, mapping_files, on_slow)
    return until_interrupted(outcomes)


def _in_order(
    items: list[Candidate], ctx: Context, cache: FileCache, mode: RunMode
) -> Generator[Outcome, None, None]:
    try:
        for cand in items:
            hit, known = cache.lookup(cand)
            if hit is None:
                hit = cache.settle(process(cand, ctx, mode, known), ctx, mode)
            yield hit
    finally:
        cache.save()


def _hits_first(
    items: list[Candidate],
    ctx: Context,
    cache: FileCache,
    jobs: int,
    mode: RunMode,
    mapping_files: Sequence[RulesText],
    on_slow: Callable[[Candidate], None] | None,
) -> Generator[Outcome, None, None]:
    try:
        todo: list[Job] = []
        for cand in items:
            hit, known = cache.lookup(cand)
            if hit is not None:
                yield hit
            else:
                todo.append((cand, known))
        misses = run_jobs(
            todo, ctx, jobs=jobs, mode=mode, mapping_files=mapping_files, on_slow=on_slow
        )
        with closing(misses):
            for outcome in misses:
                yield cache.settle(outcome, ctx, mode)
    finally:
        cache.save()


def load_texts(outcome: Outcome, ctx: Context, mode: RunMode = RunMode.CONVERT) -> Outcome:
    """A cached outcome with its texts: the input read once and the recorded edits applied to
    it.  If the input changed since it was looked up, or the edits do not make the output the
    record names, it is converted afresh."""
    result = outcome.result
    if not outcome.cached or result is None:
        return outcome
    cand = outcome.candidate
    try:
        data = read_regular(cand.path, MAX_BYTES, root=cand.within)
    except UntrustedInputError:
        data = b""
    if hashlib.sha256(data).hexdigest() != outcome.digest:
        return process(cand, ctx, mode)
    text = data.decode("utf-8", "surrogateescape")
    try:
        applied = apply_edits(text, result.edits)
    except ValueError:  # an EditConflict, or a malformed recorded edit
        applied = None
    made = applied.text.encode("utf-8", "surrogateescape") if applied else b""
    if applied is None or hashlib.sha256(made).hexdigest() != outcome.out_digest:
        return process(cand, ctx, mode)  # the record does not make what it says: convert
    loaded = replace(result, original=text, text=applied.text, applied=applied)
    return replace(outcome, result=loaded, cached=False)


def open_cache(
    ctx: Context, mode: RunMode, rules: Sequence[RulesText], *, enabled: bool = True
) -> FileCache | None:
    """The cache for a run with ``ctx`` in ``mode``; None when it is off (``--no-cache``,
    ``HIPIFY_PY_NO_CACHE=1``) or cannot apply (a parse that reads headers from disk)."""
    opts = ctx.options
    if not enabled or not cache_enabled():
        return None
    if opts.include_dirs or opts.extra_clang_args:
        return None
    key = run_key(ctx, mode, rules)
    return FileCache(cache_dir() / "files" / f"{key[:32]}.json", key, ctx.renames)


def run_key(ctx: Context, mode: RunMode, rules: Sequence[RulesText]) -> str:
    """Everything besides a file's bytes that shapes its result, hashed."""
    ignores = ctx.ignores
    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": _code_fingerprint(),
        "tables": tables_fingerprint(),
        "rules": [[r.label, hashlib.sha256(r.data).hexdigest()] for r in rules],
        "options": options_record(ctx.options),
        "ignores": None
        if ignores is None
        else [
            str(getattr(ignores, "path", "")),
            list(getattr(ignores, "ignore", ())),
            sorted((k, list(v)) for k, v in getattr(ignores, "per_file", {}).items()),
        ],
        "mode": mode,
        "project": ctx.project.digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _code_fingerprint() -> str:
    """The package's modules by name, size and mtime: a changed rule (in a checkout, where the
    version stays the same) is a new key.  A stat of each, no read."""
    package = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        h.update(f"{path.relative_to(package)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _renames_digest(renames: Renames) -> str:
    files = renames.files
    text = "*" if files is None else "\n".join(sorted(files))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


# ---------------------------------------------------------------------- the file


def _load(path: Path, key: str) -> dict[str, dict[str, Any]]:
    """The records saved for ``key``; empty for anything that is not a whole cache file."""
    from .untrusted import UntrustedInputError, read_regular

    try:
        doc = json.loads(read_regular(path, LOAD_LIMIT, root=Path(os.path.realpath(path.parent))))
    except (OSError, UntrustedInputError, ValueError, RecursionError):
        return {}
    if not (
        isinstance(doc, dict)
        and doc.get("format") == FORMAT
        and doc.get("key") == key
        and isinstance(doc.get("files"), dict)
    ):
        return {}
    return {k: v for k, v in doc["files"].items() if isinstance(v, dict)}


def _is_our_temporary(name: str) -> bool:
    temporary = TEMPORARY_NAME.fullmatch(name)
    return temporary is not None and _NAME.fullmatch(temporary["name"]) is not None


def _prune(directory: Path) -> None:
    """Keep the MAX_CACHE_FILES most recently used cache files (only files named as ours), and
    remove temporary files a killed run left (an hour old)."""
    ours = []
    stale = time.time_ns() - 3600 * 10**9
    for entry in os.scandir(directory):
        if not entry.is_file(follow_symlinks=False):
            continue
        mtime = entry.stat(follow_symlinks=False).st_mtime_ns
        if _NAME.fullmatch(entry.name):
            ours.append((mtime, entry.path))
        elif mtime < stale and _is_our_temporary(entry.name):
            Path(entry.path).unlink(missing_ok=True)
    for _, old in sorted(ours, reverse=True)[MAX_CACHE_FILES:]:
        Path(old).unlink(missing_ok=True)
