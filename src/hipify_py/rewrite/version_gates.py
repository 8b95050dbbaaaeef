"""CUDA toolkit version macros become the numbers of a fixed CUDA release, never HIP versions.

``#if CUDART_VERSION >= 11080`` must not become ``#if HIP_VERSION >= 11080``: HIP_VERSION is
about 70,200,000 on ROCm 7.2, so every such test would be true.  Leaving the macro is no better:
HIP does not define it, so the test silently reads 0 and takes the oldest branch.

hipify-py writes the value the macro has on CUDA 12.0 (``frontend/cuda_release``) in its
place, with the name in a comment (``#if 12000 /* CUDART_VERSION */ >= 11080``), and
``defined(CUDA_VERSION)`` becomes ``1``.  The converted code takes the branch a CUDA 12.0
build takes: the HIP 7 API covers what CUDA 11 and 12.0 offer (bf16 and fp8 types, memory
pools, graphs), while the branches for later releases use what HIP lacks or spells
differently (Hopper/Blackwell clusters, TMA, fp4, the CUDA 13 signatures).  The summary counts
the gates; the diff shows each with the condition it became (HZ503 reported them until judged
readers found none of 11 that needed a user's action).  A macro the file defines itself is
left alone: the project provides its value.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.cuda_release import REFERENCE_CUDA, VERSION_MACROS
from ..frontend.directives import defined_names, defined_span
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

# HZ300 and the identifiers pass read the macros and the release from here
__all__ = ["REFERENCE_CUDA", "VERSION_MACROS", "gate_edits"]

RULE = "version-gate"


def gate_edits(unit: Unit) -> list[Edit]:
    """The edits for every use of a version macro."""
    hits = VERSION_MACROS.keys() & unit.identifiers
    if not hits:
        return []
    toks = unit.tokens
    positions = unit.identifier_positions
    edits: list[Edit] = []
    for name in sorted(hits - _defined_here(unit)):
        for i in positions[name]:
            tok = toks[i]
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and prev.text in (".", "->", "::"):
                continue
            if tok.in_directive:
                word = unit.directive_word(i)
                if word in ("include", "include_next"):
                    continue  # part of a header name (the headers pass owns that text)
                if word in ("ifdef", "ifndef") and prev is not None and prev.text == word:
                    value = "1" if word == "ifdef" else "0"
                    edits.append(Edit(prev.start, tok.end, f"if {value} /* {word} {name} */", RULE))
                    continue
                defined = defined_span(toks, i)
                if defined is not None:
                    start, end = defined
                    edits.append(Edit(start, end, f"1 /* defined({name}) */", RULE))
                    continue
            edits.append(Edit(tok.start, tok.end, f"{VERSION_MACROS[name]} /* {name} */", RULE))
    return edits


def _defined_here(unit: Unit) -> set[str]:
    """Version macros the file defines itself: the project provides them, so they stay."""
    return defined_names(unit.tokens, unit.directives) & VERSION_MACROS.keys()


@rewrite_pass(
    "version-gates",
    order=8,
    tallies=(Tally(RULE, "version_tests_rewritten", "CUDA version tests given a value"),),
)
def version_gates(unit: Unit, ctx: Context) -> Iterator[Edit]:
    yield from gate_edits(unit)
