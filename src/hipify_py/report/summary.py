"""The end-of-run summary of a conversion: counts a person reads and a machine parses.

Built incrementally from outcomes so a run over thousands of files keeps only counters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from ..findings import Finding, Severity
from ..result import FileStatus, Outcome

if TYPE_CHECKING:
    from rich.table import Table

NOTABLE_LIMIT = 50


@dataclass
class Summary:
    scanned: int = 0
    converted: int = 0
    unchanged: int = 0
    copied: int = 0
    failed: int = 0
    by_family: Counter = field(default_factory=Counter)
    by_origin: Counter = field(default_factory=Counter)  # where the renames' mappings came from
    # every edit tag's count (``result.conversions_of``): named by the passes' ``Tally``s
    by_tag: Counter = field(default_factory=Counter)
    unsupported: Counter = field(default_factory=Counter)  # API name -> uses
    findings: Counter = field(default_factory=Counter)  # rule ID -> open findings
    fixed: Counter = field(default_factory=Counter)  # rule ID -> findings the output fixes
    errors: int = 0  # findings of severity error
    degraded: list[tuple[str, str]] = field(default_factory=list)  # (path, first problem)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    written: list[str] = field(default_factory=list)
    # the first findings at warning level or above, one line each (the rest are only counted)
    notable: list[tuple[str, int, int, str, str, str]] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        """Count one file's outcome: its status, then its edits and findings."""
        status = outcome.status
        if status is FileStatus.COPIED:
            self.copied += 1
            return
        self.scanned += 1
        if status is FileStatus.FAILED:
            self.failed += 1
            self.failures.append((str(outcome.candidate.path), outcome.message))
        elif status is FileStatus.CONVERTED:
            self.converted += 1
        else:
            self.unchanged += 1
        result = outcome.result
        if result is None:
            return
        self._count_conversions(result.conversions)
        for f in result.findings:
            self._count_finding(f)
        if result.parse_problems:
            self.degraded.append((result.path, result.parse_problems[0]))

    def _count_conversions(self, conversions: Mapping[str, int]) -> None:
        """Edit tags; a rename's (``rename/FAMILY@ORIGIN``) also by API family and by where
        its mapping came from."""
        for rule, count in conversions.items():
            self.by_tag[rule] += count
            if rule.startswith("rename/"):
                family, _, origin = rule.split("/", 1)[1].partition("@")
                self.by_family[family] += count
                self.by_origin[origin or "AMD table"] += count

    def _count_finding(self, f: Finding) -> None:
        """A fixed finding counts as fixed only; an open one by rule, severity and, for an
        unsupported API, the API."""
        if f.fixed:
            self.fixed[f.rule] += 1
            return
        self.findings[f.rule] += 1
        severity = f.severity
        self.errors += severity is Severity.ERROR
        if severity.rank >= 1:
            self._note((f.path, f.line, f.column, severity.value, f.rule, f.message))
        api = f.extra.get("api") if f.extra else None
        if api and f.rule in ("HZ300", "HP001"):
            self.unsupported[api] += 1

    def _note(self, item: tuple[str, int, int, str, str, str]) -> None:
        """Keep the first NOTABLE_LIMIT findings in path order, whatever order files finish in
        (so the output is the same for any -j), in bounded memory."""
        self.notable.append(item)
        if len(self.notable) >= 2 * NOTABLE_LIMIT:
            self.notable = sorted(self.notable)[:NOTABLE_LIMIT]

    def finish(self) -> None:
        """Put what was collected as files finished into a stable order."""
        self.notable = sorted(self.notable)[:NOTABLE_LIMIT]
        self.failures.sort()
        self.degraded.sort()

    def tallied(self) -> list[tuple[str, str, int]]:
        """(key, label, count) of every count the passes declare, then one per edit tag no
        pass declares (a new pass is counted before anyone names its edits)."""
        from ..rules import tallies  # the registry only to name counts

        declared = tallies()
        rows = [
            (t.key, t.label, sum(n for tag, n in self.by_tag.items() if t.matches(tag)))
            for t in declared
        ]
        rows += [
            (tag, f"edits tagged {tag}", n)
            for tag, n in sorted(self.by_tag.items())
            if not any(t.matches(tag) for t in declared)
        ]
        return rows

    def to_json(self) -> dict:
        return {
            "files": {
                "scanned": self.scanned,
                "converted": self.converted,
                "unchanged": self.unchanged,
                "failed": self.failed,
                "copied": self.copied,
            },
            "conversions_by_family": dict(_ranked(self.by_family)),
            "conversions_by_origin": dict(_ranked(self.by_origin)),
            "conversions": {key: count for key, _, count in self.tallied()},
            "unsupported_apis": dict(_ranked(self.unsupported)),
            "findings_by_rule": dict(sorted(self.findings.items())),
            "fixed_by_rule": dict(sorted(self.fixed.items())),
            "parse_degraded": [{"path": p, "problem": m} for p, m in self.degraded],
            "failures": [{"path": p, "message": m} for p, m in self.failures],
        }

    def render_findings(self, console: Console) -> None:
        """The first findings at warning level or above, one ``path:line:col: ID message`` line
        each (also with --quiet: a --strict failure must say why)."""
        for path, line, col, sev, rule, message in self.notable:
            # user text goes into Text, never through markup: `k[i].cu:100:` prints as written
            text = Text(f"{path}:{line}:{col}: ")
            text.append(rule, style="red" if sev == "error" else "yellow")
            text.append(" " + " ".join(message.splitlines()))
            console.print(text, soft_wrap=True)
        hidden = sum(c for r, c in self.findings.items()) - len(self.notable)
        if self.notable and hidden > 0:
            console.print(
                f"... {hidden} more findings: run `hipify-py check` for the full "
                "report, `hipify-py explain ID` for a rule's page",
                highlight=False,
            )

    def render_failures(self, console: Console) -> None:
        """What failed: shown even with --quiet, because it needs the user's attention."""
        for path, message in self.failures:
            line = Text("not converted", style="red")
            line.append(f" {path}: {message}")
            console.print(line, soft_wrap=True)

    def render(self, console: Console) -> None:
        # the tables and the rule registry only here: a --quiet run (a CI gate) prints findings
        # without importing them
        from rich.table import Table

        from ..rules import load_rules

        load_rules()  # rule names for the table (in a parallel run, rules ran in workers)
        files = Table(title="hipify-py summary", show_header=True, header_style="bold")
        files.add_column("files", style="bold")
        files.add_column("count", justify="right")
        for label, value in (
            ("scanned", self.scanned),
            ("converted", self.converted),
            ("unchanged", self.unchanged),
            ("failed", self.failed),
            ("copied (not CUDA)", self.copied),
            *((label, count) for _, label, count in self.tallied() if count),
        ):
            files.add_row(label, str(value))
        console.print(files)
        if self.by_family:
            fam = Table(title="Conversions by API family", header_style="bold")
            fam.add_column("family")
            fam.add_column("renames", justify="right")
            for name, count in _ranked(self.by_family):
                fam.add_row(Text(name), str(count))
            console.print(fam)
            origins = ", ".join(f"{n} {c}" for n, c in _ranked(self.by_origin))
            console.print(f"mappings used, by origin: {origins}", highlight=False)
        if self.unsupported:
            uns = Table(title="Unsupported APIs (left as they are)", header_style="bold red")
            uns.add_column("API")
            uns.add_column("uses", justify="right")
            for name, count in _ranked(self.unsupported)[:30]:
                uns.add_row(Text(name), str(count))
            if len(self.unsupported) > 30:
                uns.add_row(f"... {len(self.unsupported) - 30} more", "")
            console.print(uns)
        for title, style, counts in (
            ("Findings for review", "bold yellow", self.findings),
            ("Fixed in the output (not open)", "bold green", self.fixed),
        ):
            if counts:
                console.print(_rule_counts(title, style, counts))
        self.render_findings(console)
        for path, problem in self.degraded[:10]:
            text = Text("parse problem", style="yellow")
            text.append(f" {path}: {problem} (translated from tokens)")
            console.print(text, soft_wrap=True)
        self.render_failures(console)


def _rule_counts(title: str, style: str, counts: Counter) -> Table:
    """Findings by rule: ID, name and count, one row a rule."""
    from rich.table import Table  # see Summary.render

    from ..rules import RULES

    table = Table(title=title, header_style=style)
    table.add_column("rule")
    table.add_column("name")
    table.add_column("count", justify="right")
    for rule, count in sorted(counts.items()):
        info = RULES.get(rule)
        table.add_row(rule, info.name if info else "", str(count))
    return table


def _ranked(counts: Counter) -> list[tuple[str, int]]:
    """Most frequent first, ties by name: the order files come back from the workers must not
    change a report (``Counter.most_common`` keeps insertion order among equal counts)."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
