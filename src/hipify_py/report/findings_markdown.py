"""A pull-request comment: a summary table by rule, then the findings grouped by file."""

from __future__ import annotations

from itertools import groupby

from .findings_common import CheckReport, rule_info
from .findings_text import summary_line
from .formats import Style, register_format

MAX_FINDINGS = 200  # listed one by one; the table counts them all
_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@register_format("markdown")
def render(report: CheckReport, style: Style) -> str:
    out = ["## hipify-py check", "", summary_line(report), ""]
    counts = report.rule_counts()
    if counts:
        out += ["| Rule | Severity | Name | Count |", "| --- | --- | --- | ---: |"]
        for rule in sorted(counts):
            info = rule_info(rule)
            sev = next(f.severity.value for f in report.findings if f.rule == rule)
            out.append(f"| `{rule}` | {_ICON[sev]} {sev} | {_cell(info.name)} | {counts[rule]} |")
        out.append("")
    if report.failures:
        out += ["### Files that could not be checked", ""]
        out += [f"- `{p}`: {_cell(m)}" for p, m in report.failures]
        out.append("")
    shown = 0
    for path, items in groupby(report.findings, key=lambda f: f.path):
        out += [f"### `{path}`", ""]
        for f in items:
            if shown >= MAX_FINDINGS:
                break
            shown += 1
            out.append(
                f"- {_ICON[f.severity.value]} **{f.rule}** `{rule_info(f.rule, f).name}` "
                f"line {f.line}: {_cell(f.message)}"
            )
            text = report.line_text(f.path, f.line).strip()
            if text:
                fence = "```" if "```" not in text else "~~~"
                out += ["", f"  {fence}cuda", f"  {text}", f"  {fence}", ""]
        out.append("")
    if shown < len(report.findings):
        out.append(f"_{len(report.findings) - shown} more findings not shown._")
        out.append("")
    out.append(
        "Explain a rule with `hipify-py explain ID`; silence a reviewed line with "
        "`// hipify-py: ignore[ID]`."
    )
    return "\n".join(out) + "\n"
