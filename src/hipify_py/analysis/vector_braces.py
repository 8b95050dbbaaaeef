"""Brace lists of CUDA vector types that give fewer values than the type has components.

CUDA's vector types are aggregates, so `int4{x, y, z}` sets `w` to zero; HIP's
(``HIP_vector_type`` in amd_hip_vector_types.h of ROCm 7.2.4) have constructors taking one
value or exactly one per component, so the short list is "no matching constructor".  This
module finds such lists where the type is known from the code around them: a declaration or
cast (``rewrite/vector_brace_init`` collects those), and a `return {...};` in a function or
operator declared to return a vector type (CudaTextureGen's `uint3 operator-(const uint3 &a)
{ return {-a.x, -a.y}; }`, compile round 38).  ``rewrite/vector_brace_init`` pads what is
written out; HZ331 reports what only a macro's expansion holds."""

from __future__ import annotations

from collections.abc import Iterator

from ..frontend.unit import Unit
from .functions import functions
from .tokens import split
from .vector_operators import definitions

_BASES = "char uchar short ushort int uint long ulong longlong ulonglong float double".split()
# vector type name -> its number of components
RANKS: dict[str, int] = {f"{b}{r}": r for b in _BASES for r in (2, 3, 4)}


def missing_components(unit: Unit, brace: int, rank: int) -> int:
    """How many components the brace list opening at token ``brace`` leaves out of a vector of
    ``rank`` components (0 where it gives them all, or where the list is not a plain list of
    two values or more: `{v}` may copy another vector, and a trailing comma or designators are
    not read)."""
    toks = unit.tokens
    close = unit.lexed.brackets.get(brace)
    if close is None or toks[close - 1].text == ",":
        return 0
    args = [(a, b) for a, b in split(toks, brace + 1, close) if a < b]
    if len(args) < 2 or any(toks[a].text == "." for a, _ in args):
        return 0
    return max(rank - len(args), 0)


def returned_braces(unit: Unit) -> Iterator[tuple[int, int]]:
    """(the `{`, the rank) of each `return {...}` in a function or operator whose declared
    return type is a vector type (by value: `uint3 operator-(...)`, not `float3 &`)."""
    toks = unit.tokens
    bodies = [(f.name_index - 1, f.open, f.close) for f in functions(unit)]
    if "operator" in unit.identifiers:
        bodies += [(d.at - 1, d.body, d.end) for d in definitions(unit)]
    for typed, open_, close in bodies:
        rank = RANKS.get(toks[typed].text) if typed >= 0 else None
        if rank is None:
            continue
        for k in range(open_ + 1, close - 1):
            if toks[k].text == "return" and toks[k + 1].text == "{":
                yield k + 1, rank
