"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding."""

from __future__ import annotations

from .findings_common import CheckReport, rule_info
from .formats import Style, register_format

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


@register_format("github")
def render(report: CheckReport, style: Style) -> str:
    lines = []
    for f in report.findings:
        end_line, end_col = report.end_position(f)
        props = [f"file={_prop(f.path)}", f"line={f.line}", f"col={f.column}"]
        if end_line == f.line and end_col > f.column:
            props += [f"endLine={end_line}", f"endColumn={end_col}"]
        title = f"{f.rule} {rule_info(f.rule, f).name}"
        props.append(f"title={_prop(title)}")
        lines.append(f"::{_COMMAND[f.severity.value]} {','.join(props)}::{_data(f.message)}")
    for path, message in report.failures:
        lines.append(f"::error file={_prop(path)},title=hipify-py::{_data(message)}")
    return "\n".join(lines) + ("\n" if lines else "")
