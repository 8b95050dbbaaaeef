"""Text report: one finding per line as ``path:line:col: ID message`` (the form editors, problem
matchers and ruff use), the summary last.

On a terminal each finding also shows its source line with a caret.  Every piece of user text
(paths, messages, source lines) goes into ``rich.text.Text`` objects, never through markup, so
``k[i].cu`` keeps its brackets and ``:100:`` stays a line number.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..findings import Finding
from .findings_common import CheckReport, caret_line, stale_message

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
STALE_RULE = "HZ001"


def render(report: CheckReport, console: Console, *, quiet: bool = False) -> None:
    """Print the report; ``quiet`` keeps findings and failures and drops the summary and the
    source context."""
    context = console.is_terminal and not quiet
    for f in report.findings:
        console.print(finding_line(f), soft_wrap=True)
        if context:
            _print_context(report, f, console)
    for s in report.stale:
        line = Text(f"{s.path}:{s.line}:1: ")
        line.append(STALE_RULE, style="bold red")
        line.append(f" {stale_message(s)}")
        console.print(line, soft_wrap=True)
    for path, message in report.failures:
        console.print(Text(f"{path}: {message}", style="red"), soft_wrap=True)
    if not quiet:
        console.print(Text(summary_line(report)), soft_wrap=True)


def finding_line(f: Finding) -> Text:
    sev = f.severity.value
    line = Text(f"{f.path}:{f.line}:{f.column}: ")
    line.append(f.rule, style=_STYLE[sev])
    line.append(" " + " ".join(f.message.splitlines()))
    if f.fix is not None:
        line.append(" (fix available)" if f.fix.safe else " (unsafe fix available)", style="dim")
    return line


def _print_context(report: CheckReport, f: Finding, console: Console) -> None:
    text = report.line_text(f.path, f.line)
    if not text:
        return
    end_line, end_col = report.end_position(f)
    width = (end_col - f.column) if end_line == f.line else len(text) - f.column + 1
    console.print(Text(f"    {text}"), soft_wrap=True)
    caret = caret_line(text, f.column, max(1, width))
    console.print(Text(f"    {caret}", style=_STYLE[f.severity.value]), soft_wrap=True)


def summary_line(report: CheckReport) -> str:
    counts = report.severity_counts()
    parts = [
        f"{counts.get(s, 0)} {s}{'s' if counts.get(s, 0) != 1 else ''}"
        for s in ("error", "warning", "info")
    ]
    line = f"{', '.join(parts)} in {report.files_checked} file" + (
        "s" if report.files_checked != 1 else ""
    )
    if report.stale:
        line += f"; {len(report.stale)} HIP file{'s' if len(report.stale) != 1 else ''} out of sync"
    if report.baselined:
        line += (
            f"; {report.baselined} known finding{'s' if report.baselined != 1 else ''} "
            f"hidden by the baseline"
        )
    if report.fixed:
        line += f"; {len(report.fixed)} fixed by `hipify-py convert` itself (not counted)"
    fixable = sum(1 for f in report.findings if f.fix is not None and f.fix.safe)
    if fixable:
        line += f"; {fixable} fixable with `hipify-py convert --fix`"
    return line
