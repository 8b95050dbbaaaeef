"""Which named namespaces declare a variable of a given name in their own scope.

A project may declare a constant under a name HIP defines: flashinfer's
``namespace flashinfer::mamba { constexpr unsigned warpSize = 32; }`` (round 12), whose
unqualified ``warpSize`` in that namespace and those nested in it is the project's 32, a
compile-time constant, not HIP's run-time wavefront size.  The project index asks it of every
file that declares such a name; a rule of the file that declares it.  Read from tokens, so it
needs no parse: a brace walk that knows which braces open a named namespace.
"""

from __future__ import annotations

from collections.abc import Sequence

from .lexer import Kind, Token


def namespaces_declaring(tokens: Sequence[Token], name: str) -> frozenset[tuple[str, int | None]]:
    """The namespaces (``a::b``, outermost first) in whose own scope ``tokens`` declare a
    variable ``name`` (``constexpr unsigned warpSize = 32;``), each with the value of a number
    initializer (None for another): not inside a function, a class, an anonymous namespace,
    nor at global scope, where a second ``warpSize`` is HIP's own."""
    scopes: list[str | None] = []  # per open brace: the namespace it opens, None for others
    found: set[tuple[str, int | None]] = set()
    i = 0
    while i < len(tokens):
        text = tokens[i].text
        if tokens[i].in_directive:
            pass
        elif text == "namespace":
            opened, i = _namespace_opened(tokens, i)
            if opened is not None:
                scopes.append(opened)
            continue
        elif text == "{":
            scopes.append(None)
        elif text == "}":
            if scopes:
                scopes.pop()
        elif text == name and scopes and None not in scopes and _declared_at(tokens, i):
            found.add(("::".join(s for s in scopes if s), _number(tokens, i + 2)))
        i += 1
    return frozenset(found)


def _namespace_opened(tokens: Sequence[Token], i: int) -> tuple[str | None, int]:
    """At the ``namespace`` token ``i``: the name of the namespace its ``{`` opens and the
    index after that brace, or None and the index to go on from (an anonymous namespace's
    brace, an alias or a ``using namespace``)."""
    j, parts = i + 1, []
    while j < len(tokens) and (tokens[j].kind is Kind.IDENT or tokens[j].text == "::"):
        if tokens[j].text != "::":
            parts.append(tokens[j].text)
        j += 1
    if parts and j < len(tokens) and tokens[j].text == "{":
        return "::".join(parts), j + 1
    return None, j


def _number(tokens: Sequence[Token], i: int) -> int | None:
    """The value of a decimal number at token ``i`` that ends the initializer (`= 32;`)."""
    if i + 1 >= len(tokens) or tokens[i + 1].text not in (";", "}"):
        return None
    text = tokens[i].text.rstrip("uUlL")
    return int(text) if tokens[i].kind is Kind.NUMBER and text.isdigit() else None


def _declared_at(tokens: Sequence[Token], i: int) -> bool:
    """The name at token ``i`` is declared there: a type before it, an initializer after."""
    return (
        0 < i < len(tokens) - 1
        and tokens[i - 1].kind is Kind.IDENT
        and tokens[i + 1].text in ("=", "{")
    )
