"""Drop `constexpr` from a function that returns `thrust::pair`.

CUDA's `thrust::pair` is libcu++'s `cuda::std::pair`, a literal type; rocThrust 7.2.4's has no
`constexpr` constructors, so clang rejects a `constexpr` function that returns one ("constexpr
function's return type ... is not a literal type": CUDA_gpca_proj1's `BishopMapGenerator::
GenPossibleNeighborsWoutOverlap`, compile round 46: 7 TUs).  Such a function can never be
`constexpr` on ROCm, in a template or not, so removing the word loses nothing the port could
keep: calls at run time compile as before, and a use in a constant expression (which no
rewrite can save) is left for clang to name.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import declaration_head, functions
from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from ._word_removal import drop_word

RULE = "thrust-pair-constexpr"


@rewrite_pass(RULE, order=13)
def thrust_pair_constexpr(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "thrust" not in unit.identifiers or "constexpr" not in unit.identifiers:
        return
    toks = unit.tokens
    for f in functions(unit):
        head = declaration_head(toks, f)
        texts = [toks[k].text for k in head]
        if "constexpr" in texts and _returns_thrust_pair(texts):
            yield drop_word(unit, head.start + texts.index("constexpr"), RULE)


def _returns_thrust_pair(texts: list[str]) -> bool:
    """The head names `thrust::pair` (its return type: a parameter list comes after it)."""
    return any(texts[k : k + 3] == ["thrust", "::", "pair"] for k in range(len(texts) - 2))
