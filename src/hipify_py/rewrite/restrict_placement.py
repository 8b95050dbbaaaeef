"""Drop a ``__restrict__`` written before a declarator's ``*``: ``const T __restrict__ *p``.

There the qualifier applies to ``T``, not to the pointer.  nvcc and GCC ignore it; clang, the
HIP compiler, rejects it ("restrict requires a pointer or reference", CUDA_RNAFold's
`const cuda_param_t __restrict__ *P`, compile round 44).  Dropping it keeps what nvcc
compiled; moving it after the ``*`` would add an aliasing promise the code never made.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from ._word_removal import drop_word

RULE = "restrict-placement"
_RESTRICT = ("__restrict__", "__restrict")


@rewrite_pass("restrict-placement", order=13)
def restrict_placement(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for word in _RESTRICT:
        for i in unit.identifier_positions.get(word, ()):
            if (
                toks[i].in_directive
                or not 0 < i < len(toks) - 1
                or toks[i + 1].text not in ("*", "&")
            ):
                continue
            before = toks[i - 1]
            if before.kind is not Kind.IDENT and before.text != ">":
                continue  # `T* __restrict__ * p` qualifies a pointer: clang takes it
            yield drop_word(unit, i, RULE)
