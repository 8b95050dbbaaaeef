"""Leave element-wise operators on CUDA vector types out of the AMD build.

A ``helper_math.h``-style header defines ``float2 operator+(float2, float2)`` and a hundred
more; HIP's vector types define the same operators, so on AMD every such call is ambiguous (or
every compound assignment is).  Where ``analysis.vector_operators`` proves a definition is the
element-wise operator HIP already has, the definition goes under
``#if !defined(__HIP_PLATFORM_AMD__)``: HIP's operator computes the same, and an NVIDIA build
(HIP on NVIDIA, ``--portable``) keeps the user's.  Consecutive definitions share one guard.
Anything else (a dot or cross product, mixed types) stays, and HZ330 reports it.  So for the
invocation of a macro that defines such operators (``analysis.vector_operator_macros``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.vector_operator_macros import invocations
from ..analysis.vector_operators import declaration_start, definitions, is_elementwise
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import inactive_in
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "vector-operator-guard"
GUARD = "#if !defined(__HIP_PLATFORM_AMD__)  // HIP's vector types define these operators"


@rewrite_pass(
    RULE,
    order=55,  # after shims (50): its guard opens below the shims inserted at the same point
    tallies=(
        Tally(
            RULE,
            "vector_operators_guarded",
            "vector-operator groups left to HIP",
            lambda e: e.text.startswith("#if"),
        ),
    ),
)
def vector_operator_guard(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "operator" not in unit.identifiers:
        return
    toks = unit.tokens
    inactive = inactive_in(unit)
    spans = [
        (declaration_start(unit, d), d.end) for d in definitions(unit) if is_elementwise(unit, d)
    ]
    spans += [
        (m.first, m.last)
        for m in invocations(unit)
        if all(is_elementwise(m.expansion, d) for d in m.operators)
    ]
    runs: list[list[int]] = []  # [first token, last token] of consecutive guarded definitions
    for first, last in sorted(spans):
        if toks[first].start in inactive or not _own_lines(unit, first, last):
            continue
        if runs and runs[-1][1] == first - 1:
            runs[-1][1] = last
        else:
            runs.append([first, last])
    nl = unit.newline
    for first, last in runs:
        yield Edit(
            unit.lines.line_start(toks[first].start),
            unit.lines.line_start(toks[first].start),
            GUARD + nl,
            RULE,
        )
        after = unit.text.find("\n", toks[last].end)
        if after < 0:  # the definition ends the file without a newline
            yield Edit(len(unit.text), len(unit.text), nl + "#endif" + nl, RULE)
        else:
            yield Edit(after + 1, after + 1, "#endif" + nl, RULE)


def _own_lines(unit: Unit, first: int, last: int) -> bool:
    """The definition starts and ends its lines (only blanks or a comment beside it), so a
    guard around whole lines takes nothing else."""
    text, toks = unit.text, unit.tokens
    before = text[unit.lines.line_start(toks[first].start) : toks[first].start]
    after_end = text.find("\n", toks[last].end)
    after = text[toks[last].end : len(text) if after_end < 0 else after_end]
    return not before.strip() and (not after.strip() or after.strip().startswith("//"))
