"""The README's rule tables follow the registry (issue 9: they drifted from it before).

Adding, renaming or removing a rule touches its module only: run
``HIPIFY_PY_UPDATE_README=1 python -m pytest tests/test_readme_rules.py`` and the README's rows
follow (a new rule gets a row with its summary; extra measured columns start as "–").
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from hipify_py.rules import RULES, RuleInfo, load_rules

README = Path(__file__).resolve().parent.parent / "README.md"
# a rule row: | `HZ101` | error | `warp-lane-arith-32` | what it flags | ...
ROW = re.compile(r"^\|\s*`([A-Z]{2}\d{3})`\s*\|\s*(\w+)\s*\|\s*`([^`]+)`\s*\|(.*)$")


def _row(rule: RuleInfo, columns: int) -> str:
    cells = [f"`{rule.id}`", rule.severity.value, f"`{rule.name}`", rule.summary]
    cells += ["–"] * (columns - len(cells))
    return "| " + " | ".join(cells) + " |"


def follow_registry(text: str, rules: dict[str, RuleInfo]) -> str:
    """``text`` with its rule rows following ``rules``: severity and name from the registry, a
    row of an unregistered ID dropped, and a registered rule without a row added after the rows
    of its ID prefix (``HZ``, ``HP``, ``HB``) in ID order; a second row of one ID is dropped."""
    lines = text.split("\n")
    kept: list[str] = []
    listed: dict[str, int] = {}  # ID -> index in kept
    columns: dict[str, int] = {}  # ID prefix -> cells per row of its table
    for line in lines:
        m = ROW.match(line)
        if m is None:
            kept.append(line)
            continue
        rule_id, _, _, rest = m.groups()
        if rule_id not in rules or rule_id in listed:  # gone, or listed twice
            continue
        rule = rules[rule_id]
        cells = rest.rstrip().rstrip("|").split("|")
        columns[rule_id[:2]] = 3 + len(cells)
        listed[rule_id] = len(kept)
        kept.append(f"| `{rule_id}` | {rule.severity.value} | `{rule.name}` |{rest}")
    for rule_id in sorted(set(rules) - set(listed)):
        prefix = rule_id[:2]
        assert prefix in columns, (
            f"no README rule table lists {prefix} rules: add one for {rule_id}"
        )
        before = [i for r, i in listed.items() if r[:2] == prefix and r < rule_id]
        same = [i for r, i in listed.items() if r[:2] == prefix]
        at = (max(before) if before else min(same) - 1) + 1
        kept.insert(at, _row(rules[rule_id], columns[prefix]))
        listed = {r: i + (i >= at) for r, i in listed.items()}
        listed[rule_id] = at
    return "\n".join(kept)


def test_readme_rule_tables_follow_the_registry() -> None:
    load_rules()
    text = README.read_text(encoding="utf-8")
    expected = follow_registry(text, RULES)
    if os.environ.get("HIPIFY_PY_UPDATE_README") and expected != text:
        README.write_text(expected, encoding="utf-8")
        text = expected
    assert text == expected, (
        "README rule rows differ from the registry; update them with "
        "HIPIFY_PY_UPDATE_README=1 python -m pytest tests/test_readme_rules.py"
    )


def test_following_adds_renames_and_drops_rows() -> None:
    """The update itself: on a small table, a new rule lands in ID order with its summary, a
    changed name follows, and a row of a rule that no longer exists goes."""
    load_rules()
    table = (
        "| ID | Severity | Name | What | Seen |\n| --- | --- | --- | --- | --- |\n"
        "| `HZ101` | error | `old-name` | kept text | 3/4 |\n"
        "| `HZ999` | error | `gone` | removed | – |\n"
        "| `HZ103` | warning | `shuffle-default-width` | kept | 0 found |\n"
        "after\n"
    )
    rules = {r: RULES[r] for r in ("HZ101", "HZ102", "HZ103")}
    out = follow_registry(table, rules).split("\n")
    assert out[2] == "| `HZ101` | error | `warp-lane-arith-32` | kept text | 3/4 |"
    assert out[3] == f"| `HZ102` | error | `shuffle-loop-32` | {RULES['HZ102'].summary} | – |"
    assert out[4].startswith("| `HZ103` | warning |") and out[5] == "after"
    assert not any("HZ999" in line for line in out)
    assert follow_registry("\n".join(out), rules) == "\n".join(out)


def test_readme_lists_the_opt_in_rules() -> None:
    """The README's one line naming the opt-in rules names exactly the registry's."""
    load_rules()
    line = next(x for x in README.read_text(encoding="utf-8").split("\n\n") if "Opt-in: " in x)
    listed = set(re.findall(r"\b[A-Z]{2}\d{3}\b", line.split("Opt-in: ")[1].split(".")[0]))
    assert listed == {r.id for r in RULES.values() if r.opt_in}
