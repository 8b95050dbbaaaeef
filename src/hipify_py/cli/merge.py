"""``hipify-py merge-reports``: one report from the reports of ``--shard I/N`` runs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..merge import MergeError, merge
from ..untrusted import UntrustedInputError, decode_utf8, read_regular
from .common import write_or_fail
from .params import PathArg

REPORT_LIMIT = 1 << 30  # bytes of one report


@click.command("merge-reports")
@click.argument("reports", nargs=-1, required=True, type=PathArg(path_type=Path, dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=PathArg(path_type=Path, dir_okay=False, allow_dash=True),
    default="-",
    help="Write the merged report to FILE (default: standard output).",
)
def merge_reports(reports: tuple[Path, ...], output: Path) -> None:
    """Merge the JSON or SARIF reports of `check --shard I/N` (or the `--json` summaries of
    `convert --shard I/N`) into the report of the whole tree."""
    docs = []
    for path in reports:
        try:
            docs.append(json.loads(decode_utf8(path, read_regular(path, REPORT_LIMIT))))
        except UntrustedInputError as exc:
            raise click.UsageError(str(exc)) from None
        except (ValueError, RecursionError) as exc:
            raise click.UsageError(f"cannot read {path}: {exc}") from None
    try:
        merged = merge(docs)
    except MergeError as exc:
        raise click.UsageError(str(exc)) from None
    write_or_fail(output, json.dumps(merged, indent=2) + "\n")
