"""One diagnosis for a root cause that a whole file shares.

Managed memory or the wmma API is one decision per file (keep it, or port it), not one per
call: a finding per use buries the other rules' findings and makes users switch a rule off.
Such rules report the first use the HIP build compiles and list the other uses as dependent
lines (SARIF related locations, a note in text output)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..frontend.conditions import inactive_in
from ..frontend.unit import Unit
from .warp_model import Related, related


@dataclass(frozen=True)
class Diagnosis:
    """Where the one finding goes (``first``), the other uses (``others``, token indexes)
    and their lines as the finding's dependent lines (``related``)."""

    first: int
    others: list[int]
    related: Related


def first_of_file(unit: Unit, indexes: Sequence[int]) -> Diagnosis | None:
    """The first of ``indexes`` (token indexes in file order) outside the branches the HIP
    build skips, with the other such uses; None when all are skipped (the policy would drop
    findings there, and with them the whole diagnosis)."""
    inactive = inactive_in(unit)
    active = [i for i in indexes if unit.tokens[i].start not in inactive]
    if not active:
        return None
    return Diagnosis(active[0], active[1:], related(unit, active[1:], active[0]))
