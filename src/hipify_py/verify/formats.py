"""The formats ``verify`` prints: text (``path:line:col: error: ...`` lines, with the CUDA line
each error came from), GitHub workflow annotations, SARIF 2.1.0 and JSON.  An error is placed
at its CUDA line when the map back is known (that is the file a person edits), else at the HIP
line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import click

from .. import __version__
from ..report.findings_github import _data, _prop
from ..report.findings_sarif import SCHEMA
from . import FileReport, VerifyReport
from .compile import Diagnostic
from .locations import location, shown_path


def _shown(f: FileReport, show_warnings: bool) -> Iterator[Diagnostic]:
    if f.status == "failed":
        yield from f.errors
    if show_warnings:
        yield from f.warnings


def _github(report: VerifyReport, show_warnings: bool) -> str:
    lines = []
    for f in report.files:
        for d in _shown(f, show_warnings):
            path, line, col = location(f, d)
            cmd = "error" if d.severity == "error" else "warning"
            title = _prop(f"hipify-py verify ({report.toolchain.arch})")
            where = f"file={_prop(path)},line={line},col={col},title={title}"
            lines.append(f"::{cmd} {where}::{_data(d.message)}")
        if f.status == "not-checkable":
            lines.append(
                f"::warning file={_prop(shown_path(f.path))},title=not checkable::"
                + _data("; ".join(f.notes))
            )
    return "\n".join(lines) + ("\n" if lines else "")


def _sarif(report: VerifyReport, show_warnings: bool) -> str:
    results = []
    for f in report.files:
        for d in _shown(f, show_warnings):
            path, line, col = location(f, d)
            results.append(
                {
                    "ruleId": "compile-error" if d.severity == "error" else "compile-warning",
                    "level": "error" if d.severity == "error" else "warning",
                    "message": {"text": d.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": path},
                                "region": {"startLine": line, "startColumn": col},
                            }
                        }
                    ],
                }
            )
    run = {
        "tool": {
            "driver": {
                "name": "hipify-py verify",
                "version": __version__,
                "rules": [{"id": "compile-error"}, {"id": "compile-warning"}],
            }
        },
        "results": results,
        "invocations": [{"executionSuccessful": report.exit_code == 0}],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _json(report: VerifyReport, show_warnings: bool) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


_RENDER: dict[str, Callable[[VerifyReport, bool], str]] = {
    "github": _github,
    "sarif": _sarif,
    "json": _json,
}
FORMATS = ("text", *_RENDER)  # text is rich's rendering (verify/report.py)


def emit(report: VerifyReport, fmt: str, show_warnings: bool = False) -> None:
    """Print ``report`` in ``fmt`` on stdout."""
    if fmt == "text":
        from .report import render

        render(report, show_warnings=show_warnings)
        return
    click.echo(_RENDER[fmt](report, show_warnings), nl=False)
