"""Write `typename` where `sizeof` names a member type of a template's specialization.

NanoVDB divides by `sizeof(NanoRoot<BuildT>::Tile)` in a kernel template (compile round 33: 3
silent failures).  EDG, nvcc's front end, takes the dependent name as the type it is; clang
parses it as an expression, and when the template is instantiated finds a type ("missing
'typename' prior to dependent type name").  The keyword says what the name is, to every
compiler, and is allowed outside templates too (C++11).  It is written only where the name is
one the tree declares as a type (``ProjectIndex.sized_member_types``): a static data member of
that name stays an expression.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "sized-member-types"


@rewrite_pass(RULE, order=13)
def sized_member_types(unit: Unit, ctx: Context) -> Iterator[Edit]:
    wanted = unit.tree_sized_member_types & unit.identifiers
    if not wanted:
        return
    toks = unit.tokens
    for name in wanted:
        for i in unit.identifier_positions[name]:
            start = _sized_qualified_name(toks, i)
            if start is not None:
                yield Edit(toks[start].start, toks[start].start, "typename ", RULE)


def _sized_qualified_name(toks: Sequence[Token], i: int) -> int | None:
    """The first token of `A<...>::NAME` (NAME at ``i``) when it is the whole operand of a
    `sizeof(...)` or `alignof(...)`, and no `typename` says what it is already."""
    if i + 1 >= len(toks) or toks[i + 1].text != ")" or toks[i - 1].text != "::":
        return None
    k = i - 2
    if toks[k].text != ">":
        return None
    opener = match_angle_backward(toks, k)
    if opener is None:
        return None
    k = opener - 1
    while k > 1 and toks[k].kind is Kind.IDENT and toks[k - 1].text == "::":
        k -= 2  # `nanovdb::NanoRoot<...>`
    if toks[k].kind is not Kind.IDENT or k < 2 or toks[k - 1].text != "(":
        return None
    return k if toks[k - 2].text in ("sizeof", "alignof") else None
