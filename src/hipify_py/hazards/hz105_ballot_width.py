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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..analysis.bit_intrinsics import BIT32, bit_calls_on
from ..analysis.calls import BALLOTS, Call, calls
from ..analysis.cursor import cursor_at
from ..analysis.functions import enclosing_conditions, function_at, scope_of
from ..analysis.values import evaluate, type_size
from ..analysis.warp_model import related
from ..context import Context
from ..findings import Finding, Fix, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_BIT32 = BIT32
_NARROW_TYPE = re.compile(
    r"^\s*(?:const\s+)?(unsigned(?:\s+int)?|int|uint32_t|int32_t|unsigned\s+long|uint|"
    r"unsigned\s+short)\s+$"
)


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
    cur = cursor_at(unit, tok.start)
    if cur is None:
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
        if _low_lanes_only(unit, c):  # only lanes 0-31 vote: 32 bits hold every vote
            store = _assignment(toks, c)
            if store is not None:
                key = (toks[store[0] - 1].text, scope_of(unit, store[0]))
                mask_vars.setdefault(key, []).append((c.index, False))
            continue
        # 1. the whole argument of a 32-bit bit intrinsic: __popc(__ballot(p))
        outer = _bit_call_around(toks, c, bit_calls)
        if outer is not None:
            yield report(
                toks[outer.index].start,
                toks[outer.close].end,
                f"`{outer.name}` on `{c.name}` result counts only 32 lanes: use "
                f"`{_BIT32[outer.name]}` on the 64-bit mask",
            )
            continue
        # 2. stored: `T name = ballot(...);` or `name = ballot(...);`
        store = _assignment(toks, c)
        if store is None:
            continue
        key = (toks[store[0] - 1].text, scope_of(unit, store[0]))
        mask_vars.setdefault(key, []).append((c.index, True))
        found = _truncating_store(unit, report, c, store[0], store[1])
        if found is not None:
            covered.update(u.open for u in found[1])
            yield found[0]
    # 3. a mask variable of the same function passed to a 32-bit bit intrinsic: __popc(mask),
    # unless it is a dependent line of the store reported above (its fix changes that call too)
    yield from _bits_of_masks(unit, report, bit_calls, mask_vars, covered)


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


# a thread or lane id, as a condition's left side spells it
_THREAD_IDS = frozenset({"threadIdx.x", "tid", "lane", "laneid", "lane_id", "laneId", "tx"})


def _low_lanes_only(unit: Unit, c: Call) -> bool:
    """The ballot ``c`` runs only in lanes 0-31, so its upper 32 bits are zero: in the
    then-branch of an `if` whose condition requires a thread or lane id below 32 (`if
    (threadIdx.x < 32)`, `if (lane < WARP_SIZE && ...)` with WARP_SIZE 32 in the file;
    TransformerEngine's standalone_topk, round 11) or a 32-lane group index of 0 (`if (warp
    == 0)` with `warp = tid / 32`), or after `if (threadIdx.x >= 32) return;` at the top of
    its function (flashinfer's MoE routing, round 12)."""
    func = function_at(unit, c.index)
    if func is None:
        return False
    toks = unit.tokens
    for keyword, first, end in enclosing_conditions(unit, c.index, func):
        if keyword != "if" or not _in_then_branch(unit, end + 1, c.index):
            continue
        if any(_below_32(unit, a, b) for a, b in _conjuncts(toks, first, end)):
            return True
    return _returned_from_32(unit, func.open, c.index)


# a test of a token range [a, b) of a unit: `_group_of_32`, `_groups_rounded_up`
_Form = Callable[[Unit, int, int], bool]


def _below_32(unit: Unit, a: int, b: int) -> bool:
    """The condition ``tokens[a:b]`` holds only for lanes 0-31: `tid < 32`, `lane <= 31`,
    `group == 0` where the group index is a thread id divided by 32 (`tid / 32`, `tid >> 5`),
    or `warps == 1` where the count of 32-lane groups in the block is rounded up (`(BLOCK + 32
    - 1) / 32`: a block of at most 32 threads; warp's tile reductions, round 13)."""
    toks = unit.tokens
    equal = [k for k in range(a, b) if toks[k].text == "=="]
    if len(equal) != 1:
        return _lanes_cut(unit, a, b, ("<", "<="))
    k = equal[0]
    value = evaluate(unit, k + 1, b)
    if value == 0:
        return _matches_initializer(unit, a, k, _group_of_32)
    return value == 1 and _matches_initializer(unit, a, k, _groups_rounded_up)


def _matches_initializer(unit: Unit, a: int, b: int, form: _Form) -> bool:
    """``tokens[a:b]``, or the initialiser of the name it is where the function declares it
    (`int warp = tid / 32;`), has the ``form``.  Not through a call: gsplat's
    `__shfl_sync(~0u, threadIdx.x >> 5, 0)` broadcasts lane 0's group to all 64 lanes of a
    wavefront, so lanes 32-63 take group 0 too (round 5)."""
    toks = unit.tokens
    if form(unit, a, b):
        return True
    func = function_at(unit, a)
    if b - a != 1 or toks[a].kind is not Kind.IDENT or func is None:
        return False
    for d in unit.identifier_positions.get(toks[a].text, ()):
        if func.open < d < a and toks[d - 1].kind is Kind.IDENT and toks[d + 1].text == "=":
            end = next((j for j in range(d + 2, min(d + 40, func.close)) if toks[j].text == ";"), d)
            return form(unit, d + 2, end)
    return False


