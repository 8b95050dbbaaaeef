"""Spell out the members of CUDA's cooperative groups that HIP's do not have.

CUDA 11+'s `grid_group` answers `block_rank()`, `num_blocks()`, `block_index()` and
`dim_blocks()`, and its `thread_block` answers `dim_threads()`; ROCm 7.2.4's
`amd_hip_cooperative_groups.h` declares none of them ("no member named 'block_rank' in
'cooperative_groups::grid_group'": BoldWinds's reductions, compile round 52, 2 TUs).  Each is a
plain function of the built-in indices, so the call becomes that expression: the grid's blocks
are ranked x fastest, as CUDA ranks them.  A call is rewritten only on a group the file makes
with `this_grid()` / `this_thread_block()` (a variable initialised by it, or the call itself)
or a function takes as a parameter of the group's type, so a class of the user's own with such
a member keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import function_at
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "cg-group-members"

# member -> (the call that makes the group it belongs to, its value)
_MEMBERS = {
    "block_rank": ("this_grid", "(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))"),
    "num_blocks": ("this_grid", "(gridDim.x * gridDim.y * gridDim.z)"),
    "block_index": ("this_grid", "dim3(blockIdx.x, blockIdx.y, blockIdx.z)"),
    "dim_blocks": ("this_grid", "dim3(gridDim.x, gridDim.y, gridDim.z)"),
    "dim_threads": ("this_thread_block", "dim3(blockDim.x, blockDim.y, blockDim.z)"),
}
# the type of the group each maker makes, as a parameter names it (`const cg::grid_group& g`)
_TYPES = {"this_grid": "grid_group", "this_thread_block": "thread_block"}


@rewrite_pass(RULE, order=40)
def cg_group_members(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for member in _MEMBERS.keys() & unit.identifiers:
        maker, value = _MEMBERS[member]
        for k in unit.identifier_positions[member]:
            if k < 2 or k + 2 >= len(toks) or toks[k - 1].text != ".":
                continue
            if toks[k + 1].text != "(" or toks[k + 2].text != ")":
                continue
            start = _group_start(unit, k - 2, maker)
            if start is not None:
                yield Edit(toks[start].start, toks[k + 2].end, value, RULE)


def _group_start(unit: Unit, last: int, maker: str) -> int | None:
    """The first token of the group expression that ends at token ``last`` when it is a
    group ``maker`` makes: `cg::this_grid()` itself, a variable of the function the statement
    `auto grid = cg::this_grid();` declares, or a parameter of the group's type; else None."""
    toks = unit.tokens
    if toks[last].text == ")" and toks[last - 1].text == "(" and toks[last - 2].text == maker:
        first = last - 2
        while first >= 2 and toks[first - 1].text == "::" and toks[first - 2].kind is Kind.IDENT:
            first -= 2
        return first
    if toks[last].kind is not Kind.IDENT or (last > 0 and toks[last - 1].text in (".", "->")):
        return None
    func = function_at(unit, last)
    if func is None:
        return None
    opened, closed = func.params
    for j in unit.identifier_positions.get(toks[last].text, ()):
        if func.open < j < last and toks[j + 1].text == "=" and _makes(unit, j + 2, maker):
            return last
        if opened < j < closed and toks[j + 1].text in (",", ")"):
            first = j
            while toks[first - 1].text not in (",", "("):
                first -= 1
            if any(t.text == _TYPES[maker] for t in toks[first:j]):
                return last
    return None


def _makes(unit: Unit, at: int, maker: str) -> bool:
    """The tokens from ``at`` are `[ns::]maker();`."""
    toks = unit.tokens
    while at + 1 < len(toks) and toks[at + 1].text == "::":
        at += 2
    texts = [t.text for t in toks[at : at + 4]]
    return texts == [maker, "(", ")", ";"]
