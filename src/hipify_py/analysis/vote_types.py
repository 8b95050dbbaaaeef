"""Which declared types are a vote's: HIP types `__activemask()` and the ballots as 64-bit
`unsigned long long`, also where code names that type only through the vote (`auto`,
`decltype`), which the parse's stub types read as `int`."""

from __future__ import annotations

import re

from ..frontend.unit import Unit

# the votes whose result HIP types as a 64-bit unsigned long long
VOTES = frozenset({"__activemask", "__ballot_sync", "__ballot"})
_DECLTYPE = re.compile(r"decltype\s*\(\s*(\w+)\s*([()])")


def vote_typed(unit: Unit, declared: str) -> bool:
    """``declared`` is the type of a vote, as FBGEMM's ROCm helpers write a mask type
    (`using mask_t = std::remove_const_t<decltype(active_mask)>;` after `const auto
    active_mask = __activemask();`, round 23): `decltype(__activemask())`, or `decltype(v)`
    of a variable the file initialises from a vote."""
    m = _DECLTYPE.search(declared)
    if m is None:
        return False
    name = m.group(1)
    return name in VOTES if m.group(2) == "(" else holds_a_vote(unit, name)


def holds_a_vote(unit: Unit, name: str) -> bool:
    """The file initialises or assigns variable ``name`` from a vote (`const auto m =
    __activemask();`): where its type is `auto` or `decltype(name)`, it is HIP's 64-bit one."""
    toks = unit.tokens
    return any(
        k + 2 < len(toks) and toks[k + 1].text == "=" and toks[k + 2].text in VOTES
        for k in unit.identifier_positions.get(name, ())
    )
