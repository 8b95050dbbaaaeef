"""Baselines: record today's findings so that only new ones fail ``hipify-py check``.

A finding is known when the baseline holds the same rule, path (relative to the baseline
file's directory), stripped source line text and occurrence index of that text: line numbers
are not part of the key, so edits elsewhere in the file keep the baseline valid.  Stale HIP
output (HZ001) is never recorded: the committed tree must be regenerated, which a baseline
must not postpone.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from ..findings import Finding
from ..untrusted import UntrustedInputError, read_regular
from .findings_common import STALE_RULE, CheckReport, occurrence_keys

BASELINE_VERSION = 1


class BaselineError(ValueError):
    pass


def _rel(path: str, base: Path) -> str:
    try:
        return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()


def recordable(f: Finding) -> bool:
    """Whether a baseline records (and hides) the finding: everything but stale HIP output."""
    return f.rule != STALE_RULE


def keys(report: CheckReport, base: Path) -> list[tuple[str, str, str, int]]:
    return [(rule, _rel(path, base), text, n) for rule, path, text, n in occurrence_keys(report)]


def dump(report: CheckReport, baseline_path: Path) -> str:
    base = baseline_path.parent
    entries = [
        {"rule": r, "path": p, "line_text": t, "occurrence": n, "message": f.message}
        for (r, p, t, n), f in zip(keys(report, base), report.findings, strict=True)
        if recordable(f)
    ]
    entries.sort(key=lambda e: (e["path"], e["rule"], e["line_text"], e["occurrence"]))
    return (
        json.dumps(
            {"version": BASELINE_VERSION, "tool": "hipify-py", "findings": entries},
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


BASELINE_LIMIT = 256 * 1024 * 1024  # bytes


def load(baseline_path: Path) -> Counter:
    """The known findings of a baseline file; BaselineError (one line) when it is not one."""
    try:  # untrusted input: a regular file of bounded size (a FIFO must not hang the gate)
        raw = read_regular(baseline_path, BASELINE_LIMIT)
    except UntrustedInputError as exc:
        raise BaselineError(f"baseline: {exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _not_a_baseline(baseline_path, "not UTF-8") from None
    except (ValueError, RecursionError) as exc:
        raise _not_a_baseline(baseline_path, f"invalid JSON: {exc}") from None
    return Counter(_entries(data, baseline_path))


def _not_a_baseline(path: Path, reason: str) -> BaselineError:
    return BaselineError(f"cannot read baseline {path}: not a hipify-py baseline ({reason})")


def _entries(data: object, path: Path) -> list[tuple[str, str, str, int]]:
    if not isinstance(data, dict):
        raise _not_a_baseline(path, f"top level is a {_kind(data)}, expected an object")
    if "findings" not in data:
        raise _not_a_baseline(path, "no 'findings' key")
    version = data.get("version", BASELINE_VERSION)
    if type(version) is not int or version > BASELINE_VERSION:
        raise _not_a_baseline(path, f"unsupported version {version!r}")
    items = data["findings"]
    if not isinstance(items, list):
        raise _not_a_baseline(path, f"'findings' is a {_kind(items)}, expected a list")
    out = []
    for n, e in enumerate(items):
        if not isinstance(e, dict):
            raise _not_a_baseline(path, f"finding {n} is a {_kind(e)}, expected an object")
        for key, kind in (("rule", str), ("path", str), ("line_text", str), ("occurrence", int)):
            if key not in e:
                raise _not_a_baseline(path, f"finding {n} has no {key!r}")
            if type(e[key]) is not kind or (kind is int and e[key] < 0):
                raise _not_a_baseline(
                    path,
                    f"finding {n}: {key!r} is not a "
                    f"{'non-negative integer' if kind is int else 'string'}",
                )
        out.append((e["rule"], e["path"], e["line_text"], e["occurrence"]))
    return out


def _kind(value: object) -> str:
    return {
        dict: "object",
        list: "list",
        str: "string",
        int: "number",
        float: "number",
        bool: "boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def apply(report: CheckReport, known: Counter, baseline_path: Path) -> CheckReport:
    """Drop the findings the baseline knows; count them in ``report.baselined``."""
    remaining = Counter(known)
    kept = []
    for key, f in zip(keys(report, baseline_path.parent), report.findings, strict=True):
        if recordable(f) and remaining[key] > 0:
            remaining[key] -= 1
            report.baselined += 1
        else:
            kept.append(f)
    report.findings = kept
    return report
