"""The 32-bit bit intrinsics (`__popc`, `__ffs`, `__clz`, `__brev`) a widened mask reaches.

HIP declares both `__ffs(int)` and `__ffs(unsigned int)` (and the same for the others), so once
a mask variable becomes `unsigned long long` a call `__ffs(mask)` is ambiguous and the file no
longer compiles (ROCm 7.2.4).  A fix that widens a mask variable must therefore turn the bit
intrinsics applied to it into their 64-bit forms, which is also what the wider value needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from .calls import Call, calls
from .cursor import cursor_at
from .functions import function_at

BIT32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll"}

# the words of a declaration that keeps a mask in 32 bits (`const unsigned m = ...`), ending
# where the name starts: group 1 is the type to widen
NARROW_MASK_TYPE = re.compile(
    r"^\s*(?:const\s+)?(unsigned(?:\s+int)?|int|uint32_t|int32_t|unsigned\s+long|uint|"
    r"unsigned\s+short)\s+$"
)


def bit_calls_on(unit: Unit, name: int) -> Iterator[Call]:
    """The 32-bit bit intrinsic calls whose argument names the variable declared at token
    ``name``, after the declaration and within its function (the file for a global).

    With an AST, a use counts only when it refers to that declaration (a later variable of the
    same name in another block is someone else); without one, or where it cannot tell (a type
    the hermetic parse does not know), every use of the name after the declaration, up to the
    next declaration of the same name, counts."""
    toks = unit.tokens
    ident = toks[name].text
    func = function_at(unit, name)
    end = func.close if func is not None else len(toks)
    ast = unit.ast
    where = toks[name].start
    for c in calls(unit, BIT32):
        if not name < c.index < end:
            continue
        for k in range(c.open + 1, c.close):
            if toks[k].kind is not Kind.IDENT or toks[k].text != ident:
                continue
            ref = None
            if ast is not None:
                cur = cursor_at(unit, toks[k].start)
                ref = cur.referenced if cur is not None else None
            if ref is not None and ast is not None:
                if ast.offset(ref.location) != where:
                    continue
            elif _redeclared(unit, name, c.index):
                continue  # no AST answer (`uint` undeclared in a hermetic parse): by tokens
            yield c
            break


def _redeclared(unit: Unit, name: int, until: int) -> bool:
    """The name declared at token ``name`` is declared again (`T name =`) before ``until``."""
    toks = unit.tokens
    for k in unit.identifier_positions.get(toks[name].text, ()):
        before = toks[k - 1]
        if (
            name < k < until
            and k + 1 < len(toks)
            and before.kind is Kind.IDENT
            and before.text not in _NOT_TYPES
            and toks[k + 1].text in ("=", ";", "(", "{")
        ):
            return True
    return False


_NOT_TYPES = frozenset({"return", "case", "else", "goto", "throw", "co_return"})
