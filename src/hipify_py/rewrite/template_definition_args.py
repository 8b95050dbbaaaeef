"""Drop the template arguments that nvcc lets a function template's definition repeat.

faimGraph defines `template <typename V, typename U> template <typename E> void Manager<V,
U>::insert<E>(...) {...}` (compile round 33, a silent failure): EDG, nvcc's front end, accepts
the `<E>` after the name; clang reads it as a partial specialization of a function template,
which C++ forbids ("function template partial specialization is not allowed").  Where the
arguments are exactly the parameters of the template header right above, in order, the
definition is the primary template's, and the name alone says so: dropping them keeps the
program's meaning for every compiler.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import body_follows
from ..analysis.tokens import split, template_close
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "template-definition-args"
_DECLARATOR_TOKENS = 64  # how far past its template header a definition's name may be


@rewrite_pass(RULE, order=12)
def template_definition_args(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "template" not in unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions["template"]:
        if toks[i].in_directive or i + 1 >= len(toks) or toks[i + 1].text != "<":
            continue
        close = template_close(toks, i + 1)
        if close is None or close + 1 >= len(toks) or toks[close + 1].text == "template":
            continue  # an outer header: the innermost one names the function's parameters
        names = _parameter_names(toks, i + 1, close)
        found = _repeated_arguments(unit, close + 1, names) if names else None
        if found is not None:
            yield Edit(toks[found[0]].start, toks[found[1]].end, "", RULE)


def _parameter_names(toks: Sequence[Token], lt: int, gt: int) -> list[str] | None:
    """The names of the template parameters between ``lt`` and ``gt`` (`typename E`, `int N =
    4`); None where one has no name or is a pack."""
    names = []
    for a, b in split(toks, lt + 1, gt):
        words = list(toks[a:b])
        if any(t.text == "..." for t in words):
            return None
        end = next((n for n, t in enumerate(words) if t.text == "="), len(words))
        if end < 2 or words[end - 1].kind is not Kind.IDENT:
            return None
        names.append(words[end - 1].text)
    return names


def _repeated_arguments(unit: Unit, start: int, names: list[str]) -> tuple[int, int] | None:
    """The `<` and `>` after the name of the function that the declaration from token
    ``start`` defines, where its arguments are ``names`` in order and a body follows the
    parameters."""
    toks = unit.tokens
    for k in range(start, min(start + _DECLARATOR_TOKENS, len(toks) - 1)):
        text = toks[k].text
        if text in (";", "{", "}", "=", "(") or toks[k].in_directive:
            return None
        if text != "<" or toks[k - 1].kind is not Kind.IDENT:
            continue
        close = template_close(toks, k)
        if close is None or toks[close + 1].text != "(":
            continue
        args = [[t.text for t in toks[a:b]] for a, b in split(toks, k + 1, close)]
        defined = body_follows(unit, close + 1)
        return (k, close) if defined and args == [[n] for n in names] else None
    return None
