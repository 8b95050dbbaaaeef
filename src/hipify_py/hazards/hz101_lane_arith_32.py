"""HZ101 warp-lane-arith-32

## What it detects
Lane and warp arithmetic that hard-codes 32 lanes on a value derived from the thread index:
`threadIdx.x & 31`, `tid % 32`, `tid >> 5`, `tid / 32`, `lane & 0x1f` and the same on any
variable computed from `threadIdx`, `__lane_id()` or a parameter named like a lane/thread id,
and warp counts such as `blockDim.x / 32`.
The operand must derive from thread-index data flow: `% 32` on a tile width or a loop bound is
not reported, nor are bitset word/bit indices (`bits[i / 32] |= 1u << (i % 32)`) and
column indices of 2-D tiles (`tile[row][(c + threadIdx.x) % 32]`).

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

from ..findings import Severity
from ..frontend.lexer import Kind
from ..rules import hazard_pass, register_rule
from ._util import constants, finding, functions, int_value, operand_before, text_of, thread_taint

register_rule(
    "HZ101",
    "warp-lane-arith-32",
    Severity.ERROR,
    "lane/warp index arithmetic that assumes 32-lane warps",
    __doc__,
)

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
    out = []
    for func in functions(unit):
        taint = None
        for i in range(func.open + 1, func.close):
            t = toks[i]
            if t.kind is not Kind.PUNCT or t.text not in _PATTERNS:
                continue
            nxt = toks[i + 1]
            if nxt.kind is Kind.NUMBER:
                value = int_value(nxt.text)
            elif nxt.kind is Kind.IDENT:
                value = constants(unit).get(nxt.text)  # WARP_SIZE, kWarp = 32
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
            if hit and (_bitset_idiom(toks, i, func) or _tile_column(toks, rng[0], i + 2)):
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


def _tile_column(toks, first, end):
    """`tile[row][col % 32]`: the whole inner subscript of a 2-D tile is a column index."""
    return (
        first >= 2
        and toks[first - 1].text == "["
        and toks[first - 2].text == "]"
        and end < len(toks)
        and toks[end].text == "]"
    )


@hazard_pass("HZ101")
def check(unit, ctx):
    toks = unit.tokens
    for first, end, text in sites(unit):
        yield finding(
            unit,
            "HZ101",
            toks[first].start,
            toks[end - 1].end,
            f"`{text}` assumes 32-lane warps; MI300X (gfx942) wavefronts have 64 lanes "
            f"(use warpSize or __lane_id())",
        )
