"""CUDA 12's ``cusparseSpSM_solve`` without a buffer gets the one its analysis step was given.

CUDA 12 dropped ``cusparseSpSM_solve``'s ``externalBuffer`` (10 arguments: the analysis keeps
what it needs in the descriptor); hipSPARSE's ``hipsparseSpSM_solve`` (ROCm 7.2.4) still takes
it as an 11th argument, the temporary buffer that ``hipsparseSpSM_analysis`` was given for the
same descriptor.  When the function calling the solve also calls ``cusparseSpSM_analysis``
with the same descriptor (the last-but-one argument, spelled the same), that call's buffer is
appended; otherwise HZ345 reports the call (``hazards/hz345_spsm_solve_buffer.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import function_at
from ..context import Context
from ..edits import Edit
from ..frontend.syntax import Arg, call_args
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "spsm-buffer"
SOLVE = "cusparseSpSM_solve"
ANALYSIS = "cusparseSpSM_analysis"
CUDA12_SOLVE_ARGS = 10  # CUDA 11's and hipSPARSE's take 11, the buffer last
ANALYSIS_ARGS = 11


def _text(unit: Unit, arg: Arg) -> str:
    """The argument's text without whitespace (two spellings of one descriptor compare equal)."""
    return "".join(unit.text[slice(*arg.span(unit.tokens))].split())


def buffer_of(unit: Unit, i: int) -> str | None:
    """For a 10-argument ``cusparseSpSM_solve`` call at token ``i``: the buffer argument of the
    ``cusparseSpSM_analysis`` of the same descriptor in the same function (None when there is
    none, or several different ones)."""
    toks = unit.tokens
    args = call_args(toks, i)
    if args is None or len(args) != CUDA12_SOLVE_ARGS:
        return None
    descriptor = _text(unit, args[-1])
    scope = function_at(unit, i)
    found: set[str] = set()
    for j in unit.identifier_positions.get(ANALYSIS, ()):
        if function_at(unit, j) != scope:
            continue
        analysis = call_args(toks, j)
        if analysis is not None and len(analysis) == ANALYSIS_ARGS:
            if _text(unit, analysis[-2]) == descriptor:
                start, end = analysis[-1].span(toks)
                found.add(unit.text[start:end])
    return found.pop() if len(found) == 1 else None


def solve_calls(unit: Unit) -> Iterator[int]:
    """Token indexes of CUDA 12's 10-argument ``cusparseSpSM_solve`` calls."""
    for i in unit.identifier_positions.get(SOLVE, ()):
        args = call_args(unit.tokens, i)
        if args is not None and len(args) == CUDA12_SOLVE_ARGS:
            yield i


@rewrite_pass("spsm-buffer", order=27)
def spsm_buffer(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if SOLVE not in unit.identifiers:
        return
    for i in solve_calls(unit):
        buffer = buffer_of(unit, i)
        if buffer is not None:
            args = call_args(unit.tokens, i)
            assert args is not None
            end = args[-1].span(unit.tokens)[1]
            yield Edit(end, end, f", {buffer}", RULE)
