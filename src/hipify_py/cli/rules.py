"""``hipify-py rules`` (the rule table) and ``hipify-py explain ID`` (one rule's page)."""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from ..rules import RULES, load_rules


@click.command("rules")
@click.option("--json", "as_json", is_flag=True, help="Print the rules as JSON.")
def rules(as_json: bool) -> None:
    """List the hazard rules: ID, severity, whether it is reported by default or only with
    --enable (opt-in), name and summary."""
    load_rules()
    items = sorted(RULES.values(), key=lambda r: r.id)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "name": r.name,
                        "severity": r.severity.value,
                        "opt_in": r.opt_in,
                        "summary": r.summary,
                    }
                    for r in items
                ],
                indent=2,
            )
        )
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("ID", no_wrap=True)
    table.add_column("Severity", no_wrap=True)
    table.add_column("Reported", no_wrap=True)
    table.add_column("Name", no_wrap=True)
    table.add_column("Summary")
    style = {"error": "red", "warning": "yellow", "info": "cyan"}
    for r in items:
        severity = f"[{style[r.severity.value]}]{r.severity.value}[/]"
        table.add_row(r.id, severity, "opt-in" if r.opt_in else "default", r.name, r.summary)
    Console().print(table)


@click.command("explain")
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Print the page of rule RULE_ID (e.g. HZ101): what it detects, why, and how to fix it."""
    load_rules()
    info = RULES.get(rule_id.strip().upper())
    if info is None:
        by_name = {r.name: r for r in RULES.values()}
        info = by_name.get(rule_id.strip().lower())
    if info is None:
        click.echo(f"hipify-py: error: unknown rule {rule_id!r} (see `hipify-py rules`)", err=True)
        sys.exit(2)
    Console().print(Markdown(info.page))
