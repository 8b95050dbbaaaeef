"""The uses of mapped CUDA APIs in a file: every identifier token that names an entry of the
mapping tables, outside the directives that are not code (``#include``, ``#pragma``...) and
the names the file defines itself.  Several rules ask (HZ300, HZ301), so it is computed once
per file."""

from __future__ import annotations

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..mappings import Entry
from .tokens import cached


def api_uses(unit: Unit) -> list[tuple[Token, Entry]]:
    """(token, entry) for every identifier token that names a mapped CUDA API (computed once
    per file: several rules ask)."""
    return cached(unit, "_hz_api_uses", lambda: _api_uses(unit))


_NOT_CODE_DIRECTIVES = frozenset({"include", "include_next", "pragma", "error", "warning", "line"})


def _api_uses(unit: Unit) -> list[tuple[Token, Entry]]:
    toks = unit.tokens
    mapped = unit.mapped
    names = mapped.keys()
    if not names:
        return []
    positions = unit.identifier_positions
    defined = {
        toks[i + 1].text
        for i in positions.get("define", ())
        if i > 0 and toks[i - 1].kind is Kind.DIRECTIVE and i + 1 < len(toks)
    }
    out: list[tuple[Token, Entry]] = []
    for i in sorted(i for n in names - defined for i in positions[n]):
        t = toks[i]
        if i > 0 and toks[i - 1].text in (".", "->"):
            continue
        if t.in_directive:
            j = i
            while j > 0 and toks[j].kind is not Kind.DIRECTIVE:
                j -= 1
            if j + 1 < len(toks) and toks[j + 1].text in _NOT_CODE_DIRECTIVES:
                continue
        out.append((t, mapped[t.text]))
    return out
