"""Machine-readable JSON report (stable keys; ``version`` bumps on incompatible changes)."""

from __future__ import annotations

import json

from .findings_common import CheckReport, fingerprint, occurrence_keys, rule_info
from .formats import Style, register_format

# 2: stale HIP output (HZ001) is a finding (no "stale" list); each finding has "data"
FORMAT_VERSION = 2


@register_format("json")
def render(report: CheckReport, style: Style) -> str:
    findings = []
    for f, key in zip(report.findings, occurrence_keys(report), strict=True):
        end_line, end_col = report.end_position(f)
        fix = None
        if f.fix is not None:
            fix = {
                "description": f.fix.description,
                "safe": f.fix.safe,
                "edits": [{"start": e.start, "end": e.end, "text": e.text} for e in f.fix.edits],
            }
        findings.append(
            {
                "rule": f.rule,
                "name": rule_info(f.rule, f).name,
                "severity": f.severity.value,
                "path": f.path,
                "line": f.line,
                "column": f.column,
                "end_line": end_line,
                "end_column": end_col,
                "message": f.message,
                "source_line": key[2],
                "fingerprint": fingerprint(key),
                "fix": fix,
                "data": dict(f.extra),  # rule-specific facts (API, family, HZ001's source)
            }
        )
    counts = report.severity_counts()
    data = {
        "version": FORMAT_VERSION,
        "tool": {"name": "hipify-py", "version": report.tool_version},
        "summary": {
            "files": report.files_checked,
            "errors": counts.get("error", 0),
            "warnings": counts.get("warning", 0),
            "infos": counts.get("info", 0),
            "baselined": report.baselined,
            "failed": len(report.failures),
            "fixed": len(report.fixed),
        },
        "findings": findings,
        "failures": [{"path": p, "message": m} for p, m in report.failures],
        # what `convert` fixes by itself: not open, listed so nothing is hidden
        "fixed": [
            {
                "rule": f.rule,
                "path": f.path,
                "line": f.line,
                "column": f.column,
                "message": f.message,
            }
            for f in report.fixed
        ],
    }
    return json.dumps(data, indent=2, default=str) + "\n"
