"""HZ101 warp-lane-arith-32

## What it detects
Lane and warp arithmetic that hard-codes 32 lanes on a value derived from the thread index:
`threadIdx.x & 31`, `tid % 32`, `tid >> 5`, `tid / 32`, `lane & 0x1f` and the same on any
variable computed from `threadIdx`, `__lane_id()` or a parameter named like a lane/thread id,
warp counts such as `blockDim.x / 32`, and per-warp strides (`warp_id * 32`, `nwarps << 5`).
The operand must derive from thread-index data flow: `% 32` on a tile width or a loop bound is
not reported, nor are bitset word/bit indices (`bits[i / 32] |= 1u << (i % 32)`,
`int bit = i & 31;`), column indices of tiles (`tile[row][(c + threadIdx.x) % 32]`,
`tile[(ix << 5) + ((dp + ix) & 31)]`), bits moved around (`(qh >> 5) & 0x1000`), indices
inside a data block of another size (`iqs % 32` after `iqs = i % QK`), branches for a tile
shape (`if constexpr (I == 32)`), functions working on `cg::tiled_partition<32>` tiles (32
threads on every GPU) and checksum/hash code. Uses of a warp-size constant defined as 32 are
reported once, at the definition (HZ107).

## Why it breaks on AMD
MI300X (gfx942, CDNA3) runs wavefronts of **64** lanes and the wave size cannot be changed on
CDNA. `tid & 31` gives lanes 32-63 the same lane id as lanes 0-31, and `tid / 32` gives two
"warp ids" per wavefront: reductions then sum half a wave, per-warp shared slots collide, and
code that elects "lane 0" runs twice per wavefront.

## Example
```cuda
int lane = threadIdx.x & 31;      // HZ101
int warp = threadIdx.x / 32;      // HZ101
```

## How to fix
Use the wavefront size: `threadIdx.x % warpSize` and `threadIdx.x / warpSize` (a run-time
value in HIP 7), or `__lane_id()`. If the algorithm really works on groups of 32 lanes, make
that explicit (a named `kGroup = 32` constant and shuffles with `width = 32`). This is never
rewritten automatically.
"""

from __future__ import annotations

import re

from ..findings import Severity
from ..frontend.lexer import Kind
from ..rules import hazard_rule
from ._util import (
    LANE_LIKE,
    constant_at,
    enclosing_conditions,
    functions,
    int_value,
    one_per_line,
    operand_before,
    text_of,
    thread_taint,
)
from .hz107_warp_size_constant import reported_names

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


def sites(unit):
    """(first token, last token + 1, text) of every 32-lane idiom on thread-derived data."""
    toks = unit.tokens
    reported = reported_names(unit)
    positions = unit.identifier_positions
    out = []
    for func in functions(unit):
        if _NOT_LANES.search(func.name) or _uses_tiles_of_32(toks, func, positions):
            continue  # checksums mix bits of the thread index; tiles of 32 are 32 everywhere
        taint = None
        for i in range(func.open + 1, func.close):
            t = toks[i]
            if t.kind is not Kind.PUNCT:
                continue
            if t.text in ("*", "<<"):
                stride = _warp_stride(unit, i, reported)
                if stride:
                    out.append(stride)
                continue
            if t.text not in _PATTERNS:
                continue
            nxt = toks[i + 1]
            if nxt.kind is Kind.NUMBER:
                value = int_value(nxt.text)
            elif nxt.kind is Kind.IDENT:
                if nxt.text in reported:
                    continue  # HZ107 reports the definition: the one place to fix
                value = constant_at(unit, nxt.text, i + 1)  # WARP_SIZE, kWarp = 32
            else:
                continue
            if value not in _PATTERNS[t.text]:
                continue
            if i + 2 < len(toks) and toks[i + 2].text in ("(", "[", ".", "*", "+", "-"):
                if toks[i + 2].text not in ("+", "-", "*"):
                    continue
            prev = toks[i - 1]
            if prev.kind is Kind.PUNCT and prev.text not in (")", "]"):
                continue  # unary & or similar
            rng = operand_before(toks, i)
            if rng is None:
                continue
            if taint is None:
                taint = thread_taint(unit, func)
            if t.text.endswith("="):
                hit = taint.is_tainted(rng[0])
            else:
                hit = taint.any(*rng) is not None
                if (
                    not hit
                    and t.text in ("/", ">>", "%")
                    and any(x.text == "blockDim" for x in toks[rng[0] : rng[1]])
                ):
                    hit = True  # blockDim.x / 32: a warp count
            if hit and any(x.text in ("<<", "|", "^") for x in toks[rng[0] : rng[1]]):
                hit = False  # bit permutations (bank-conflict swizzles), not lane ids
            if hit and (
                _bit_twiddling(toks, i + 2, func)
                or _index_in_data_block(toks, rng, func)
                or _tile_shape_branch(unit, i, func)
                or _bitset_idiom(toks, i, func)
                or _bit_index_variable(toks, i, func)
                or _tile_column(toks, rng[0], i + 2)
                or _flat_tile_column(toks, rng[0], i + 2)
            ):
                hit = False
            if hit:
                out.append((rng[0], i + 2, text_of(unit, rng[0], i + 2)))
    return out


def _bitset_idiom(toks, i, func):
    """`bits[i / 32] |= 1u << (i % 32)`: word/bit indexing of a bitset, not lane arithmetic."""
    a, b = i, i
    while a > func.open and toks[a - 1].text not in (";", "{", "}"):
        a -= 1
    while b < func.close and toks[b].text not in (";", "{", "}"):
        b += 1
    for k in range(a, b - 1):
        if (
            toks[k].text in ("<<", "<<=")
            and k > a
            and toks[k - 1].kind is Kind.NUMBER
            and int_value(toks[k - 1].text) == 1
        ):
            return True
    return False


