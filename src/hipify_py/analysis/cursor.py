"""The libclang cursor at a place in the file, for the few questions tokens cannot answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..frontend.unit import Unit
from .tokens import cached

if TYPE_CHECKING:
    import clang.cindex as ci


def cursor_at(unit: Unit, offset: int) -> ci.Cursor | None:
    """The libclang cursor at a character offset of the unit (None without an AST).

    Much cheaper than walking the tree: rules find candidates from tokens and ask the AST only
    about those places.
    """
    ast = unit.ast
    if ast is None:
        return None
    import clang.cindex as ci

    text = unit.text
    # an undecodable byte (a surrogate here) reached libclang as one '?': one byte either way
    byte = offset if ast._ascii else len(text[:offset].encode("utf-8", "surrogateescape"))
    tu = ast.tu
    f = cached(unit, "_hz_cxfile", lambda: tu.get_file(ast.filename))
    loc = ci.SourceLocation.from_offset(tu, f, byte)
    cur = ci.Cursor.from_location(tu, loc)
    return None if cur is None or cur.kind.is_invalid() else cur
