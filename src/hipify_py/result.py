"""What converting (or checking) one file produced: texts, edits, findings and counts.

Its own module, light to import, so a run that takes every result from the per-file cache
never imports the converter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .edits import Applied, Edit
from .findings import Finding
from .rules import TALLIES


@dataclass
class FileResult:
    path: str
    original: str
    text: str  # converted text (== original when nothing changed)
    edits: Sequence[Edit] = ()
    findings: list[Finding] = field(default_factory=list)
    # what the edits did, counted as the summary reports it (``conversions_of``)
    conversions: Counter = field(default_factory=Counter)
    parse_problems: list[str] = field(default_factory=list)
    # rule passes that raised: their findings are missing, so a check must not pass
    rule_errors: list[str] = field(default_factory=list)
    applied: Applied | None = None
    error: str | None = None  # set when the file could not be converted at all

    @property
    def changed(self) -> bool:
        return self.text != self.original

    @property
    def printable_original(self) -> str:
        """The input with bytes that were not UTF-8 shown as U+FFFD, for terminals and reports."""
        return self.original.encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    @property
    def data(self) -> bytes:
        """The converted text as bytes: what was not UTF-8 in the input comes back as it was."""
        return self.text.encode("utf-8", "surrogateescape")


def conversions_of(edits: Iterable[Edit]) -> Counter:
    """What a file's edits did, by tag (``rename/<family>@<origin>``, ``header``, ``launch``,
    ``build/...``, any tag a pass uses), each edit counted once unless its pass's ``Tally``
    says which edits count (a launch is counted at its ``hipLaunchKernelGGL(``).  Fix edits
    (``fix:...``) are the hazard rules' and are counted with their findings.  Kept with a
    cached result, so a run served from the cache can report them without its edits."""
    counts: Counter = Counter()
    for edit in edits:
        rule = edit.rule
        if rule.startswith("fix:"):
            continue
        tally = TALLIES.get(rule)
        counts[rule] += 1 if tally is None or tally.counts is None else tally.counts(edit)
    return +counts  # without the zero counts
