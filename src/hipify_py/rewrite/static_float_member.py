"""A class template's static const member of a parameter type, initialised in the class,
becomes ``constexpr``: ``static const T identity = static_cast<T>(0);`` -> ``static constexpr
T identity = static_cast<T>(0);``.

In a class template whose member's type is a template parameter (`static const T identity
= static_cast<T>(0);`), nvcc's device pass takes the in-class initialiser for `T = float`, and
its host pass never instantiates the template when only kernels use it; clang instantiates it
in the device pass and rejects it ("in-class initializer for static data member of type 'const
float' requires 'constexpr' specifier", chongchen1999's `SumOp<T>::identity`, compile round
45).  ``constexpr`` is the standard spelling of the same constant, for an integral `T` too.
A member of a fixed floating type is left alone: GCC rejects it as clang does, so no code nvcc
builds has one.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import class_bodies, function_at
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "static-float-member"


@rewrite_pass(RULE, order=12)
def static_float_member(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "static" not in unit.identifiers or "const" not in unit.identifiers:
        return
    toks = unit.tokens
    bodies = class_bodies(unit)
    parameters: set[str] | None = None
    for k in unit.identifier_positions["static"]:
        if k + 4 >= len(toks) or toks[k].in_directive:
            continue
        const = (
            k + 1 if toks[k + 1].text == "const" else k - 1 if toks[k - 1].text == "const" else None
        )
        if const is None:
            continue
        kind = k + 2 if const == k + 1 else k + 1
        name, after = toks[kind + 1], toks[kind + 2].text
        if name.kind is not Kind.IDENT or after not in ("=", "{"):
            continue
        if not any(a < k < b for a, b in bodies) or function_at(unit, k) is not None:
            continue
        if parameters is None:
            parameters = _type_parameters(unit)
        if toks[kind].text in parameters:
            yield Edit(toks[const].start, toks[const].end, "constexpr", RULE)


def _type_parameters(unit: Unit) -> set[str]:
    """The names the file's `template <typename T>` and `template <class T>` declare."""
    toks = unit.tokens
    out: set[str] = set()
    for k in unit.identifier_positions.get("template", ()):
        if k + 1 >= len(toks) or toks[k + 1].text != "<":
            continue
        for j in range(k + 2, min(k + 64, len(toks) - 1)):
            if toks[j].text == ">":
                break
            if toks[j].text in ("typename", "class") and toks[j + 1].kind is Kind.IDENT:
                out.add(toks[j + 1].text)
    return out
