"""How the per-file cache (``cache.py``) keeps one file's result in its JSON record, and reads
it back: edits packed, findings as rows, a result without its texts (they are loaded only when
output needs them).  Anything malformed raises ``ValueError`` (or ``KeyError``, ``TypeError``,
``IndexError``), which the cache takes as a miss."""

from __future__ import annotations

import base64
import json
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, overload

from .edits import Edit
from .findings import Finding, Fix, Severity
from .result import FileResult

EDITS_LIMIT = 1 << 28  # bytes of one record's edits unpacked (a 16 MiB source's are far fewer)


def record_of(result: FileResult) -> dict[str, Any]:
    return {
        "edits": pack_edits([_edit_row(e) for e in result.edits]),
        "findings": [_finding_row(f) for f in result.findings],
        "conversions": dict(result.conversions),
        "problems": list(result.parse_problems),
    }


def plain(result: FileResult) -> bool:
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
            [_edit_row(e) for e in f.fix.edits],
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


def _edit_row(e: Edit) -> list[Any]:
    return [e.start, e.end, e.text, e.rule, e.rank]


def _edit(row: list[Any]) -> Edit:
    start, end, text, rule, rank = row
    if not all(isinstance(n, int) for n in (start, end, rank)) or not 0 <= start <= end:
        raise ValueError("bad edit")
    return Edit(start, end, str(text), str(rule), rank)


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
    ``ValueError`` then (``cache.load_texts`` converts the file afresh)."""

    def __init__(self, text: Any) -> None:
        if not isinstance(text, str):
            raise ValueError("bad edits")
        self._text: str | None = text  # [start, end, text, rule, rank] rows (``pack_edits``)
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


def stamp_of(value: Any) -> list[int] | None:
    if isinstance(value, list) and len(value) == 4 and all(type(v) is int for v in value):
        return value
    return None


def result_of(record: dict[str, Any]) -> FileResult:
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
