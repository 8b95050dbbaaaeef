"""Rename CUDA API identifiers through the mapping tables, in every preprocessor branch.

Only identifier tokens are touched, so comments and string literals are never rewritten.  Every
occurrence of a mapped name is renamed, members and qualified names included: a project that
declares its own ``cudaMalloc`` (a struct member, a function in its namespace) gets the
declaration and every use renamed alike, so the output stays consistent.  Only CUDA-specific
names are mapped (everything else in the tables is ``cu*``/``__*``-prefixed), so user code
that merely shares a common word is not touched.  The name a ``#define`` defines and its
parameters are never renamed (portability shims keep working), and the CUDA version macros are
left to ``version_gates``.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from ..mappings.provenance import rename_rule
from ..rules import Tally, rewrite_pass
from ._macro_definitions import definition_roles
from .arguments import renamed_for_arity
from .version_gates import VERSION_MACROS


@rewrite_pass(
    "identifiers",
    order=10,
    tallies=(Tally("rename/", "identifiers_renamed", "identifiers renamed"),),
)
def identifiers(unit: Unit, ctx: Context) -> Iterator[Edit]:
    tokens = unit.tokens
    wanted = {
        name: entry
        for name, entry in unit.mapped.items()
        if name not in VERSION_MACROS and is_convertible(entry, ctx.options)  # version_gates
    }
    if not wanted:
        return
    positions = unit.identifier_positions
    roles = definition_roles(unit)
    for name, entry in wanted.items():
        default = hip_name(entry, ctx.options)
        rule = rename_rule(entry)
        for i in positions[name]:
            tok = tokens[i]
            if tok.in_directive and unit.directive_word(i) in ("include", "include_next"):
                continue  # a header name: the headers pass owns it
            if i in roles:
                continue  # a #define's own name or parameter (see _macro_definitions)
            new = renamed_for_arity(tokens, i) or default
            if new and new != name:
                yield Edit(tok.start, tok.end, new, rule)
