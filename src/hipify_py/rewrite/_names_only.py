"""The conversion of a file too dense to tokenize (``frontend.density``): its CUDA names
renamed by one regular-expression scan, in linear time and without a token list.

What the scan skips is what the identifier pass never renames: comments and literals (the
lexer's own patterns), numbers, ``#include`` lines (header names) and a ``#define``'s name and
parameter list; version macros are ``version_gates``'s.  What it cannot see without tokens is
left as written and the file is reported "not analysed": launches stay ``<<<...>>>`` (which HIP
accepts), headers, call arguments, symbols and warp masks are not converted, a parameter
named like a CUDA API is renamed in the macro's body, and no hazard rule runs.
"""

from __future__ import annotations

import re

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import LITERALS, NAME
from ..mappings import hip_name, is_convertible
from ..mappings.provenance import rename_rule
from .version_gates import VERSION_MACROS

_SCAN = re.compile(
    rf"""
    (?:{LITERALS}
    | ^[ \t]*(?:\#|%:)[ \t]*include(?:_next)?\b[^\r\n]*
    | ^[ \t]*(?:\#|%:)[ \t]*define[ \t]+{NAME}(?:\([^)\r\n]*\))?
    )
    | (?P<name>{NAME})
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


def names_only(text: str, ctx: Context) -> list[Edit]:
    """An edit for every CUDA name outside comments, literals and ``#include`` lines that the
    tables convert under ``ctx``'s options."""
    known: dict[str, tuple[str, str] | None] = {}  # name -> (new name, edit tag)
    edits: list[Edit] = []
    for m in _SCAN.finditer(text):
        name = m.group("name")
        if name is None:
            continue
        if name not in known:
            known[name] = _rename(name, ctx)
        rename = known[name]
        if rename is not None:
            edits.append(Edit(m.start(), m.end(), *rename))
    return edits


def _rename(name: str, ctx: Context) -> tuple[str, str] | None:
    entry = ctx.mappings.known({name}).get(name)
    if entry is None or name in VERSION_MACROS or not is_convertible(entry, ctx.options):
        return None
    new = hip_name(entry, ctx.options)
    return (new, rename_rule(entry)) if new and new != name else None