_NOT_LANES = re.compile(r"crc|hash|checksum|digest|murmur|fnv|xxh|philox|rng|random", re.I)
_BIT_NAME = re.compile(
    r"^(?:bits?|n_?bits|word|words|wrd|byte|bank|col|column|cols|shift|bit_?(?:pos|idx|index|off)"
    r"|word_?(?:idx|index|off|offset|pos))$",
    re.I,
)


def _index_in_data_block(toks, rng, func):
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


def _tile_shape_branch(unit, i, func):
    """`if constexpr (I == 32 && J == 4) return threadIdx.x % 32;`: the 32 is a tile side."""
    toks = unit.tokens
    for _kw, a, b in enclosing_conditions(unit, i, func):
        for k in range(a, b - 1):
            if toks[k].text == "==" and (
                int_value(toks[k + 1].text) == 32 or int_value(toks[k - 1].text) == 32
            ):
                return True
    return False


def _uses_tiles_of_32(toks, func, positions):
    """The function works on `cg::tiled_partition<32>` tiles: groups of 32 threads on every
    GPU, so `threadIdx.x / 32` is the tile index there, not a wavefront index."""
    return any(
        func.params[0] <= k < func.close - 2  # a tile parameter counts too
        and toks[k + 1].text == "<"
        and int_value(toks[k + 2].text) == 32
        for name in ("tiled_partition", "thread_block_tile")
        for k in positions.get(name, ())
    )


def _bit_twiddling(toks, after, func):
    """`(qh >> 5) & 0x1000`, `x |= (v >> 5) & m`: bits of data moved around, not a lane id."""
    k = after
    while k < func.close and toks[k].text == ")":
        k += 1
    if toks[k].text in ("&", "|", "^"):
        return True
    a = after
    while a > func.open and toks[a - 1].text not in (";", "{", "}"):
        a -= 1
    return any(toks[m].text in ("|=", "^=", "&=") for m in range(a, after))


def _bit_index_variable(toks, i, func):
    """`int bit = i & 31;` / `word = i >> 5;`: the result names a bit or word of a bitset,
    or is used as the shift amount of `1u << bit`."""
    a = i
    while a > func.open and toks[a - 1].text not in (";", "{", "}", "(", ","):
        a -= 1
    eq = next((k for k in range(a, i) if toks[k].text == "="), None)
    if eq is None or toks[eq - 1].kind is not Kind.IDENT:
        return False
    name = toks[eq - 1].text
    if _BIT_NAME.match(name) or _NOT_LANES.search(name):
        return True
    if LANE_LIKE.match(name) or "lane" in name.lower():
        return False  # `1u << lane` is a lane mask (HZ108), the lane id stays a lane id
    return any(
        toks[k].text == name
        and toks[k - 1].text in ("<<", "<<=")
        and toks[k - 2].kind is Kind.NUMBER
        and int_value(toks[k - 2].text) == 1
        for k in range(i, func.close)
    )


def _tile_column(toks, first, end):
    """`tile[row][col % 32]`: the whole inner subscript of a 2-D tile is a column index."""
    return (
        first >= 2
        and toks[first - 1].text == "["
        and toks[first - 2].text == "]"
        and end < len(toks)
        and toks[end].text == "]"
    )


_WARP_ID = re.compile(r"^(?:n_?|num_?)?warps?(?:_?(?:id|idx|index|no|num))?$|^wid$", re.I)


def _warp_stride(unit, i, reported):
    """`warp_id * 32`, `32 * warp`, `nwarps << 5`: a per-warp stride of 32 elements."""
    toks = unit.tokens
    op = toks[i].text
    left, right = toks[i - 1], toks[i + 1]
    ends = (";", ",", ")", "]", "+", "-", "}")
    pairs = []
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


def _flat_tile_column(toks, first, end):
    """`tile[(row << 5) + (col & 31)]`: a row-major tile index whose column wraps at 32."""
    k, depth = first - 1, 0
    while k >= 0:
        x = toks[k].text
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth == 0:
                if x == "[":
                    break
            else:
                depth -= 1
        elif x in (";", "{", "}"):
            return False
        k -= 1
    if k < 0:
        return False
    close = k
    depth = 0
    while close < len(toks):
        x = toks[close].text
        if x in ("(", "["):
            depth += 1
        elif x in (")", "]"):
            depth -= 1
            if depth == 0:
                break
        close += 1
    inner = toks[k + 1 : close]
    return any(
        t.text in ("<<", "*")
        and j + 1 < len(inner)
        and int_value(inner[j + 1].text) in (5, 32, 33)
        and k + 1 + j < first
        for j, t in enumerate(inner)
    )


@hazard_rule(
    "HZ101",
    "warp-lane-arith-32",
    Severity.ERROR,
    "lane/warp index arithmetic that assumes 32-lane warps",
)
def check(unit, ctx, report):
    toks = unit.tokens
    yield from one_per_line((_report(report, toks, *site) for site in sites(unit)), unit)


def _report(report, toks, first, end, text):
    return report(
        toks[first].start,
        toks[end - 1].end,
        f"`{text}` assumes 32-lane warps; MI300X (gfx942) wavefronts have 64 lanes "
        f"(use warpSize or __lane_id())",
    )
