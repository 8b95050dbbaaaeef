"""The data every findings formatter reads: the findings and the source they point into.

Formatters (``findings_<format>.py``, registered in ``formats``) are pure functions from a
``CheckReport`` to text.  A committed HIP file that is out of sync is an ordinary finding of
rule HZ001 (``stale_finding``), so no formatter needs to know about it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field, replace

from ..edits import LineIndex
from ..findings import Finding, Severity
from ..hazards.hz001_stale_output import STALE_OUTPUT
from ..rules import RULES, RuleInfo

STALE_RULE = STALE_OUTPUT.id  # committed HIP output missing or out of sync (--in-sync)


@dataclass
class CheckReport:
    """The findings of a run and, of each checked file, only the lines and positions the
    formatters read (``add_source``): a run over a large tree never holds its sources."""

    findings: list[Finding]  # open findings; path = display path; sorted by path, line, column
    # findings the conversion itself fixes (e.g. 32-bit warp masks): counted, never failing
    fixed: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    baselined: int = 0  # findings hidden because the baseline knows them
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    tool_version: str = ""
    _line_texts: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)
    _positions: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict, repr=False)
    _paths: set[str] = field(default_factory=set, repr=False)

    def add_source(self, path: str, text: str, findings: list[Finding]) -> None:
        """Keep what the formatters need of ``text`` for ``findings`` (their lines, end
        positions and fix ranges), and nothing else of it."""
        index = LineIndex(text)
        self._paths.add(path)
        for f in findings:
            if f.line >= 1:
                start, end = index.line_span(f.line)
                self._line_texts[(path, f.line)] = text[start:end]
            offsets = [f.end] + [
                o for e in (f.fix.edits if f.fix else ()) for o in (e.start, e.end)
            ]
            for offset in offsets:
                self._positions[(path, offset)] = index.position(offset)

    def has_source(self, path: str) -> bool:
        return path in self._paths

    def line_text(self, path: str, line: int) -> str:
        return self._line_texts.get((path, line), "")

    def end_position(self, f: Finding) -> tuple[int, int]:
        """1-based (line, column) just past the finding's last character."""
        if f.end <= f.start:
            return f.line, f.column
        return self._positions.get((f.path, f.end), (f.line, f.column))

    def position(self, path: str, offset: int) -> tuple[int, int]:
        return self._positions.get((path, offset), (1, 1))

    def severity_counts(self) -> Counter:
        return Counter(f.severity.value for f in self.findings)

    def rule_counts(self) -> Counter:
        return Counter(f.rule for f in self.findings)


def rule_info(rule_id: str, finding: Finding | None = None) -> RuleInfo:
    """The registered rule, or a stand-in for IDs from passes that did not register one."""
    info = RULES.get(rule_id)
    if info is not None:
        return info
    sev = finding.severity if finding is not None else Severity.WARNING
    return RuleInfo(rule_id, rule_id.lower(), sev, rule_id, "")


def level(severity: Severity) -> str:
    """SARIF / GitHub level for a severity."""
    return {"error": "error", "warning": "warning", "info": "note"}[severity.value]


def occurrence_keys(report: CheckReport) -> list[tuple[str, str, str, int]]:
    """(rule, path, stripped line text, occurrence) per finding, in report order.

    The occurrence index counts earlier findings with the same rule, path and line text, so the
    key survives edits elsewhere in the file (line numbers are not part of it).
    """
    seen: Counter = Counter()
    out = []
    for f in report.findings:
        text = " ".join(report.line_text(f.path, f.line).split())
        key = (f.rule, f.path, text)
        out.append((*key, seen[key]))
        seen[key] += 1
    return out


def fingerprint(key: tuple[str, str, str, int]) -> str:
    rule, path, text, n = key
    digest = hashlib.sha256(f"{rule}\0{path}\0{text}".encode()).hexdigest()[:32]
    return f"{digest}:{n + 1}"


def caret_line(line_text: str, column: int, width: int) -> str:
    """Spaces (tabs kept) up to ``column`` then ``^~~~`` under ``width`` characters."""
    prefix = "".join(ch if ch == "\t" else " " for ch in line_text[: max(0, column - 1)])
    return prefix + "^" + "~" * max(0, width - 1)


def stale_finding(path: str, source: str, status: str, line: int = 1) -> Finding:
    """The HZ001 finding for the committed HIP file ``path`` made from the CUDA file ``source``:
    ``status`` is "missing", "stale" (first differing ``line``) or "orphaned" (its CUDA source
    was renamed or deleted).  ``extra`` keeps the source (config ignores are keyed on it) and
    the status."""
    if status == "orphaned":
        message = (
            f"{path} was generated from {source}, which no longer exists: "
            "delete it, or convert the renamed source"
        )
    elif status == "missing":
        message = f"{path} is missing: generate it from {source} with `hipify-py convert`"
    else:
        message = (
            f"{path} is out of sync with {source} (first difference at line {line}); "
            f"regenerate it with `hipify-py convert`"
        )
    found = STALE_OUTPUT.report(0, 0, message, extra={"source": source, "status": status})
    return replace(found, path=path, line=line, column=1)
