"""Text report: one finding per line as ``path:line:col: ID message`` (the form editors, problem
matchers and ruff use), the summary last.

On a terminal each finding also shows its source line with a caret.  Every piece of user text
(paths, messages, source lines) goes into ``rich.text.Text`` objects, never through markup, so
``k[i].cu`` keeps its brackets and ``:100:`` stays a line number.
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from ..findings import Finding
from .findings_common import CheckReport, caret_line
from .formats import Style, register_format

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


@register_format("text")
def render(report: CheckReport, style: Style) -> str:
    """The report; colours and source context on a terminal; ``quiet`` keeps findings and
    failures and drops the summary and the source context."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=style.terminal,
        no_color=True if not style.terminal else None,  # None: rich honours NO_COLOR
        highlight=False,
        soft_wrap=True,
    )
    for f in report.findings:
        console.print(finding_line(f), soft_wrap=True)
        if style.terminal and not style.quiet:
            _print_context(report, f, console)
    for path, message in report.failures:
        console.print(Text(f"{path}: {message}", style="red"), soft_wrap=True)
    if not style.quiet:
        console.print(Text(summary_line(report)), soft_wrap=True)
    return buffer.getvalue()


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
