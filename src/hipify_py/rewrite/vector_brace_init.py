"""Give a vector type's brace initialiser every component: `int4{a, b, c}` -> `int4{a, b, c, 0}`.

CUDA's vector types are aggregates, so a brace list shorter than the type sets the rest to zero;
HIP's (``HIP_vector_type`` in amd_hip_vector_types.h of ROCm 7.2.4) have constructors taking one
value or exactly one per component, so the short list is "no matching constructor" (a round-10
project's `int4{x, y, z}`).  The missing components are written out as the zero CUDA gives them:
the same value under nvcc, a list HIP accepts; also in a constructor's member initialiser
(`tiled_shape_{x, y, n}`), an assignment (`tile_offset_ = {x, y, z};`) to a variable or
member the file declares (`int4 tile_offset_;`), and a `return {x, y};` of a function that
returns a vector type (``analysis/vector_braces``).  An array's `= {0}` becomes `= {}` (CUDA
zeroes every element; HIP takes no scalar for a vector).  `{}` (zero everywhere in both), `{v}`
(which may copy another vector) and lists with a trailing comma or designators are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..analysis.vector_braces import RANKS, missing_components, returned_braces
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "vector-brace-init"


@rewrite_pass("vector-brace-init", order=50)
def vector_brace_init(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for brace, rank in dict(_initialisers(unit)).items():  # each brace once
        missing = missing_components(unit, brace, rank)
        if missing:
            close = unit.lexed.brackets[brace]
            yield Edit(toks[close].start, toks[close].start, ", 0" * missing, RULE)
    for brace in _zeroed_arrays(unit):
        yield Edit(toks[brace].end, toks[brace + 2].start, "", RULE)


_ZERO = re.compile(r"0(?:\.0*)?[fF]?|0x0+|\.0+[fF]?")


def _zeroed_arrays(unit: Unit) -> Iterator[int]:
    """The `{` of each `float4 tile[N] = {0};`: CUDA brace-elides the zero into the first
    vector's `x` and zeroes the rest, HIP's vector types take no scalar there ("no viable
    conversion from 'int' to 'float4'": BoldWinds's sgemm, compile round 52); `{}` zeroes
    every element in both."""
    toks = unit.tokens
    for name in RANKS.keys() & unit.identifiers:
        for i in unit.identifier_positions[name]:
            j = i + 2
            if j >= len(toks) or toks[i + 1].kind is not Kind.IDENT or toks[j].text != "[":
                continue
            close = unit.lexed.brackets.get(j)
            if close is None or close + 5 >= len(toks) or toks[close + 1].text != "=":
                continue
            texts = [t.text for t in toks[close + 2 : close + 5]]
            if texts[0] == "{" and _ZERO.fullmatch(texts[1]) and texts[2] == "}":
                yield close + 2


def _initialisers(unit: Unit) -> Iterator[tuple[int, int]]:
    """The `{` of each brace initialiser of a vector type, with the type's rank: `int4{...}`,
    `int4 v{...}`, `int4 v = {...}`, `return {...}` in a function returning one
    (``returned_braces``), and for a variable or member the file declares as one
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
    yield from returned_braces(unit)


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
