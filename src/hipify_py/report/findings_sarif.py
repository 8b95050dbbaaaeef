"""SARIF 2.1.0 for GitHub code scanning: rule metadata with the rule pages as help text,
results with regions, ``partialFingerprints`` and (for findings that have one) fixes."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from ..findings import Finding
from ..rules import RULES
from .findings_common import CheckReport, fingerprint, level, occurrence_keys, rule_info
from .formats import Style, register_format

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/hipify-py/hipify-py"


def _uri(path: str) -> dict:
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    return {"uri": quote(PurePosixPath(*p.parts).as_posix()), "uriBaseId": "%SRCROOT%"}


def _rule(rule_id: str, finding: Finding | None = None) -> dict:
    info = rule_info(rule_id, finding)
    doc = info.doc or info.summary
    return {
        "id": info.id,
        "name": "".join(w.capitalize() for w in info.name.split("-")),
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.summary},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": level(info.severity), "enabled": not info.opt_in},
        "properties": {
            "tags": ["hip", "amd", "portability"],
            "problem.severity": info.severity.value,
        },
    }


def _region(report: CheckReport, f: Finding) -> dict:
    end_line, end_col = report.end_position(f)
    region = {"startLine": max(1, f.line), "startColumn": max(1, f.column)}
    if (end_line, end_col) > (f.line, f.column):
        region.update(endLine=end_line, endColumn=end_col)
    return region


def _fix(report: CheckReport, f: Finding) -> list[dict]:
    if f.fix is None or not report.has_source(f.path):
        return []
    replacements = []
    for e in f.fix.edits:
        sl, sc = report.position(f.path, e.start)
        el, ec = report.position(f.path, e.end)
        replacements.append(
            {
                "deletedRegion": {
                    "startLine": sl,
                    "startColumn": sc,
                    "endLine": el,
                    "endColumn": ec,
                },
                "insertedContent": {"text": e.text},
            }
        )
    desc = f.fix.description + ("" if f.fix.safe else " (unsafe: review before applying)")
    return [
        {
            "description": {"text": desc},
            "artifactChanges": [{"artifactLocation": _uri(f.path), "replacements": replacements}],
        }
    ]


def _related(f: Finding) -> list[dict]:
    """The dependent lines of a diagnosis that lists them (``extra["related_lines"]``)."""
    lines = str(f.extra.get("related_lines") or "")
    return [
        {
            "id": n,
            "physicalLocation": {
                "artifactLocation": _uri(f.path),
                "region": {"startLine": int(line)},
            },
            "message": {"text": "depends on the same root cause"},
        }
        for n, line in enumerate(lines.split(","))
        if line
    ]


@register_format("sarif")
def render(report: CheckReport, style: Style) -> str:
    # every registered rule is described, so code scanning can show pages for closed alerts too
    ids = sorted(set(RULES) | {f.rule for f in report.findings})
    first = {f.rule: f for f in report.findings}
    rules = [_rule(r, first.get(r)) for r in ids]
    index = {r: i for i, r in enumerate(ids)}
    results = []
    for f, key in zip(report.findings, occurrence_keys(report), strict=True):
        result = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": level(f.severity),
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _uri(f.path),
                        "region": _region(report, f),
                    }
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint(key)},
        }
        fixes = _fix(report, f)
        if fixes:
            result["fixes"] = fixes
        related = _related(f)
        if related:
            result["relatedLocations"] = related
        results.append(result)
    run = {
        "tool": {
            "driver": {
                "name": "hipify-py",
                "semanticVersion": report.tool_version or "0",
                "version": report.tool_version or "0",
                "informationUri": INFO_URI,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if report.failures:
        run["invocations"] = [
            {
                "executionSuccessful": False,
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": f"{p}: {m}"}} for p, m in report.failures
                ],
            }
        ]
    else:
        run["invocations"] = [{"executionSuccessful": True}]
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"
