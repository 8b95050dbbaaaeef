"""The uses of mapped CUDA APIs in a file: every identifier token that names an entry of the
mapping tables, outside the directives that are not code (``#include``, ``#pragma``...) and
the names the file defines itself.  Several rules ask (HZ300, HZ301), so it is computed once
per file."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from ..frontend.lexer import Kind, Token
from ..frontend.spans import Spans
from ..frontend.unit import Unit
from ..mappings import Entry
from .namespaces import namespace_bodies
from .tokens import cached


def api_uses(unit: Unit) -> list[tuple[int, Entry]]:
    """(token index, entry) for every identifier token that names a mapped CUDA API (computed
    once per file: several rules ask)."""
    return cached(unit, "_hz_api_uses", lambda: _api_uses(unit))


# the namespaces CUDA's own C++ names live in (libcu++, CUB, Thrust, WMMA, cooperative groups)
_CUDA_NAMESPACES = frozenset({"cuda", "cub", "thrust", "nvcuda", "cooperative_groups", "cg", "std"})


def _project_qualified(toks: Sequence[Token], i: int) -> bool:
    """Whether the name at token ``i`` is qualified by a namespace or class of the project
    (``ctranslate2::cuda::cublasGetStatusName``): the project's own function of that name,
    not CUDA's C API, which lives at global scope (``::cudaMalloc`` is CUDA's)."""
    outer = None
    k = i
    while k >= 2 and toks[k - 1].text == "::" and toks[k - 2].kind is Kind.IDENT:
        outer = toks[k - 2].text
        k -= 2
    return outer is not None and outer not in _CUDA_NAMESPACES


def _declared_in_project_namespaces(unit: Unit, names: AbstractSet[str]) -> set[str]:
    """The mapped names the file declares as functions inside a namespace of its own
    (``namespace ctranslate2 { namespace cuda { const char* cublasGetStatusName(...); } }``):
    the project's functions, whatever CUDA calls its own."""
    spans: list[tuple[int, int]] = []  # the project namespaces' bodies, merged, in order
    for body in namespace_bodies(unit):
        if body.name in _CUDA_NAMESPACES or spans and body.close <= spans[-1][1]:
            continue  # CUDA's, or nested in the namespace before: already covered
        spans.append((body.open, body.close))
    if not spans:
        return set()
    toks = unit.tokens
    bodies = Spans(spans)
    return {
        name
        for name in names
        for i in unit.identifier_positions.get(name, ())
        if _declares_function(toks, i) and i in bodies
    }


def _declares_function(toks: Sequence[Token], i: int) -> bool:
    """Whether the name at token ``i`` is declared there as a function: a type (or ``*``/``&``
    after one) before it, ``(`` after it."""
    if i + 1 >= len(toks) or toks[i + 1].text != "(" or i == 0:
        return False
    before = toks[i - 1]
    return before.text in ("*", "&") or (
        before.kind is Kind.IDENT and before.text not in ("return", "else", "case", "throw")
    )


_NOT_CODE_DIRECTIVES = frozenset({"include", "include_next", "pragma", "error", "warning", "line"})


def defined_macros(unit: Unit) -> frozenset[str]:
    """The names the file `#define`s, in any branch: its own, not the API's."""
    toks = unit.tokens

    def find() -> frozenset[str]:
        return frozenset(
            toks[i + 1].text
            for i in unit.identifier_positions.get("define", ())
            if i > 0 and toks[i - 1].kind is Kind.DIRECTIVE and i + 1 < len(toks)
        )

    return cached(unit, "_defined_macros", find)


def _api_uses(unit: Unit) -> list[tuple[int, Entry]]:
    toks = unit.tokens
    mapped = unit.mapped
    names = mapped.keys()
    if not names:
        return []
    positions = unit.identifier_positions
    defined = defined_macros(unit)
    own = _declared_in_project_namespaces(unit, names - defined)
    out: list[tuple[int, Entry]] = []
    for i in sorted(i for n in names - defined - own for i in positions[n]):
        t = toks[i]
        if i > 0 and toks[i - 1].text in (".", "->") or _project_qualified(toks, i):
            continue
        if t.in_directive:
            j = i
            while j > 0 and toks[j].kind is not Kind.DIRECTIVE:
                j -= 1
            if j + 1 < len(toks) and toks[j + 1].text in _NOT_CODE_DIRECTIVES:
                continue
        out.append((i, mapped[t.text]))
    return out
