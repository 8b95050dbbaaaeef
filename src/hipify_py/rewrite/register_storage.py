"""Drop the ``register`` storage class, which C++17 removed.

nvcc accepts ``register int x;`` in C++17 code (it warns at most); clang, the HIP compiler,
rejects it ("ISO C++17 does not allow 'register' storage class specifier").  The keyword has
had no effect on code generation for decades, so removing it keeps the program's meaning.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from ._word_removal import drop_word

RULE = "register-storage"


@rewrite_pass("register-storage", order=12)
def register_storage(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "register" not in unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions["register"]:
        if toks[i].in_directive or i + 1 >= len(toks):
            continue
        if i > 0 and toks[i - 1].text in (".", "->", "::"):
            continue  # a member or function that happens to be named register
        yield drop_word(unit, i, RULE)