def _group_of_32(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` is a thread id divided into 32-lane groups: `tid / 32`,
    `threadIdx.x >> 5`, `(tid) / WARP_SIZE` with WARP_SIZE 32."""
    toks = unit.tokens
    op = next((k for k in range(a, b) if toks[k].text in ("/", ">>")), None)
    if op is None or "".join(t.text for t in toks[a:op]).strip("()") not in _THREAD_IDS:
        return False
    return evaluate(unit, op + 1, b) == (32 if toks[op].text == "/" else 5)


def _groups_rounded_up(unit: Unit, a: int, b: int) -> bool:
    """``tokens[a:b]`` counts a block's 32-lane groups rounded up, `(BLOCK + W - 1) / W` with
    W 32 (or `(BLOCK + 31) / 32`): 1 only for blocks of at most 32 threads."""
    toks = unit.tokens
    close = unit.lexed.brackets.get(a) if toks[a].text == "(" else None
    if close is None or close + 1 >= b or toks[close + 1].text != "/":
        return False
    if evaluate(unit, close + 2, b) != 32:
        return False
    plus = next((k for k in range(a + 1, close) if toks[k].text == "+"), None)
    return plus is not None and evaluate(unit, plus + 1, close) == 31


def _returned_from_32(unit: Unit, open_: int, i: int) -> bool:
    """`if (threadIdx.x >= 32) return;` (or `> 31`) at the top level of the function body
    that opens at ``open_``, before token ``i``."""
    toks = unit.tokens
    depth = 0
    for k in range(open_ + 1, i):
        text = toks[k].text
        depth += (text == "{") - (text == "}")
        if depth or text != "if" or toks[k + 1].text != "(":
            continue
        close = unit.lexed.brackets.get(k + 1)
        if close is None or close + 1 >= i or toks[close + 1].text != "return":
            continue
        if _lanes_cut(unit, k + 2, close, (">=", ">")):
            return True
    return False


def _lanes_cut(unit: Unit, a: int, b: int, ops: tuple[str, str]) -> bool:
    """``tokens[a:b]`` is one comparison of a thread or lane id by one of ``ops`` that parts
    lanes 0-31 from the rest: `< 32` or `<= 31` (the lanes kept), `>= 32` or `> 31` (the
    lanes sent away)."""
    toks = unit.tokens
    found = [k for k in range(a, b) if toks[k].text in ops]
    if len(found) != 1 or "".join(t.text for t in toks[a : found[0]]) not in _THREAD_IDS:
        return False
    bound = evaluate(unit, found[0] + 1, b)
    return bound is not None and bound <= (32 if toks[found[0]].text in ("<", ">=") else 31)


def _conjuncts(toks: Sequence[Token], first: int, end: int) -> list[tuple[int, int]]:
    """The token ranges of ``toks[first:end]`` joined by top-level `&&`."""
    out, start, depth = [], first, 0
    for k in range(first, end):
        depth += (toks[k].text == "(") - (toks[k].text == ")")
        if depth == 0 and toks[k].text == "&&":
            out.append((start, k))
            start = k + 1
    out.append((start, end))
    return out


def _in_then_branch(unit: Unit, body: int, i: int) -> bool:
    """Token ``i`` is in the statement that starts at token ``body`` (an if's then-branch),
    not in an `else` after it."""
    toks = unit.tokens
    if body >= len(toks):
        return False
    if toks[body].text == "{":
        close = unit.lexed.brackets.get(body)
        return close is not None and body < i < close
    return not any(toks[k].text == ";" for k in range(body, i))


def _bit_call_around(toks: Sequence[Token], c: Call, bit_calls: dict[int, Call]) -> Call | None:
    """The 32-bit bit intrinsic whose only argument is the ballot ``c``, or None."""
    k = c.index - 1
    while k >= 0 and toks[k].text == "(" and k not in bit_calls:
        k -= 1
    outer = bit_calls.get(k)
    return outer if outer is not None and outer.args and len(outer.args) == 1 else None


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
    if size is None and _NARROW_TYPE.match(head):
        size = 4
    if size is None or size >= 8:
        return None
    if "auto" in head.split():
        return None  # the hermetic stub types ballots as int; auto follows HIP's real type
    fix = None
    m = _NARROW_TYPE.match(head)
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
    what = "stored in" if head.strip() else "assigned to"
    more = related(unit, [u.index for u in uses], eq)
    counted = (
        f"; the {', '.join(sorted({f'`{u.name}`' for u in uses}))} on it count only 32 lanes "
        f"too (use the 64-bit forms){more.note}"
        if uses
        else ""
    )
    finding = report(
        toks[first].start,
        toks[stmt_end - 1].end,
        f"`{c.name}` result {what} 32-bit `{spelling or head.strip()} "
        f"{name.text}`: HIP masks are 64-bit, lanes 32-63 are lost{counted}",
        fix=fix,
        extra=more.extra,
    )
    return finding, uses
