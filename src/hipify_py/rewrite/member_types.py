"""Write `typename` before a member type of a template's specialization where nvcc needs none.

NanoVDB divides by `sizeof(NanoRoot<BuildT>::Tile)` and writes
`root.mBackground = NanoRoot<BuildT>::ValueType(0);` in kernel templates (compile rounds 33 and
34: 3 silent failures).  EDG, nvcc's front end, takes the dependent name as the type it is;
clang parses it as an expression, and when the template is instantiated finds a type ("missing
'typename' prior to dependent type name").  The keyword says what the name is, to every
compiler, and is allowed outside templates too (C++11).  It is written where the name is the
whole operand of `sizeof`/`alignof` or a functional cast's type, and only for names the tree
declares as types (``ProjectIndex.member_types``): a static data member or function of another
name stays what it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "member-types"
# what stands before a functional cast's type where an expression must start; not `.`/`->`
# (a member), `::` (a longer name), `typename`/`template` (already said), a type or name, `{`
# or `;` (a declaration may start there), nor `:` and `,` (a constructor's initializer of its
# base, where `typename` is not allowed)
_BEFORE_CAST = frozenset({"=", "(", "return", "?", "+", "-", "*", "/", "[", "!"})


@rewrite_pass(RULE, order=13)
def member_types(unit: Unit, ctx: Context) -> Iterator[Edit]:
    wanted = unit.tree_member_types & unit.identifiers
    if not wanted:
        return
    toks = unit.tokens
    for name in wanted:
        for i in unit.identifier_positions[name]:
            start = _qualified_type(toks, i)
            if start is not None:
                yield Edit(toks[start].start, toks[start].start, "typename ", RULE)


def _qualified_type(toks: Sequence[Token], i: int) -> int | None:
    """The first token of `A<...>::NAME` (NAME at ``i``) where it is the whole operand of a
    `sizeof(...)`/`alignof(...)` or a functional cast's type (`A<T>::NAME(0)`)."""
    if i + 1 >= len(toks) or toks[i + 1].text not in (")", "(") or toks[i - 1].text != "::":
        return None
    if toks[i].in_directive or toks[i - 2].text != ">":
        return None
    opener = match_angle_backward(toks, i - 2)
    if opener is None:
        return None
    k = opener - 1
    while k > 1 and toks[k].kind is Kind.IDENT and toks[k - 1].text == "::":
        k -= 2  # `nanovdb::NanoRoot<...>`
    if toks[k].kind is not Kind.IDENT or k < 2:
        return None
    before = toks[k - 1].text
    if toks[i + 1].text == ")":
        sized = before == "(" and toks[k - 2].text in ("sizeof", "alignof")
        return k if sized else None
    return k if before in _BEFORE_CAST else None
