"""Rename CUDA API identifiers through the mapping tables, in every preprocessor branch.

Only identifier tokens are touched, so comments and string literals are never rewritten.  Every
occurrence of a mapped name is renamed, members and qualified names included: a project that
declares its own ``cudaMalloc`` (a struct member, a function in its namespace) gets the
declaration and every use renamed alike, so the output stays consistent.  Only CUDA-specific
names are mapped (everything else in the tables is ``cu*``/``__*``-prefixed), so user code
that merely shares a common word is not touched.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
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
        new = renamed_for_arity(tokens, i) or hip_name(entry, ctx.options)
        if new and new != tok.text:
            yield Edit(tok.start, tok.end, new, f"rename/{entry.family}")
