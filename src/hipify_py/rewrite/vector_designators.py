"""A designated list that initialises a CUDA vector type loses its designators:
`.coordinates{.x = a, .y = b, .z = c}` -> `.coordinates{a, b, c}`.

CUDA's vector types are aggregates, so C++20's designated initialisers take them; HIP's
(``HIP_vector_type`` of ROCm 7.2.4) have constructors, and clang rejects the list
("initialization of non-aggregate type 'float3' with a designated initializer list", CUDA_3D's
`gca::point_t init{.coordinates{.x = FLT_MAX, .y = FLT_MAX, .z = FLT_MAX}}`, compile round 45:
3 silent TUs).  Written only where the list names every component in order (`.x`, `.y`, ...
up to the type's rank), so the positional list means the same, and where the type is known:
written before the list (`float3 v{...}`, `float3 v = {...}`, `float3{...}`), or the list
initialises a member or variable the tree declares with that vector type
(``ProjectIndex.vector_members``, read from every file: the struct is often in a header).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..analysis.tokens import split
from ..analysis.vector_braces import RANKS
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..project_declarations import vector_members
from ..rules import rewrite_pass

RULE = "vector-designators"
_COMPONENTS = ("x", "y", "z", "w")
_DESIGNATOR = re.compile(r"[{,]\s*\.\s*x\s*=")  # a list's first designator, `{.x =`


@rewrite_pass(RULE, order=50)
def vector_designators(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "x" not in unit.identifiers or _DESIGNATOR.search(unit.text) is None:
        return
    toks = unit.tokens
    members: dict[str, set[int]] | None = None
    for brace, close in unit.lexed.brackets.items():
        if toks[brace].text != "{" or brace + 3 >= close or toks[brace + 1].text != ".":
            continue
        args = [(a, b) for a, b in split(toks, brace + 1, close) if a < b]
        if not 2 <= len(args) <= 4 or not all(
            b - a >= 4
            and toks[a].text == "."
            and toks[a + 1].text == _COMPONENTS[n]
            and toks[a + 2].text == "="
            for n, (a, b) in enumerate(args)
        ):
            continue
        if members is None:
            members = _ranks(ctx.project.vector_members | vector_members(unit.text.encode()))
        if len(args) not in _ranks_before(unit, brace, members):
            continue
        for a, _ in args:
            yield Edit(toks[a].start, toks[a + 3].start, "", RULE)


def _ranks(pairs: frozenset[tuple[str, int]] | set[tuple[str, int]]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for name, rank in pairs:
        out.setdefault(name, set()).add(rank)
    return out


def _ranks_before(unit: Unit, brace: int, members: dict[str, set[int]]) -> set[int]:
    """The ranks the vector type initialised by the list at ``brace`` may have: the type
    written before it (`float3{`, `float3 v{`, `float3 v = {`), or the member or variable the
    list initialises (`.coordinates{`, `.coordinates = {`, `c = {`) as the tree declares it."""
    toks = unit.tokens
    j = brace - 1
    if toks[j].text == "=":
        j -= 1
    if j < 0 or toks[j].kind is not Kind.IDENT:
        return set()
    if toks[j].text in RANKS:
        return {RANKS[toks[j].text]}
    if j > 0 and toks[j - 1].text in RANKS:
        return {RANKS[toks[j - 1].text]}
    ranks = members.get(toks[j].text, set())
    return ranks if len(ranks) == 1 else set()  # a name of two ranks: unknown which
