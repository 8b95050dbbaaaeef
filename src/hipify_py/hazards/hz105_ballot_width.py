"""HZ105 ballot-truncated

## What it detects
The result of `__ballot`, `__ballot_sync`, `__activemask` (or a `__lanemask_*` helper) stored
in a 32-bit variable (`unsigned`, `int`, `uint32_t`), assigned to one, or passed to the 32-bit
bit intrinsics `__popc`, `__ffs`, `__clz`, `__brev` directly or through a variable.

## Why it breaks on AMD
HIP's vote and mask functions return a **64-bit** `unsigned long long`: one bit per lane of a
64-lane wavefront on MI300X (gfx942). Storing it in 32 bits drops lanes 32-63, so counts are
halved and `__ffs` never finds a voter in the upper half.

## Example
```cuda
unsigned m = __ballot_sync(0xffffffff, pred);   // HZ105 (unsafe fix: unsigned long long)
int voters = __popc(__ballot(pred));            // HZ105: use __popcll
```

## How to fix
Store masks in `unsigned long long` (or `uint64_t`, or a per-backend `lane_mask_t`), and use
`__popcll`, `__ffsll`, `__clzll`, `__brevll` on them. The offered fix widens the declared type
and turns every `__popc`/`__ffs`/`__clz`/`__brev` the variable reaches later in the function into
its 64-bit form (on an `unsigned long long`, HIP's 32-bit overloads are an ambiguous call); it is
unsafe because later code (`1 << lane`, `%x` printing) may still assume 32 bits.

In code of consistent 32-lane groups (`lane = tid & 31`, `group = tid >> 5`) a 64-lane
ballot holds the votes of two groups, and `__popcll` would add them: there the message says to
count the group's own half, `__popcll((__ballot_sync(m, p) >> (__lane_id() & 32)) &
0xffffffffULL)`, and HZ101 leaves the group ids alone.

Not reported: a ballot that only lanes 0-31 take (`if (threadIdx.x < 32)`, a helper called
only there), or whose predicate is false past lane 31 (`tid < blockSize / warpSize`: a block
has at most 32 warps), since 32 bits hold every vote.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.bit_intrinsics import BIT32, NARROW_MASK_TYPE, bit_calls_on
from ..analysis.calls import BALLOTS, Call, calls
from ..analysis.cursor import cursor_at
from ..analysis.declared_types import local_declaration, type_size
from ..analysis.functions import function_at, scope_of
from ..analysis.low_lanes import low_lanes_reach, votes_below_32
from ..analysis.warp_model import counted_in_groups, related
from ..context import Context
from ..findings import Finding, Fix, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_BIT32 = BIT32


_TYPE_WORDS = frozenset(
    {
        "unsigned",
        "int",
        "long",
        "short",
        "uint32_t",
        "int32_t",
        "uint64_t",
        "int64_t",
        "uint",
        "const",
        "auto",
        "static_cast",
        "reinterpret_cast",
        "lane_mask_t",
        "mask_t",
        "size_t",
        "volatile",
    }
)


def _size_of_name(unit: Unit, tok: Token) -> tuple[int | None, str]:
    """The size and type of the variable named at ``tok``, from the AST; none when the cursor
    there is not that name (a parse that failed around it gives the enclosing class: Kokkos'
    `UniqueToken` for its `done_active`, round 19)."""
    cur = cursor_at(unit, tok.start)
    if cur is None or cur.spelling != tok.text:
        return None, ""
    size = cur.type.get_canonical().get_size()
    return (size if size > 0 else None), cur.type.spelling


def _rhs_is_call(toks: Sequence[Token], eq: int, call: Call, end: int) -> bool:
    """tokens (eq, end) are only parentheses/casts around the call."""
    for k in range(eq + 1, call.index):
        if toks[k].text not in ("(", ")", "<", ">") and toks[k].text not in _TYPE_WORDS:
            return False
    return all(toks[k].text == ")" for k in range(call.close + 1, end))


@hazard_rule(
    "HZ105",
    "ballot-truncated",
    Severity.ERROR,
    "64-bit ballot/activemask result truncated to 32 bits",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ballots = list(calls(unit, BALLOTS))
    if not ballots:
        return
    toks = unit.tokens
    # (name, function scope) -> where a ballot is stored in it, and whether lanes 32-63 vote
    mask_vars: dict[tuple[str, int], list[tuple[int, bool]]] = {}
    covered: set[int] = set()  # bit intrinsics a reported store lists as its dependent lines
    bit_calls = {c.open: c for c in calls(unit, _BIT32)}
    for c in ballots:
        # only lanes 0-31 vote, or vote true: 32 bits hold every vote
        low = low_lanes_reach(unit, c.index) or bool(c.args and votes_below_32(unit, *c.args[-1]))
        # `T name = ballot(...);` or `name = ballot(...);`; read by lanes 0-31 alone, its low
        # 32 bits are all they need
        store = _assignment(toks, c)
        low = low or (store is not None and _read_in_low_lanes_only(unit, *store))
        if store is not None:
            key = (toks[store[0] - 1].text, scope_of(unit, store[0]))
            mask_vars.setdefault(key, []).append((c.index, not low))
        # 1. the whole argument of a 32-bit bit intrinsic: __popc(__ballot(p))
        outer = _bit_call_around(toks, c, bit_calls)
        if low:
            if outer is not None and outer.name == "__ffs":  # whatever lanes vote
                yield report(toks[outer.index].start, toks[outer.close].end, _ambiguous(c))
            continue
        if outer is not None:
            yield report(
                toks[outer.index].start,
                toks[outer.close].end,
                _counted_message(unit, outer, c),
            )
            continue
        # 2. stored in a 32-bit variable
        if store is None:
            continue
        found = _truncating_store(unit, report, c, store[0], store[1])
        if found is not None:
            covered.update(u.open for u in found[1])
            yield found[0]
    # 3. a mask variable of the same function passed to a 32-bit bit intrinsic: __popc(mask),
    # unless it is a dependent line of the store reported above (its fix changes that call too)
    yield from _bits_of_masks(unit, report, bit_calls, mask_vars, covered)


def _ambiguous(c: Call) -> str:
    """What a `__ffs(ballot)` finding says where only lanes 0-31 vote: the call does not
    compile (taichi's `__ffs(__ballot_sync(__activemask(), 1))` in a one-thread launch,
    compile round 32)."""
    return (
        f"`__ffs` on a `{c.name}` result is ambiguous in HIP, whose masks are 64-bit "
        "(`__ffs` has `int` and `unsigned int` overloads): use `__ffsll`"
    )


def _counted_message(unit: Unit, outer: Call, c: Call) -> str:
    """What a `__popc(ballot)` finding says: in code of consistent 32-lane groups the 64-bit
    count adds two groups' votes, so the group's own half is what to count."""
    if counted_in_groups(unit, function_at(unit, c.index)):
        return (
            f"`{outer.name}` on `{c.name}` result counts only lanes 0-31, and in this code of "
            f"32-lane groups the 64-lane ballot holds the votes of two groups: count the "
            f"group's own half, `__popcll(({c.name}(...) >> (__lane_id() & 32)) & "
            f"0xffffffffULL)` (the 32-lane ids stay right)"
        )
    wide = _BIT32[outer.name]
    return (
        f"`{outer.name}` on `{c.name}` result counts only 32 lanes: use `{wide}` on the 64-bit mask"
    )


def _bits_of_masks(
    unit: Unit,
    report: Report,
    bit_calls: dict[int, Call],
    mask_vars: dict[tuple[str, int], list[tuple[int, bool]]],
    covered: set[int],
) -> Iterator[Finding]:
    """Step 3 of ``check``: `__popc(mask)` on a mask variable that holds a ballot of its
    function, one finding per mask (the others its dependent lines)."""
    toks = unit.tokens
    for outer in bit_calls.values() if mask_vars else ():
        if outer.open in covered:
            continue
        scope = scope_of(unit, outer.index)
        names = {t.text for a, b in outer.args for t in toks[a:b] if t.kind is Kind.IDENT}
        hit = sorted(n for n in names if _wide_vote_before(mask_vars.get((n, scope)), outer))
        if hit:
            var = hit[0]
            yield report(
                toks[outer.index].start,
                toks[outer.close].end,
                f"`{outer.name}` on ballot mask `{var}` counts only 32 "
                f"lanes: use `{_BIT32[outer.name]}` on the 64-bit mask",
                # one mask of one function is one fix (widen it): one finding, the rest its lines
                extra={"root_cause": f"{var}@{scope}"},
            )


def _wide_vote_before(stores: list[tuple[int, bool]] | None, call: Call) -> bool:
    """The last ballot stored in the mask before ``call`` (else the first after it: a loop)
    is one that lanes 32-63 vote in."""
    if not stores:
        return False
    before = [s for s in stores if s[0] < call.index]
    return (before[-1] if before else stores[0])[1]


# what makes one bit of a ballot: `__popc(__activemask() == 1)` counts a truth value
_TRUTH_VALUES = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "?"})


def _bit_call_around(toks: Sequence[Token], c: Call, bit_calls: dict[int, Call]) -> Call | None:
    """The 32-bit bit intrinsic whose only argument starts with the ballot ``c`` (`__popc(bal &
    key)` too), or None; not one that counts a comparison's one bit (cuOpt's
    `__popc(__activemask() == 1)`, round 33)."""
    k = c.index - 1
    while k >= 0 and toks[k].text == "(" and k not in bit_calls:
        k -= 1
    outer = bit_calls.get(k)
    if outer is None or not outer.args or len(outer.args) != 1:
        return None
    after = range(c.close + 1, outer.close)
    return None if any(toks[j].text in _TRUTH_VALUES for j in after) else outer


def _assignment(toks: Sequence[Token], c: Call) -> tuple[int, int] | None:
    """(the '=' token, the end of the statement) when the ballot ``c`` is the whole right side
    of `T name = ballot(...);` or `name = ballot(...);`, else None."""
    stmt_end = c.close + 1
    while stmt_end < len(toks) and toks[stmt_end].text == ")":
        stmt_end += 1
    if stmt_end >= len(toks) or toks[stmt_end].text not in (";", ","):
        return None
    eq = c.index - 1
    while eq > 0 and toks[eq].text != "=" and toks[eq].text not in (";", "{", "}"):
        eq -= 1
    if (
        toks[eq].text != "="
        or toks[eq - 1].kind is not Kind.IDENT
        or not _rhs_is_call(toks, eq, c, stmt_end)
    ):
        return None
    return eq, stmt_end


def _read_in_low_lanes_only(unit: Unit, eq: int, stmt_end: int) -> bool:
    """Every read of the variable the ballot is stored in (its name before token ``eq``) lies in
    code only lanes 0-31 run: all lanes vote, but only the first 32 read the word, whose 32 bits
    are theirs (PhysX's `mask_idx`, a warp scan's mask inside `if (warpIndex == 0 ...)`, round
    31)."""
    func = function_at(unit, eq)
    if func is None:
        return False
    reads = [
        j
        for j in unit.identifier_positions.get(unit.tokens[eq - 1].text, ())
        if stmt_end < j < func.close
    ]
    return bool(reads) and all(low_lanes_reach(unit, j) for j in reads)


def _truncating_store(
    unit: Unit, report: Report, c: Call, eq: int, stmt_end: int
) -> tuple[Finding, list[Call]] | None:
    """The finding for a ballot stored in a variable narrower than 64 bits, with the 32-bit
    bit intrinsics it reaches (its dependent lines), or None.  Its fix
    widens the declaration and every 32-bit bit intrinsic the variable later reaches in the
    same function (`__ffs(mask)` on a 64-bit value is an ambiguous call in HIP)."""
    toks = unit.tokens
    name = toks[eq - 1]
    uses = list(bit_calls_on(unit, eq - 1))
    first = eq - 1
    while (
        first > 0
        and toks[first - 1].text not in (";", "{", "}", ",", "(")
        and not toks[first - 1].in_directive
    ):
        first -= 1
    head = unit.text[toks[first].start : name.start] if first < eq - 1 else ""
    # the declared type as the HIP build sees it (a per-platform `lane_mask_t` typedef),
    # else the AST's (which knows only the CUDA side of #if tests), else the words
    size, spelling = type_size(unit, head), head.strip()
    if size is None:
        size, spelling = _size_of_name(unit, name)
    if size is None and not head and (declared := local_declaration(unit, name)) is not None:
        spelling = declared.type  # the parse could not resolve it: the declaration's words
        size = type_size(unit, spelling) or (4 if NARROW_MASK_TYPE.match(spelling + " ") else None)
    if size is None and NARROW_MASK_TYPE.match(head):
        size = 4
    if size is None or size >= 8:
        return None
    if "auto" in head.split():
        return None  # the hermetic stub types ballots as int; auto follows HIP's real type
    fix = None
    m = NARROW_MASK_TYPE.match(head)
    what = "stored in" if head.strip() else "assigned to"
    if counted_in_groups(unit, function_at(unit, c.index)):
        # widening would keep two groups' votes in a word each group reads as its own
        return report(
            toks[first].start,
            toks[stmt_end - 1].end,
            f"`{c.name}` result {what} 32-bit `{head.strip() or spelling} {name.text}`: in this "
            f"code of 32-lane groups the 64-lane ballot holds the votes of two groups, and lanes "
            f"32-63 keep the lower group's: keep the group's own half, `(unsigned)({c.name}(...) "
            f">> (__lane_id() & 32))` (the 32-lane ids and bit counts on it stay right)",
        ), uses
    if m:
        base = toks[first].start
        fix = Fix(
            (
                report.edit(base + m.start(1), base + m.end(1), "unsigned long long"),
                *(
                    report.edit(toks[u.index].start, toks[u.index].end, _BIT32[u.name])
                    for u in uses
                ),
            ),
            "declare the mask as unsigned long long"
            + (" and use the 64-bit bit intrinsics on it" if uses else ""),
            safe=False,
        )
    more = related(unit, [u.index for u in uses], eq)
    counted = (
        f"; the {', '.join(sorted({f'`{u.name}`' for u in uses}))} on it count only 32 lanes "
        f"too (use the 64-bit forms){more.note}"
        if uses
        else ""
    )
    # the declaration as written (cuDF's `bitmask_type const`, which a parse without its
    # header reads as `const int`, round 24), else the type the parse or the words give
    finding = report(
        toks[first].start,
        toks[stmt_end - 1].end,
        f"`{c.name}` result {what} 32-bit `{head.strip() or spelling} "
        f"{name.text}`: HIP masks are 64-bit, lanes 32-63 are lost{counted}",
        fix=fix,
        extra=more.extra,
    )
    return finding, uses
