"""HZ101 warp-lane-arith-32

## What it detects
Lane and warp arithmetic that hard-codes 32 lanes in a function that also works in hardware
warps: one that uses `warpSize`, `__lane_id()`, a shuffle width of 64, a lane mask of hardware
lanes, a ballot or `__activemask()` (other than as the mask of `_sync` intrinsics), or calls a
helper of the file that does. 32-lane ids on their own are consistent 32-lane groups, which
compute the same on a 64-lane wavefront (it holds two groups): they are not reported, and
shuffles that cross a group are reported where the width goes (HZ103). Nor is group code whose
only hardware-warp operation is a ballot it counts (`__popc(__ballot_sync(m, p))`): HZ105
reports that count at the ballot, where the fix goes. One finding per function, at the first
site, lists the others as dependent lines.

The sites are 32-lane idioms on a value derived from the thread index:
`threadIdx.x & 31`, `tid % 32`, `tid >> 5`, `tid / 32`, `lane & 0x1f` and the same on any
variable computed from `threadIdx`, `__lane_id()` or a parameter named like a lane/thread id,
warp counts such as `blockDim.x / 32`, and per-warp strides (`warp_id * 32`, `nwarps << 5`).
The operand must derive from thread-index data flow: `% 32` on a tile width or a loop bound is
not reported, nor are bitset word/bit indices (`bits[i / 32] |= 1u << (i % 32)`, `int bit = i &
31;`), column indices of tiles (`tile[row][(c + threadIdx.x) % 32]`, `tile[(ix << 5) + ((dp +
ix) & 31)]`), the rows that store a word of a bitmask (`if (row % 32 == 0) mask[word_index(row)]
= bits;`: the ballot in it is HZ105's), bits moved around (`(qh >> 5) & 0x1000`), indices inside
a data block of another size (`iqs % 32` after `iqs = i % QK`), branches for a tile shape (`if
constexpr (I == 32)`), functions working on `cg::tiled_partition<32>` tiles (32 threads on every
GPU) and checksum/hash code. Uses of a warp-size constant defined as 32 are
reported once, at the definition (HZ107).

## Why it breaks on AMD
MI300X (gfx942, CDNA3) runs wavefronts of **64** lanes and the wave size cannot be changed on
CDNA. `tid & 31` gives lanes 32-63 the same lane id as lanes 0-31, and `tid / 32` gives two
"warp ids" per wavefront: reductions then sum half a wave, per-warp shared slots collide, and
code that elects "lane 0" runs twice per wavefront.

## Example
```cuda
int lane = threadIdx.x & 31;      // HZ101 (dependent line: the next one)
int warp = threadIdx.x / 32;
unsigned b = __ballot_sync(0xffffffffu, v > 0);
if (lane == 0) count[warp] = __popc(b);   // lanes 32-63 count the lower half again
```

## How to fix
Use the wavefront size: `threadIdx.x % warpSize` and `threadIdx.x / warpSize` (a run-time
value in HIP 7), or `__lane_id()`. If the algorithm really works on groups of 32 lanes, make
that explicit (a named `kGroup = 32` constant and shuffles with `width = 32`). This is never
rewritten automatically.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from ..analysis.bit_words import NOT_LANES, bit_data
from ..analysis.functions import Func, enclosing_conditions, function_at
from ..analysis.taint import thread_taint
from ..analysis.tokens import one_per_line, operand_before, text_of
from ..analysis.values import constant_at, int_value
from ..analysis.warp_constants import reported_names
from ..analysis.warp_model import counted_in_groups, meets_hardware_warp, related
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

# operator -> the literal that assumes 32 lanes
_PATTERNS = {
    "&": {31},
    "%": {32},
    ">>": {5},
    "/": {32},
    "%=": {32},
    "&=": {31},
    ">>=": {5},
    "/=": {32},
}

# (first token, last token + 1, text) of one 32-lane idiom
Site = tuple[int, int, str]


def sites(unit: Unit) -> list[Site]:
    """(first token, last token + 1, text) of every 32-lane idiom on thread-derived data.

    Candidates come from what the tokens around an operator say (a 32-lane literal or
    constant, a warp-id name); only then is the function around one looked up, so a file
    without any never pays for finding its functions."""
    toks = unit.tokens
    out: list[Site] = []
    skipped: dict[int, bool] = {}  # function (by its '{') -> not lane code
    for i, stride in _candidates(unit):
        func = function_at(unit, i)
        if func is None:
            continue
        if func.open not in skipped:
            # checksums mix bits of the thread index; tiles of 32 are 32 everywhere
            skipped[func.open] = bool(
                NOT_LANES.search(func.name)
                or _uses_tiles_of_32(toks, func, unit.identifier_positions)
            )
        site = None if skipped[func.open] else stride or _lane_arith(unit, i, func)
        if site:
            out.append(site)
    return out


def _candidates(unit: Unit) -> list[tuple[int, Site | None]]:
    """(operator token, its site when it is a warp stride) in token order: each operator of
    ``_PATTERNS`` before one of its literals or a constant that may be one, and each
    `warp_id * 32`-like stride."""
    toks = unit.tokens
    lane_constants = None
    found: list[tuple[int, Site | None]] = []
    last = len(toks) - 1
    for i in unit.operators_spelled(_PATTERNS):
        if i == last:  # an operator needs a token after it
            break
        nxt = toks[i + 1]
        if nxt.kind is Kind.NUMBER:
            if int_value(nxt.text) not in _PATTERNS[toks[i].text]:
                continue
        elif nxt.kind is Kind.IDENT:
            if lane_constants is None:
                lane_constants = _lane_constants(unit)
            if nxt.text not in lane_constants:
                continue
        else:
            continue
        if toks[i].kind is Kind.PUNCT and _operator_shape(toks, i):
            found.append((i, None))
    found.extend(_strides(unit))
    return sorted(found, key=lambda c: c[0])


def _operator_shape(toks: Sequence[Token], i: int) -> bool:
    """Operator ``i`` is binary (after an operand, not a unary `&x`) and its right operand is
    the literal or constant alone (not `x / N(...)`, `x % N[k]`, `x & N.y`)."""
    if i + 2 < len(toks) and toks[i + 2].text in ("(", "[", "."):
        return False
    prev = toks[i - 1]
    return i > 0 and not (prev.kind is Kind.PUNCT and prev.text not in (")", "]"))


def _strides(unit: Unit) -> list[tuple[int, Site]]:
    """(operator token, site) of `warp_id * 32`, `32 * warp`, `nwarps << 5`."""
    names = _WARP_IDS.findall(unit.identifier_lines)
    if not names:
        return []
    toks = unit.tokens
    ops: set[int] = set()
    for name in names:
        for k in unit.identifier_positions[name]:
            if k + 1 < len(toks) and toks[k + 1].text in ("*", "<<"):
                ops.add(k + 1)
            if k > 0 and toks[k - 1].text == "*":
                ops.add(k - 1)
    out: list[tuple[int, Site]] = []
    for i in sorted(ops):
        site = _warp_stride(unit, i) if toks[i].kind is Kind.PUNCT else None
        if site:
            out.append((i, site))
    return out


_LANE_VALUES = frozenset(v for values in _PATTERNS.values() for v in values)


def _lane_constants(unit: Unit) -> set[str]:
    """Names that ``constant_at`` may find to be one of the literals of ``_PATTERNS``: a
    `#define NAME <literal>` or `NAME = <literal>;` after `const`/`constexpr`, anywhere;
    without those HZ107 reports."""
    toks = unit.tokens
    out: set[str] = set()
    for i in unit.directives:
        if i + 3 < len(toks) and toks[i + 1].text == "define" and toks[i + 3].kind is Kind.NUMBER:
            if int_value(toks[i + 3].text) in _LANE_VALUES:
                out.add(toks[i + 2].text)
    ids = unit.identifier_positions
    for i in (*ids.get("const", ()), *ids.get("constexpr", ())):
        j = i + 1
        while j + 1 < len(toks) and toks[j].kind is Kind.IDENT and toks[j + 1].kind is Kind.IDENT:
            j += 1
        if (
            j + 3 < len(toks)
            and toks[j + 1].text == "="
            and toks[j + 2].kind is Kind.NUMBER
            and int_value(toks[j + 2].text) in _LANE_VALUES
        ):
            out.add(toks[j].text)
    return out - reported_names(unit) if out else out


def _lane_arith(unit: Unit, i: int, func: Func) -> Site | None:
    """The site of candidate `operand OP literal` at operator token ``i``, when it is lane
    arithmetic."""
    toks = unit.tokens
    t, nxt = toks[i], toks[i + 1]
    if nxt.kind is Kind.IDENT:  # WARP_SIZE, kWarp = 32 (HZ107 reports a warp-size name)
        if constant_at(unit, nxt.text, i + 1) not in _PATTERNS[t.text]:
            return None
    rng = operand_before(toks, i)
    if rng is None or not _thread_derived(unit, toks, i, rng, func):
        return None
    if (
        bit_data(unit, i, rng, func)
        or _index_in_data_block(toks, rng, func)
        or _tile_shape_branch(unit, i, func)
        or _tile_column(toks, rng[0], i + 2)
        or _flat_tile_column(toks, rng[0], i + 2)
    ):
        return None
    return (rng[0], i + 2, text_of(unit, rng[0], i + 2))


def _thread_derived(
    unit: Unit, toks: Sequence[Token], i: int, rng: tuple[int, int], func: Func
) -> bool:
    """The operand of operator ``i`` holds (or counts) thread positions."""
    taint = thread_taint(unit, func)
    if toks[i].text.endswith("="):
        hit = taint.is_tainted(rng[0])
    else:
        hit = taint.any(*rng) is not None
        if (
            not hit
            and toks[i].text in ("/", ">>", "%")
            and any(x.text == "blockDim" for x in toks[rng[0] : rng[1]])
        ):
            hit = True  # blockDim.x / 32: a warp count
    # bit permutations (bank-conflict swizzles) are not lane ids
    return hit and not any(x.text in ("<<", "|", "^") for x in toks[rng[0] : rng[1]])


def _index_in_data_block(toks: Sequence[Token], rng: tuple[int, int], func: Func) -> bool:
    """`iqs % 32` where `iqs = i % QK8_1`: an index inside a block of data whose size is
    another constant, not a lane id."""
    first, end = rng
    if end - first != 1 or toks[first].kind is not Kind.IDENT:
        return False
    name = toks[first].text
    for k in range(func.open + 1, first):
        if toks[k].text == name and toks[k + 1].text == "=" and toks[k - 1].text not in (".", "->"):
            j = k + 2
            while j < func.close and toks[j].text != ";":
                j += 1
            if j - 2 > k + 2 and toks[j - 2].text in ("%", "&"):
                size = toks[j - 1]
                if size.kind is Kind.IDENT and not _WARPISH.search(size.text):
                    return True
                if size.kind is Kind.NUMBER and int_value(size.text) not in (31, 32, 63, 64):
                    return True
    return False


_WARPISH = re.compile(r"warp|wave|lane", re.I)


def _tile_shape_branch(unit: Unit, i: int, func: Func) -> bool:
    """`if constexpr (I == 32 && J == 4) return threadIdx.x % 32;`: the 32 is a tile side."""
    toks = unit.tokens
    for _kw, a, b in enclosing_conditions(unit, i, func):
        for k in range(a, b - 1):
            if toks[k].text == "==" and (
                int_value(toks[k + 1].text) == 32 or int_value(toks[k - 1].text) == 32
            ):
                return True
    return False


def _uses_tiles_of_32(
    toks: Sequence[Token], func: Func, positions: Mapping[str, Sequence[int]]
) -> bool:
    """The function works on `cg::tiled_partition<32>` tiles: groups of 32 threads on every
    GPU, so `threadIdx.x / 32` is the tile index there, not a wavefront index."""
    return any(
        func.params[0] <= k < func.close - 2  # a tile parameter counts too
        and toks[k + 1].text == "<"
        and int_value(toks[k + 2].text) == 32
        for name in ("tiled_partition", "thread_block_tile")
        for k in positions.get(name, ())
    )


def _tile_column(toks: Sequence[Token], first: int, end: int) -> bool:
    """`tile[row][col % 32]`: the whole inner subscript of a 2-D tile is a column index."""
    return (
        first >= 2
        and toks[first - 1].text == "["
        and toks[first - 2].text == "]"
        and end < len(toks)
        and toks[end].text == "]"
    )


_WARP_ID = re.compile(r"^(?:n_?|num_?)?warps?(?:_?(?:id|idx|index|no|num))?$|^wid$", re.I)
_WARP_IDS = re.compile(_WARP_ID.pattern, re.I | re.M)  # every one in a list of names
# the same names as whole words of the text (a superset: ``_WARP_ID`` decides)
_WARP_ID_TEXT = re.compile(r"\b(?:n_?|num_?)?warps?(?:_?(?:id|idx|index|no|num))?\b|\bwid\b", re.I)


def _warp_stride(unit: Unit, i: int) -> Site | None:
    """`warp_id * 32`, `32 * warp`, `nwarps << 5`: a per-warp stride of 32 elements."""
    toks = unit.tokens
    if i < 2 or i + 2 >= len(toks):  # no operand pair with a token on each side (file edge)
        return None
    op = toks[i].text
    left, right = toks[i - 1], toks[i + 1]
    ends = (";", ",", ")", "]", "+", "-", "}")
    pairs: list[tuple[Token, Token, int, int]] = []
    if (
        left.kind is Kind.IDENT
        and right.kind is Kind.NUMBER
        and toks[i - 2].text not in (".", "->")
    ):
        if toks[i + 2].text in ends:
            pairs.append((left, right, i - 1, i + 2))
    if op == "*" and left.kind is Kind.NUMBER and right.kind is Kind.IDENT:
        if toks[i + 2].text in ends and toks[i - 2].text in ("=", "(", "[", "+", ",", "return"):
            pairs.append((right, left, i - 1, i + 2))
    for name, number, first, end in pairs:
        want = 5 if op == "<<" else 32
        if _WARP_ID.match(name.text) and int_value(number.text) == want:
            return (first, end, text_of(unit, first, end))
    return None


def _flat_tile_column(toks: Sequence[Token], first: int, end: int) -> bool:
    """`tile[(row << 5) + (col & 31)]`: a row-major tile index whose column wraps at 32."""
    k = _enclosing_subscript(toks, first)
    if k is None:
        return False
    close = _closing(toks, k)
    inner = toks[k + 1 : close]
    return any(
        t.text in ("<<", "*")
        and j + 1 < len(inner)
        and int_value(inner[j + 1].text) in (5, 32, 33)
        and k + 1 + j < first
        for j, t in enumerate(inner)
    )


def _enclosing_subscript(toks: Sequence[Token], first: int) -> int | None:
    """The ``[`` of the subscript that holds token ``first`` (within its statement), if any."""
    k, depth = first - 1, 0
    while k >= 0:
        x = toks[k].text
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth == 0:
                if x == "[":
                    return k
            else:
                depth -= 1
        elif x in (";", "{", "}"):
            return None
        k -= 1
    return None


def _closing(toks: Sequence[Token], k: int) -> int:
    """The bracket closing the one at ``k``, counting ``()`` and ``[]`` alike (the end of the
    tokens if it does not close)."""
    close, depth = k, 0
    while close < len(toks):
        x = toks[close].text
        if x in ("(", "["):
            depth += 1
        elif x in (")", "]"):
            depth -= 1
            if depth == 0:
                break
        close += 1
    return close


@hazard_rule(
    "HZ101",
    "warp-lane-arith-32",
    Severity.ERROR,
    "lane/warp index arithmetic that assumes 32-lane warps",
    bites=RUN,
    opt_in=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    by_func: dict[int, list[Site]] = {}
    for site in sites(unit):
        func = function_at(unit, site[0])
        if func is None:
            continue
        by_func.setdefault(func.open, []).append(site)
    found: list[Finding] = []
    for group in by_func.values():
        first, end, text = group[0]
        helper = meets_hardware_warp(unit, function_at(unit, first))
        if helper is None:
            continue  # 32-lane groups alone compute the same on a 64-lane wavefront
        if counted_in_groups(unit, function_at(unit, first)):
            continue  # HZ105 reports the count at the ballot, where the fix goes
        more = related(unit, [s[0] for s in group[1:]], first)
        where = "this function" if helper == "" else f"`{helper}()`, which it calls,"
        found.append(
            report(
                toks[first].start,
                toks[end - 1].end,
                f"`{text}` assumes 32-lane warps while {where} works in hardware warps; "
                "MI300X (gfx942) wavefronts have 64 lanes (use warpSize or __lane_id() "
                f"here and at the dependent lines, or 32-lane groups throughout){more.note}",
                extra=more.extra,
            )
        )
    yield from one_per_line(found, unit)
