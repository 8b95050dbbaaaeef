"""Show a ``VerifyReport``: grouped by file, each error at the HIP line and the CUDA line."""

from __future__ import annotations

import os

from rich.console import Console
from rich.markup import escape

from . import FileReport, VerifyReport
from .locations import location


def _rel(path: str | None) -> str:
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("../../") else rel


def render(
    report: VerifyReport, console: Console | None = None, *, show_warnings: bool = False
) -> None:
    console = console or Console(highlight=False, soft_wrap=True)
    tc = report.toolchain
    console.print(f"[bold]verify[/] ({report.mode}) with {escape(tc.describe())}")
    if tc.compiler:
        console.print(f"  compiler: {escape(tc.compiler)}")
    if tc.hip_include:
        console.print(f"  HIP headers: {escape(tc.hip_include)} (HIP {tc.hip_version_text})")
    if tc.device_libs and report.mode == "codegen":
        console.print(f"  device libraries: {escape(tc.device_libs)}")
    for w in (*tc.warnings, *report.warnings):
        console.print(f"[yellow]warning:[/] {escape(w)}")
    for f in report.files:
        _render_file(console, f, show_warnings)
    c = report.counts()
    colour = "green" if report.exit_code == 0 else "red"
    console.print(
        f"[bold {colour}]{c['passed']} passed, {c['failed']} failed[/]"
        + (f", {c['not-checkable']} not checkable" if c["not-checkable"] else "")
        + (f", {c['skipped']} skipped" if c["skipped"] else "")
        + f" ({c['errors']} errors, {c['warnings']} warnings) in {report.seconds:.1f}s"
        + f" for {tc.arch}"
    )
    if report.checked_nothing:
        console.print(
            "[bold red]error:[/] nothing was checked: no file could be judged with this "
            "toolchain and these include directories (see the notes above)"
        )


def _render_file(console: Console, f: FileReport, show_warnings: bool) -> None:
    mark = {
        "passed": "[green]PASS[/]",
        "failed": "[red]FAIL[/]",
        "not-checkable": "[magenta]NOT CHECKABLE[/]",
        "skipped": "[yellow]SKIP[/]",
    }
    built = f", {f.code_object} code object" if f.code_object else ""
    console.print(
        f"{mark.get(f.status, f.status)} {escape(_rel(f.path))} ({f.seconds:.1f}s{built})"
    )
    if f.toolchain:
        console.print(f"     [dim]checked with {escape(f.toolchain)}[/]")
    for note in f.notes:
        console.print(f"     [dim]note: {escape(note)}[/]")
    # a not-checkable file's only errors are the missing headers its note names
    errors = f.errors if f.status != "not-checkable" else []
    shown = errors + (f.warnings if show_warnings else [])
    for d in shown:
        colour = "red" if d.severity == "error" else "yellow"
        path, line, col = location(f, d)
        console.print(
            f"{escape(path)}:{line}:{col}: [{colour}]{d.severity}:[/] {escape(d.message)}"
        )
        if d.cuda and d.anchor:  # shown at the CUDA line: say where it is in the HIP file
            how = "" if d.cuda.get("exact") else " (mapped by line)"
            console.print(
                f"     [dim]converted to {escape(_rel(f.path))}:{d.anchor[0]}:{d.anchor[1]}{how}[/]"
            )
        if d.anchor and d.file and os.path.realpath(d.file) != os.path.realpath(f.path):
            console.print(f"     [dim]reported in {escape(_rel(d.file))}:{d.line}:{d.column}[/]")
        if d.hip_source is not None:
            console.print(f"     hip  | {escape(d.hip_source.strip())}")
        if d.cuda:
            console.print(f"     cuda | {escape(d.cuda['source'].strip())}")
