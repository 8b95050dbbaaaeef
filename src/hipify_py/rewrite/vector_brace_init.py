"""Give a vector type's brace initialiser every component: `int4{a, b, c}` -> `int4{a, b, c, 0}`.

CUDA's vector types are aggregates, so a brace list shorter than the type sets the rest to zero;
HIP's (``HIP_vector_type`` in amd_hip_vector_types.h of ROCm 7.2.4) have constructors taking one
value or exactly one per component, so the short list is "no matching constructor" (a round-10
project's `int4{x, y, z}`).  The missing components are written out as the zero CUDA gives them:
the same value under nvcc, a list HIP accepts; also in a constructor's member initialiser
(`tiled_shape_{x, y, n}`) and an assignment (`tile_offset_ = {x, y, z};`) to a variable or
member the file declares (`int4 tile_offset_;`).  `{}` (zero everywhere in both), `{v}` (which
may copy another vector) and lists with a trailing comma or designators are left alone.
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
    for brace, rank in dict(_initialisers(unit)).items():  # each brace once
        close = unit.lexed.brackets.get(brace)
        if close is None:
            continue
        args = [(a, b) for a, b in split(toks, brace + 1, close) if a < b]
        missing = rank - len(args)
        if len(args) < 2 or missing <= 0 or toks[close - 1].text == ",":
            continue  # `{v}` may copy another vector: its type is not known here
        if any(toks[a].text == "." for a, _ in args):
            continue  # designators: not a plain list
        yield Edit(toks[close].start, toks[close].start, ", 0" * missing, RULE)


def _initialisers(unit: Unit) -> Iterator[tuple[int, int]]:
    """The `{` of each brace initialiser of a vector type, with the type's rank: `int4{...}`,
    `int4 v{...}`, `int4 v = {...}`, and for a variable or member the file declares as one
    (`int4 tiled_shape_;`), its constructor initialiser `tiled_shape_{x, y, n}` and its
    assignment `tiled_shape_ = {x, y, n};` (turbomind's cta_map.h)."""
    toks = unit.tokens
    declared: dict[str, int] = {}  # `int4 name;`: name -> rank
    for name in RANKS.keys() & unit.identifiers:
        for i in unit.identifier_positions[name]:
            j = i + 1
            if j < len(toks) and toks[j].kind is Kind.IDENT:
                if j + 1 < len(toks) and toks[j + 1].text in (";", ","):
                    declared[toks[j].text] = RANKS[name]
                j += 1
                if j < len(toks) and toks[j].text == "=":
                    j += 1
            if j < len(toks) and toks[j].text == "{":
                yield j, RANKS[name]
    for variable, rank in declared.items():
        yield from ((brace, rank) for brace in _braces_given_to(unit, variable))


def _braces_given_to(unit: Unit, name: str) -> Iterator[int]:
    """The `{` of `name{...}` in a constructor's member initialisers and of `name = {...};`."""
    toks = unit.tokens
    for k in unit.identifier_positions.get(name, ()):
        if not 0 < k < len(toks) - 2:
            continue
        if toks[k + 1].text == "{" and toks[k - 1].text in (":", ","):
            yield k + 1
        elif toks[k + 1].text == "=" and toks[k + 2].text == "{":
            yield k + 2
