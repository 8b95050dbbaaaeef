"""Vector operators that a function-like macro defines, one invocation per vector type.

PCL KinFu's `vector_math.hpp` (in Kintinuous, compile round 33) writes
`#define COMPOUND_VEC3_OP(type, scalar, op) ... type & operator op (type & v1, const type & v2)
{ v1.x op v2.x; ... }` and then `COMPOUND_VEC3_OP(float3, float, -=)`: the operators exist only
in the expansion, so reading the file's own `operator` tokens finds none, and five translation
units failed on AMD with "use of overloaded operator '-=' is ambiguous" while nothing said so.
Each invocation is expanded here (its arguments for the parameters, as the preprocessor does
for a body without `#` or `##`) into a small unit of its own, which ``vector_operators`` reads
as it reads written-out definitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..frontend.directives import define_of, lines
from ..frontend.lexer import Token
from ..frontend.unit import Unit
from .tokens import cached, split
from .vector_operators import OperatorDef, definitions

# an expansion longer than this is no operator helper (a bound on the text one invocation makes)
_MAX_EXPANSION = 4096
# a file's invocations expanded at most (a helper header has tens; a generated file may have
# thousands, whose expansions would cost more than the file's own analysis)
_MAX_INVOCATIONS = 512


@dataclass(frozen=True)
class Invocation:
    """One macro invocation that defines vector operators: its name's token index, the token
    index of its closing parenthesis, and the expansion with the operators in it."""

    first: int
    last: int
    expansion: Unit
    operators: tuple[OperatorDef, ...]


def invocations(unit: Unit) -> list[Invocation]:
    """The file's invocations, outside preprocessor lines, of its macros whose bodies define an
    operator, each with the vector operators its expansion defines (at least one)."""
    return cached(unit, "_vector_operator_macros", lambda: _find(unit))


def _find(unit: Unit) -> list[Invocation]:
    if "operator" not in unit.identifiers:
        return []
    toks = unit.tokens
    found: list[Invocation] = []
    for name, (params, body) in _operator_macros(unit).items():
        for i in unit.identifier_positions.get(name, ()):
            close = unit.lexed.brackets.get(i + 1) if i + 1 < len(toks) else None
            if toks[i].in_directive or toks[i + 1].text != "(" or close is None:
                continue
            text = _expanded(toks, i, close, params, body)
            if text is None:
                continue
            expansion = Unit(unit.path, text + "\n", unit.mappings)
            operators = tuple(definitions(expansion))
            if operators:
                found.append(Invocation(i, close, expansion, operators))
            if len(found) >= _MAX_INVOCATIONS:
                return found
    return found


def _operator_macros(unit: Unit) -> dict[str, tuple[list[str], Sequence[Token]]]:
    """The file's function-like macros whose bodies define an operator (and use neither `#` nor
    `##`): name -> (parameters, body)."""
    macros = {}
    for line in lines(unit.tokens, unit.directives):
        define = define_of(line)
        if (
            define is not None
            and define.params is not None
            and any(t.text == "operator" for t in define.body)
            and not any(t.text in ("#", "##") for t in define.body)
        ):
            macros[define.name.text] = (define.params, define.body)
    return macros


def _expanded(
    toks: Sequence[Token], i: int, close: int, params: list[str], body: Sequence[Token]
) -> str | None:
    """The text of the invocation at token ``i`` (its `)` at ``close``): ``body`` with the
    arguments for the parameters; None for another number of arguments or an expansion past
    the bound."""
    args = split(toks, i + 2, close)
    if len(args) != len(params):
        return None
    values = {
        p: " ".join(t.text for t in toks[a:b]) for p, (a, b) in zip(params, args, strict=True)
    }
    text = " ".join(values.get(t.text, t.text) for t in body)
    return text if len(text) <= _MAX_EXPANSION else None
