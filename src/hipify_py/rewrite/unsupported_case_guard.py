"""Leave ``case`` groups labelled by CUDA enum values HIP lacks out of the AMD build.

``analysis.unsupported_cases`` finds them (an error-string switch over a library's status
codes is the common one); each goes under ``#if !defined(__HIP_PLATFORM_AMD__)``: no HIP call
returns a value HIP has no enumerator for, and an NVIDIA build keeps the case.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.unsupported_cases import unsupported_case_groups
from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "unsupported-case-guard"
GUARD = "#if !defined(__HIP_PLATFORM_AMD__)  // no HIP counterpart for these values"


@rewrite_pass(
    RULE,
    order=30,
    tallies=(
        Tally(
            RULE,
            "unsupported_cases_guarded",
            "case groups without HIP values left out",
            lambda e: e.text.startswith("#if"),
        ),
    ),
)
def unsupported_case_guard(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks, nl = unit.tokens, unit.newline
    for group in unsupported_case_groups(unit, ctx):
        start = unit.lines.line_start(toks[group.first].start)
        end = unit.lines.line_start(toks[group.end].start)
        yield Edit(start, start, GUARD + nl, RULE)
        yield Edit(end, end, "#endif" + nl, RULE)
