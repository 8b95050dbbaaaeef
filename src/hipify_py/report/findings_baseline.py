"""Baselines: record today's findings so that only new ones fail ``hipify-py check``.

A finding is known when the baseline holds the same rule, path (relative to the baseline
file's directory), stripped source line text and occurrence index of that text: line numbers
are not part of the key, so edits elsewhere in the file keep the baseline valid.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from .findings_common import CheckReport, occurrence_keys

BASELINE_VERSION = 1


class BaselineError(ValueError):
    pass


def _rel(path: str, base: Path) -> str:
    try:
        return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return Path(path).as_posix()


def keys(report: CheckReport, base: Path) -> list[tuple[str, str, str, int]]:
    return [(rule, _rel(path, base), text, n) for rule, path, text, n in occurrence_keys(report)]


def dump(report: CheckReport, baseline_path: Path) -> str:
    base = baseline_path.parent
    entries = [{"rule": r, "path": p, "line_text": t, "occurrence": n, "message": f.message}
               for (r, p, t, n), f in zip(keys(report, base), report.findings, strict=True)]
    entries.sort(key=lambda e: (e["path"], e["rule"], e["line_text"], e["occurrence"]))
    return json.dumps({"version": BASELINE_VERSION, "tool": "hipify-py", "findings": entries},
                      indent=2, ensure_ascii=False) + "\n"


def load(baseline_path: Path) -> Counter:
    try:
        data = json.loads(baseline_path.read_text(encoding="utf-8"))
        items = data["findings"]
        known = Counter((e["rule"], e["path"], e["line_text"], int(e["occurrence"]))
                        for e in items)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"cannot read baseline {baseline_path}: {exc}") from None
    return known


def apply(report: CheckReport, known: Counter, baseline_path: Path) -> CheckReport:
    """Drop the findings the baseline knows; count them in ``report.baselined``."""
    remaining = Counter(known)
    kept = []
    for key, f in zip(keys(report, baseline_path.parent), report.findings, strict=True):
        if remaining[key] > 0:
            remaining[key] -= 1
            report.baselined += 1
        else:
            kept.append(f)
    report.findings = kept
    return report
