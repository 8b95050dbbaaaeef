"""The bodies of a file's named namespaces (``namespace NAME ... { ... }``).

Two questions walk them: which mapped names the project declares in namespaces of its own
(``apis``: ``ctranslate2::cuda::cublasGetStatusName`` is not CUDA's), and whether a file is a
copy of CUB or Thrust (``not_ported``).  They filter the bodies differently, but finding a
body (the name after ``namespace``, its ``{`` past ``a::b`` or attributes, the matching ``}``)
is one walk, written and computed once here.
"""

from __future__ import annotations

from typing import NamedTuple

from ..frontend.lexer import Kind
from ..frontend.namespace_scope import namespaces_declaring
from ..frontend.unit import Unit
from .tokens import cached


class NamespaceBody(NamedTuple):
    """One ``namespace NAME ... { ... }``, as token indices."""

    keyword: int  # the ``namespace`` token
    name: str  # the name after it (``a`` of ``namespace a::b``)
    open: int  # the body's ``{``
    close: int  # its matching ``}``


def namespace_bodies(unit: Unit) -> list[NamespaceBody]:
    """Every named namespace with a body whose braces match, in token order (directives
    included: a caller that wants code only checks ``tokens[keyword].in_directive``).  An
    anonymous namespace, a ``using namespace`` and an alias (``namespace a = b;``) have none."""
    return cached(unit, "_namespace_bodies", lambda: _bodies(unit))


def _bodies(unit: Unit) -> list[NamespaceBody]:
    toks = unit.tokens
    brackets = unit.lexed.brackets
    out: list[NamespaceBody] = []
    for n in unit.identifier_positions.get("namespace", ()):
        k = n + 1
        if k >= len(toks) or toks[k].kind is not Kind.IDENT:
            continue
        while k < len(toks) and toks[k].text not in ("{", ";", "="):
            k += 1
        close = brackets.get(k) if k < len(toks) and toks[k].text == "{" else None
        if close is not None:
            out.append(NamespaceBody(n, toks[n + 1].text, k, close))
    return out


def anonymous_namespace_bodies(unit: Unit) -> list[tuple[int, int]]:
    """The ``{`` and ``}`` token indices of each ``namespace { ... }`` of the file."""
    toks = unit.tokens
    brackets = unit.lexed.brackets
    return [
        (n + 1, brackets[n + 1])
        for n in unit.identifier_positions.get("namespace", ())
        if n + 1 < len(toks) and toks[n + 1].text == "{" and n + 1 in brackets
    ]


def qualified_namespace(unit: Unit, i: int) -> str:
    """The named namespaces around token ``i``, outermost first (``a::b::c``; "" at global
    scope)."""
    toks = unit.tokens
    return "::".join(
        "::".join(toks[j].text for j in range(b.keyword + 1, b.open) if toks[j].kind is Kind.IDENT)
        for b in namespace_bodies(unit)
        if b.open < i < b.close
    )


def project_warp_size(unit: Unit, k: int) -> tuple[str, int | None] | None:
    """The declaration (namespace, value) that the `warpSize` at token ``k`` names when it is a
    constant the project declares in an enclosing namespace (flashinfer's `namespace
    flashinfer::mamba { constexpr unsigned warpSize = 32; }`, in this file or another of the
    tree), not HIP's run-time wavefront size; None otherwise."""
    toks = unit.tokens
    if toks[k].text != "warpSize" or (k > 0 and toks[k - 1].text == "::"):
        return None
    own = cached(unit, "_warp_size_namespaces", lambda: namespaces_declaring(toks, "warpSize"))
    declared = unit.warp_size_namespaces | own
    if not declared:
        return None
    here = qualified_namespace(unit, k)
    # the innermost declaration wins, as C++ name lookup finds it
    inside = [d for d in declared if here == d[0] or here.startswith(d[0] + "::")]
    return max(inside, key=lambda d: len(d[0])) if inside else None
