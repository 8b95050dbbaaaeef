"""What converting (or checking) one file produced: texts, edits, findings and counts.

Its own module, light to import, so a run that takes every result from the per-file cache
never imports the converter.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .edits import Applied, Edit
from .findings import Finding


@dataclass
class FileResult:
    path: str
    original: str
    text: str  # converted text (== original when nothing changed)
    edits: tuple[Edit, ...] = ()
    findings: list[Finding] = field(default_factory=list)
    # "<pass>/<family>" -> count, e.g. "rename/runtime": 12, "launch": 2
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
