"""The README's rule tables list exactly the registered rules, with their severity and name
(issue 9: the tables drifted from the registry before)."""

from __future__ import annotations

import re
from pathlib import Path

from hipify_py.rules import RULES, load_rules

README = Path(__file__).resolve().parent.parent / "README.md"
# a rule row: | `HZ101` | error | `warp-lane-arith-32` | what it flags | ...
ROW = re.compile(r"^\|\s*`([A-Z]{2}\d{3})`\s*\|\s*(\w+)\s*\|\s*`([^`]+)`\s*\|", re.MULTILINE)


def readme_rules(text: str) -> dict[str, tuple[str, str]]:
    """ID -> (severity, name) of every rule row in the README's tables; a repeated ID fails."""
    rows: dict[str, tuple[str, str]] = {}
    for m in ROW.finditer(text):
        rule_id, severity, name = m.groups()
        assert rule_id not in rows, f"{rule_id} is listed twice in README.md"
        rows[rule_id] = (severity, name)
    return rows


def test_readme_rule_tables_match_registry() -> None:
    load_rules()
    registered = {r.id: (r.severity.value, r.name) for r in RULES.values()}
    listed = readme_rules(README.read_text(encoding="utf-8"))
    missing = sorted(set(registered) - set(listed))
    unknown = sorted(set(listed) - set(registered))
    differ = [
        f"{i}: README {listed[i]} vs registry {registered[i]}"
        for i in sorted(set(listed) & set(registered))
        if listed[i] != registered[i]
    ]
    assert not missing, f"registered but not in the README rule tables: {missing}"
    assert not unknown, f"in the README rule tables but not registered: {unknown}"
    assert not differ, "README rule rows differ from the registry:\n" + "\n".join(differ)


def test_row_parser_reads_the_table_layout() -> None:
    text = (
        "| ID | Severity | Name | What it flags |\n| --- | --- | --- | --- |\n"
        "| `HZ101` | error | `warp-lane-arith-32` | lane arithmetic | 23/27 |\n"
        "| `HB105` | warning | `nvcc-only-flag` | `-Xptxas` |\n"
        "see `HZ102` in prose | not a row\n"
    )
    assert readme_rules(text) == {
        "HZ101": ("error", "warp-lane-arith-32"),
        "HB105": ("warning", "nvcc-only-flag"),
    }
