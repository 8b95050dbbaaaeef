"""Rename CUDA API identifiers through the mapping tables, in every preprocessor branch.

Only identifier tokens are touched, so comments and string literals are never rewritten.  A
name that follows ``.``/``->`` is a member, and one that follows ``ns::`` belongs to a user
namespace unless ``ns`` is itself a mapped namespace (``cub::`` -> ``hipcub::``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import KEYWORDS, Kind
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from ..rules import rewrite_pass
from .arguments import renamed_for_arity


@rewrite_pass("identifiers", order=10)
def identifiers(unit: Unit, ctx: Context) -> Iterator[Edit]:
    tokens = unit.tokens
    mappings = ctx.mappings
    # look each distinct name up once; most identifiers in a file are not CUDA APIs
    wanted = {}
    for name in unit.identifiers:
        entry = mappings.get(name)
        if entry is not None and is_convertible(entry, ctx.options):
            wanted[name] = entry
    if not wanted:
        return
    include_line = False
    for i, tok in enumerate(tokens):
        if tok.kind is Kind.DIRECTIVE:
            include_line = i + 1 < len(tokens) and tokens[i + 1].text in ("include", "include_next")
            continue
        entry = wanted.get(tok.text)
        if entry is None or tok.kind is not Kind.IDENT or (include_line and tok.in_directive):
            continue
        if i > 0:
            before = tokens[i - 1].text
            if before in (".", "->"):
                continue
            if (
                before == "::"
                and i > 1
                and tokens[i - 2].kind is Kind.IDENT
                and tokens[i - 2].text not in KEYWORDS
            ):
                qualifier = mappings.get(tokens[i - 2].text)
                if qualifier is None or qualifier.kind != "namespace":
                    continue
        new = renamed_for_arity(tokens, i) or hip_name(entry, ctx.options)
        if new and new != tok.text:
            yield Edit(tok.start, tok.end, new, f"rename/{entry.family}")
