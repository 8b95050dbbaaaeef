"""Give a vector type's brace initialiser every component: `int4{a, b, c}` -> `int4{a, b, c, 0}`.

CUDA's vector types are aggregates, so a brace list shorter than the type sets the rest to zero;
HIP's (``HIP_vector_type`` in amd_hip_vector_types.h of ROCm 7.2.4) have constructors taking one
value or exactly one per component, so the short list is "no matching constructor" (a round-10
project's `int4{x, y, z}`).  The missing components are written out as the zero CUDA gives them:
the same value under nvcc, a list HIP accepts.  `{}` (zero everywhere in both), `{v}` (which may
copy another vector) and lists with a trailing comma or designators are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import split
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "vector-brace-init"

_BASES = "char uchar short ushort int uint long ulong longlong ulonglong float double".split()
# vector type name -> its number of components
RANKS: dict[str, int] = {f"{b}{r}": r for b in _BASES for r in (2, 3, 4)}


@rewrite_pass("vector-brace-init", order=50)
def vector_brace_init(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for name in RANKS.keys() & unit.identifiers:
        for i in unit.identifier_positions[name]:
            brace = _brace_after(unit, i)
            close = unit.lexed.brackets.get(brace) if brace is not None else None
            if brace is None or close is None:
                continue
            args = [(a, b) for a, b in split(toks, brace + 1, close) if a < b]
            missing = RANKS[name] - len(args)
            if len(args) < 2 or missing <= 0 or toks[close - 1].text == ",":
                continue  # `{v}` may copy another vector: its type is not known here
            if any(toks[a].text == "." for a, _ in args):
                continue  # designators: not a plain list
            yield Edit(toks[close].start, toks[close].start, ", 0" * missing, RULE)


def _brace_after(unit: Unit, i: int) -> int | None:
    """The `{` that initialises a value of the type named at token ``i``: `int4{...}`,
    `int4 v{...}`, `int4 v = {...}`; None for anything else (an array, a parameter)."""
    toks = unit.tokens
    j = i + 1
    if j < len(toks) and toks[j].kind is Kind.IDENT:
        j += 1
        if j < len(toks) and toks[j].text == "=":
            j += 1
    return j if j < len(toks) and toks[j].text == "{" else None
