"""Terminal report: findings grouped by file, each with its source line and a caret."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.markup import escape

from .findings_common import CheckReport, caret_line, rule_info, stale_message

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def render(report: CheckReport, console: Console) -> None:
    """Print the report (colours only where the console supports them)."""
    for path, items in groupby(report.findings, key=lambda f: f.path):
        console.print(f"[bold underline]{escape(path)}[/]")
        for f in items:
            info = rule_info(f.rule, f)
            sev = f.severity.value
            fixable = ""
            if f.fix is not None:
                fixable = (
                    " [dim](fix available)[/]" if f.fix.safe else " [dim](unsafe fix available)[/]"
                )
            console.print(
                f"  {f.line}:{f.column}: [{_STYLE[sev]}]{sev}[/] "
                f"[bold]{f.rule}[/] [dim]{escape(info.name)}[/] {escape(f.message)}{fixable}",
                highlight=False,
                soft_wrap=True,
            )
            text = report.line_text(f.path, f.line)
            if text:
                end_line, end_col = report.end_position(f)
                width = (end_col - f.column) if end_line == f.line else len(text) - f.column + 1
                console.print(f"    {escape(text)}", highlight=False, soft_wrap=True)
                console.print(
                    f"    [{_STYLE[sev]}]{caret_line(text, f.column, max(1, width))}[/]",
                    highlight=False,
                    soft_wrap=True,
                )
        console.print()
    for s in report.stale:
        console.print(
            f"[bold red]out of sync[/]: {escape(stale_message(s))}", highlight=False, soft_wrap=True
        )
    for path, message in report.failures:
        console.print(
            f"[bold red]failed[/]: {escape(path)}: {escape(message)}",
            highlight=False,
            soft_wrap=True,
        )
    console.print(summary_line(report), highlight=False, soft_wrap=True)


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
