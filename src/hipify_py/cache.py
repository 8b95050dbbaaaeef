"""The per-file result cache: an unchanged file is neither read again nor converted again.

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

import base64
import hashlib
import json
import os
import re
import stat
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from . import __version__
from .context import Context, Renames
from .discover import Candidate
from .edits import Edit
from .files import TEMPORARY_NAME, file_stamp, replace_cache_file
from .findings import Finding, Fix, Severity
from .mappings.load import RulesText, cache_dir, cache_enabled, tables_fingerprint
from .output.manifest import options_record
from .result import FileResult, FileStatus, Outcome, RunMode

# 2: conversions count launches and HIP_SYMBOL wraps (result.conversions_of); 3: a record's
# edits are one JSON text, parsed only when an output is written (a no-change run skips them);
# 4: that text packed (``pack_edits``)
FORMAT = 4
MAX_CACHE_FILES = 16  # run keys kept (the most recently used)
MAX_RECORDS = 200_000  # files in one cache file (held in memory during a run)
LOAD_LIMIT = 1 << 30  # bytes of one cache file
EDITS_LIMIT = 1 << 28  # bytes of one record's edits unpacked (a 16 MiB source's are far fewer)
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
        """The Outcome a record stands for (texts not loaded: see ``runner.load_texts``);
        None when the record is malformed."""
        try:
            status = FileStatus(record["status"])
            result = None if status is FileStatus.COPIED else _result(record)
            return Outcome(
                cand,
                status,
                result,
                digest=str(record["sha"]),
                cached=True,
                out_digest=str(record["out"]),
                kind=record.get("kind"),
                out_stamp=_stamp(record.get("out_stamp")),
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

    def remember(self, outcome: Outcome) -> None:
        """Record a freshly processed file (failures and crashed rules are not recorded)."""
        where = os.path.abspath(outcome.candidate.path)
        before = self._stats.get(where)
        if before is None or outcome.cached or outcome.status not in CACHED_STATUSES:
            return
        if not outcome.digest:
            return
        result = outcome.result
        if result is not None and (result.rule_errors or result.error or not _plain(result)):
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
            record.update(_record_of(result))
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


# ---------------------------------------------------------------------- records


def _record_of(result: FileResult) -> dict[str, Any]:
    return {
        "edits": pack_edits([[e.start, e.end, e.text, e.rule] for e in result.edits]),
        "findings": [_finding_row(f) for f in result.findings],
        "conversions": dict(result.conversions),
        "problems": list(result.parse_problems),
    }


def _plain(result: FileResult) -> bool:
    """Whether the findings' rule-specific facts are JSON values a record keeps as they are."""
    return all(
        v is None or isinstance(v, str | int | float | bool)
        for f in result.findings
        for v in f.extra.values()
    )


def _finding_row(f: Finding) -> list[Any]:
    fix = None
    if f.fix is not None:
        fix = [
            [[e.start, e.end, e.text, e.rule] for e in f.fix.edits],
            f.fix.description,
            f.fix.safe,
        ]
    return [
        f.rule,
        f.severity.value,
        f.start,
        f.end,
        f.message,
        fix,
        f.path,
        f.line,
        f.column,
        f.fixed,
        f.extra,
    ]


def _edit(row: list[Any]) -> Edit:
    start, end, text, rule = row
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
        raise ValueError("bad edit")
    return Edit(start, end, str(text), str(rule))


def pack_edits(rows: list[list[Any]]) -> str:
    """Edit rows as a record keeps them: JSON, deflated, base64.  A no-change run reads every
    record and never these; packed, they are a third of the JSON it parses (escaped JSON text
    was two thirds) and the cache file half the size."""
    data = json.dumps(rows, separators=(",", ":")).encode("ascii")  # \u-escaped
    return base64.b64encode(zlib.compress(data, 1)).decode("ascii")


def _unpacked(text: str) -> Any:
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(base64.b64decode(text, validate=True), EDITS_LIMIT)
    except zlib.error as exc:
        raise ValueError("bad edits") from exc
    if inflate.unconsumed_tail or not inflate.eof:  # a damaged or outsized record: a miss
        raise ValueError("bad edits")
    return json.loads(data)


class _RecordedEdits(Sequence[Edit]):
    """A cached result's edits, decoded on first use: a run whose outputs are all up to date
    reports from the counts and findings alone and never needs them.  A malformed row raises
    ``ValueError`` then (``runner.load_texts`` converts the file afresh)."""

    def __init__(self, text: Any) -> None:
        if not isinstance(text, str):
            raise ValueError("bad edits")
        self._text: str | None = text  # [start, end, text, rule] rows (``pack_edits``)
        self._edits: tuple[Edit, ...] = ()

    def _decoded(self) -> tuple[Edit, ...]:
        if self._text is not None:
            rows = _unpacked(self._text)
            if not isinstance(rows, list):
                raise ValueError("bad edits")
            self._edits = tuple(_edit(row) for row in rows)
            self._text = None
        return self._edits

    def __len__(self) -> int:
        return len(self._decoded())

    def __iter__(self) -> Iterator[Edit]:
        return iter(self._decoded())

    @overload
    def __getitem__(self, index: int) -> Edit: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Edit]: ...

    def __getitem__(self, index: int | slice) -> Edit | Sequence[Edit]:
        return self._decoded()[index]


_SEVERITIES = {s.value: s for s in Severity}  # a lookup, not an Enum call per finding


def _finding(row: list[Any]) -> Finding:
    rule, severity, start, end, message, fix, path, line, column, fixed, extra = row
    made = None
    if fix is not None:
        edits, description, safe = fix
        made = Fix(tuple(_edit(e) for e in edits), str(description), bool(safe))
    if not isinstance(extra, dict):
        raise ValueError("bad extra")
    return Finding(
        str(rule),
        _SEVERITIES[severity],
        int(start),
        int(end),
        str(message),
        made,
        str(path),
        int(line),
        int(column),
        bool(fixed),
        extra,
    )


def _stamp(value: Any) -> list[int] | None:
    if isinstance(value, list) and len(value) == 4 and all(type(v) is int for v in value):
        return value
    return None


def _result(record: dict[str, Any]) -> FileResult:
    """A FileResult without its texts (they are loaded only when output needs them)."""
    conversions = record["conversions"]
    if not isinstance(conversions, dict):
        raise ValueError("bad conversions")
    return FileResult(
        path=str(record["given"]),
        original="",
        text="",
        edits=_RecordedEdits(record["edits"]),
        findings=[_finding(f) for f in record["findings"]],
        conversions=Counter({str(k): int(v) for k, v in conversions.items()}),
        parse_problems=[str(p) for p in record["problems"]],
    )


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
