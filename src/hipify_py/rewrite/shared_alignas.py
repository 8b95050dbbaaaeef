"""``__shared__ alignas(16) uint8_t smem[N];`` becomes ``alignas(16) __shared__ uint8_t smem[N];``.

nvcc takes an ``alignas`` after ``__shared__``.  In HIP ``__shared__`` is a GNU attribute
(``__attribute__((shared))``), and clang accepts no C++11 attribute after one: "an attribute
list cannot appear here" (CUDA_optimazation's tcgen05 benchmarks, 216 files of round 38;
deepseek-v4-flash's probes, round 42).  At the start of the declaration ``alignas`` appertains
to the variable as it did, and both compilers take it there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.tokens import match
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Token
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "shared-alignas"

# what nvcc takes before ``__shared__ alignas``: `__device__ __shared__` at namespace scope (it
# rejects `static`, `volatile` or `extern` there: "attribute does not apply to any entity")
_SPECIFIERS = frozenset({"__device__"})
_DECLARATION_START = frozenset({";", "{", "}", ")", ":"})


@rewrite_pass("shared-alignas", order=28)
def shared_alignas(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "alignas" not in unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions.get("__shared__", ()):
        if i + 2 >= len(toks) or toks[i + 1].text != "alignas" or toks[i + 2].text != "(":
            continue
        close = match(toks, i + 2)
        start = _declaration_start(toks, i)
        if close is None or start is None or toks[i].in_directive:
            continue
        text = unit.text[toks[i + 1].start : toks[close].end]
        yield Edit(toks[start].start, toks[start].start, text + " ", RULE)
        yield Edit(toks[i].end, toks[close].end, "", RULE)


def _declaration_start(toks: Sequence[Token], i: int) -> int | None:
    """The first token of the declaration whose ``__shared__`` is token ``i`` (None after
    anything but ``_SPECIFIERS`` and a statement's start)."""
    j = i
    while j > 0 and toks[j - 1].text in _SPECIFIERS:
        j -= 1
    before = toks[j - 1] if j else None
    starts = before is None or before.in_directive or before.text in _DECLARATION_START
    return j if starts else None
