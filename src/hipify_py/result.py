"""What converting (or checking) one file produced: texts, edits, findings and counts.

Its own module, light to import, so a run that takes every result from the per-file cache
never imports the converter.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .edits import Applied, Edit
from .findings import Finding
from .rules import TALLIES

if TYPE_CHECKING:
    from .discover import Candidate


class FileStatus(str, enum.Enum):
    """What became of one file (a ``str``: the cache records it as its value)."""

    CONVERTED = "converted"  # the output differs from the input
    UNCHANGED = "unchanged"  # a CUDA or build file whose output is the input
    COPIED = "copied"  # not CUDA: copied (or, checked, passed over) as it is
    FAILED = "failed"  # not read or not converted: never reported clean
    CACHED = "cached"  # its bytes are those the per-file cache holds a record of


class RunMode(str, enum.Enum):
    """How much of the pipeline a run asks for."""

    CONVERT = "convert"  # rewrite passes and hazard rules
    REWRITE = "rewrite"  # rewrite passes only (--no-hazards)
    CHECK = "check"  # hazard rules only: nothing is written


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


@dataclass
class Outcome:
    """One file's outcome, as the runner yields it and the cache records it."""

    candidate: Candidate
    status: FileStatus
    result: FileResult | None = None
    message: str = ""
    digest: str = ""  # sha256 of the bytes the worker read (--in-place rewrites only those)
    kind: str | None = None  # the build system of a build file (None: a CUDA source)
    # from the per-file cache (``cache.py``): ``result`` holds no texts until ``load_texts``
    cached: bool = False
    out_digest: str = ""  # with ``cached``: sha256 of the output the record says it makes
    out_stamp: list[int] | None = None  # with ``cached``: that output's ``file_stamp`` then
