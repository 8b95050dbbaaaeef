"""What a rule reports: a finding at a place in a file, maybe with a fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .edits import Edit


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANKS[self]


_RANKS = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True, slots=True)
class Fix:
    """Edits that resolve a finding; ``safe`` fixes apply with --fix, others need --unsafe-fixes."""

    edits: tuple[Edit, ...]
    description: str
    safe: bool = True


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # stable rule ID, e.g. "HZ101"
    severity: Severity
    start: int  # offset into the text the rule looked at
    end: int
    message: str
    fix: Fix | None = None
    # filled in by the pipeline once the finding leaves the pure core
    path: str = ""
    line: int = 0
    column: int = 0
    # the output already holds the fix (a default conversion, or --fix): counted apart
    fixed: bool = False
    extra: dict = field(default_factory=dict, compare=False, hash=False)
