"""HZ109 warp-geometry-32

## What it detects
Sizes that count 32 threads per warp for a kernel that works in hardware warps (it derives its
warp or lane from `warpSize` or `__lane_id()`):
- host-side launch geometry: the block, grid or shared-memory size of a `<<<...>>>` launch of
  such a kernel, or a host variable of the same function that feeds one
  (`int threads = 32 * rows_per_block;`, `dim3 threads(32, 8)`, `blocks = (n + 31) / 32`);
- a `__shared__` array of the kernel sized `32 * F` (or `F * 32`) and indexed by a value
  derived from `threadIdx.x % warpSize` or `__lane_id()`.
- host-side launch geometry of a kernel defined in another file (a header), when the literal
  32 that sizes it carries a comment saying it is the warp size (`int thread_x = 32; //warpSize`):
  the author's own word, as the kernel's warp model cannot be seen (a warning).
Kernels written in consistent 32-lane groups (HZ101's model) are not reported: for them, 32
threads per group is right on any wave size. Nor is the launch of a kernel that strides its
warps over the grid (`for (m = warp; m < M; m += warpsPerBlock * gridDim.x)`): with half the
warps, each takes twice the rows and none is left.

## Why it breaks on AMD
MI300X (gfx942) wavefronts have **64** lanes. A block of `32 * k` threads then holds `k / 2`
hardware warps while the host still assumes `k` (rows per block, blocks per grid), so half the
work is never assigned; a per-warp shared slot of 32 entries indexed by a lane up to 63 runs
past its end into the next warp's slot.

## Example
```cuda
__global__ void matvec(...) {
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;  ...
}
int threads = 32 * rows_per_block;         // HZ109
matvec<<<ceildiv(rows, rows_per_block), threads>>>(...);
```

## How to fix
Size by the device's warp size: query `hipDeviceAttributeWarpSize` (or
`hipDeviceProp_t::warpSize`) on the host and compute the geometry from it; in device code use
`warpSize` (or a template parameter chosen from it) for per-warp shared arrays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, defined_names, function_at, functions
from ..analysis.launches import launched_name
from ..analysis.tokens import split
from ..analysis.values import int_value
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_HARDWARE_LANE = frozenset({"warpSize", "__lane_id"})


def _hardware_kernels(unit: Unit) -> dict[str, Func]:
    """Kernels (by name) that derive a warp or lane from the hardware warp: `x / warpSize`,
    `x % warpSize` or `__lane_id()` in their body."""
    toks = unit.tokens
    out: dict[str, Func] = {}
    for f in functions(unit):
        if "__global__" not in f.specifiers:
            continue
        for k in range(f.open + 1, f.close):
            t = toks[k]
            if t.text == "__lane_id" or (t.text == "warpSize" and toks[k - 1].text in ("/", "%")):
                out[f.name] = f
                break
    return out


def _thirty_two(toks: Sequence[Token], a: int, b: int) -> int | None:
    """The first token in [a, b) of a 32-per-warp size: `32 * x`, `x * 32`, `x / 32`,
    `(x + 31) / 32`, or an argument that is the literal 32 alone."""
    if b - a == 1 and toks[a].kind is Kind.NUMBER and int_value(toks[a].text) == 32:
        return a
    for k in range(a, b):
        t = toks[k]
        if t.kind is not Kind.NUMBER or int_value(t.text) != 32:
            continue
        before = toks[k - 1].text if k > a else ""
        after = toks[k + 1].text if k + 1 < b else ""
        if before in ("*", "/") or after == "*":
            return k
    return None


def _definition(
    toks: Sequence[Token], name: str, host: Func, before: int
) -> tuple[int, int] | None:
    """The initializer of the last `name = ...;` or `dim3 name(...)` in ``host`` before token
    ``before``."""
    found = None
    for k in range(host.open + 1, before):
        if toks[k].text != name or toks[k - 1].text in (".", "->"):
            continue
        nxt = toks[k + 1].text
        if nxt in ("=", "(", "{") and not (nxt == "(" and toks[k - 1].kind is not Kind.IDENT):
            end = k + 2
            while end < before and toks[end].text != ";":
                end += 1
            found = (k + 2, end - (1 if nxt != "=" else 0))
    return found


def _expansion(toks: Sequence[Token], a: int, b: int, host: Func, at: int) -> list[tuple[int, int]]:
    """Tokens [a, b) and the initializers of the host variables they name (two levels:
    `dim3 threads(thread_x, thread_y)` then `int thread_x = 32;`)."""
    out, todo = [(a, b)], [(a, b)]
    for _ in range(2):
        nxt = []
        for c, d in todo:
            for k in range(c, d):
                if toks[k].kind is Kind.IDENT and toks[k + 1].text not in ("(", "."):
                    init = _definition(toks, toks[k].text, host, at)
                    if init is not None and init not in out:
                        out.append(init)
                        nxt.append(init)
        todo = nxt
    return out


def _factor_of_32(toks: Sequence[Token], k: int) -> str | None:
    """For the 32 at ``k``: the name it multiplies (`32 * k`, `k * 32`); for a name at ``k``:
    the name itself when it is such a factor of 32, else None."""
    t = toks[k]
    if t.kind is Kind.NUMBER:
        if toks[k + 1].text == "*" and toks[k + 2].kind is Kind.IDENT:
            return toks[k + 2].text
        if toks[k - 1].text == "*" and toks[k - 2].kind is Kind.IDENT:
            return toks[k - 2].text
        return None
    for op, num in ((k + 1, k + 2), (k - 1, k - 2)):
        if (
            toks[op].text == "*"
            and toks[num].kind is Kind.NUMBER
            and int_value(toks[num].text) == 32
        ):
            return t.text
    return None


def _launch_sites(unit: Unit, kernels: dict[str, Func]) -> Iterator[tuple[int, int, str]]:
    """(32-token, launch token, kernel) of each launch of a hardware-warp kernel whose host
    geometry counts 32 threads per unit of work: a 32-per-warp term in the grid size, or a
    block of `32 * k` threads where `k` also sizes the grid."""
    toks = unit.tokens
    ends = unit.launch_config_ends
    for i in unit.launch_openers:
        stop = ends.get(i)
        kernel = launched_name(toks, i)
        if stop is None or kernel is None or kernel not in kernels:
            continue
        host = function_at(unit, i)
        if host is None or host.is_device:
            continue
        args = split(toks, i + 1, stop)
        if len(args) < 2:
            continue
        grid = _expansion(toks, *args[0], host, i)
        block = _expansion(toks, *args[1], host, i)
        # names of the grid that count work on their own, not inside a `32 * k` block size
        grid_alone = {
            toks[k].text
            for c, d in grid
            for k in range(c, d)
            if toks[k].kind is Kind.IDENT and _factor_of_32(toks, k) is None
        }
        block_factors = {_factor_of_32(toks, h) for r in block if (h := _thirty_two(toks, *r))}
        hit = None
        for c, d in grid:  # `rows * 32` threads: 32 per row, unless the block is that product
            h = _thirty_two(toks, c, d)
            if h is not None and _factor_of_32(toks, h) not in block_factors:
                hit = h
                break
        for c, d in block if hit is None else ():  # `32 * k` threads and `k` sizes the grid
            h = _thirty_two(toks, c, d)
            if h is not None and _factor_of_32(toks, h) in grid_alone:
                hit = h
                break
        if hit is not None:
            yield hit, i, kernel


def _shared_sites(unit: Unit, kernels: dict[str, Func]) -> Iterator[tuple[int, str, str]]:
    """(32-token, array, kernel) of `__shared__ T a[32 * F]` indexed by a hardware lane."""
    toks = unit.tokens
    for f in kernels.values():
        lanes = _hardware_lane_names(toks, f)
        for k in range(f.open + 1, f.close):
            if toks[k].text != "__shared__":
                continue
            j = k
            while j < f.close and toks[j].text not in ("[", ";"):
                j += 1
            if toks[j].text != "[" or toks[j - 1].kind is not Kind.IDENT:
                continue
            close = j
            while close < f.close and toks[close].text != "]":
                close += 1
            hit = _thirty_two(toks, j + 1, close)
            if hit is None or close - j <= 2:  # `[32]` alone is one slot per warp of a block
                continue
            name = toks[j - 1].text
            if _indexed_by(toks, name, lanes, f):
                yield hit, name, f.name


def _hardware_lane_names(toks: Sequence[Token], f: Func) -> set[str]:
    """Variables of ``f`` assigned from `... % warpSize` or `__lane_id()`, and those
    computed from them."""
    names: set[str] = set()
    for _ in range(2):
        for k in range(f.open + 1, f.close - 1):
            if toks[k].text != "=" or toks[k - 1].kind is not Kind.IDENT:
                continue
            end = k + 1
            while end < f.close and toks[end].text not in (";", ","):
                end += 1
            rhs = toks[k + 1 : end]
            if any(
                (t.text == "warpSize" and rhs[n - 1].text == "%")
                or t.text == "__lane_id"
                or t.text in names
                for n, t in enumerate(rhs)
            ):
                names.add(toks[k - 1].text)
    return names


def _indexed_by(toks: Sequence[Token], name: str, lanes: set[str], f: Func) -> bool:
    for k in range(f.open + 1, f.close - 1):
        if toks[k].text != name or toks[k + 1].text != "[":
            continue
        depth, m = 0, k + 1
        while m < f.close:
            x = toks[m].text
            depth += x == "["
            depth -= x == "]"
            if depth == 0:
                break
            if x in lanes or x == "__lane_id" or (x == "warpSize" and toks[m - 1].text == "%"):
                return True
            m += 1
    return False


# a comment that calls a number the warp size: `// warp size`, `//warpSize;`
_WARP_COMMENT = re.compile(r"\bwarp[ _-]?size\b", re.I)


def _commented_sites(unit: Unit) -> Iterator[tuple[int, int, str]]:
    """(32-token, launch token, kernel) of launches of kernels this file does not define whose
    geometry holds a literal 32 on a line with a comment calling it the warp size."""
    lines = unit.lines
    said = {lines.position(c.start)[0] for c in unit.comments if _WARP_COMMENT.search(c.text)}
    if not said:
        return
    toks = unit.tokens
    defined = defined_names(unit)
    ends = unit.launch_config_ends
    for i in unit.launch_openers:
        stop = ends.get(i)
        kernel = launched_name(toks, i)
        if stop is None or kernel is None or kernel in defined:
            continue
        host = function_at(unit, i)
        args = split(toks, i + 1, stop)
        if host is None or host.is_device or len(args) < 2:
            continue
        for c, d in [*_expansion(toks, *args[0], host, i), *_expansion(toks, *args[1], host, i)]:
            hit = next(
                (
                    k
                    for k in range(c, d)
                    if toks[k].kind is Kind.NUMBER
                    and int_value(toks[k].text) == 32
                    and lines.position(toks[k].start)[0] in said
                ),
                None,
            )
            if hit is not None:
                yield hit, i, kernel
                break


@hazard_rule(
    "HZ109",
    "warp-geometry-32",
    Severity.ERROR,
    "launch geometry or per-warp shared arrays sized with 32 for a kernel using warpSize",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    yield from _commented(unit, report)
    if "warpSize" not in unit.identifiers and "__lane_id" not in unit.identifiers:
        return
    kernels = _hardware_kernels(unit)
    if not kernels:
        return
    toks = unit.tokens
    one_pass = {name: f for name, f in kernels.items() if not _strides_over_grid(toks, f)}
    for k, line, kernel in _once_per_site(unit, _launch_sites(unit, one_pass)):
        yield report(
            toks[k].start,
            toks[k].end,
            f"launch geometry counts 32 threads per warp, but `{kernel}` (launched at line "
            f"{line}) takes its warps from warpSize, 64 on MI300X (gfx942): blocks hold half "
            "the warps this assumes (query hipDeviceAttributeWarpSize on the host)",
            extra={"related_lines": str(line)},
        )
    for k, name, kernel in _shared_sites(unit, kernels):
        yield report(
            toks[k].start,
            toks[k].end,
            f"`{name}` holds 32 entries per warp but `{kernel}` indexes it by a lane of "
            "warpSize, up to 63 on MI300X (gfx942): size it with warpSize",
        )


def _strides_over_grid(toks: Sequence[Token], f: Func) -> bool:
    """``f`` steps its work index by a count taken from `gridDim` (`for (m = idx; m < M; m +=
    numWarps)` with `numWarps = warpsPerBlock * gridDim.x`): a grid-stride loop, so with half
    the warps each takes twice the rows and none is left (KarhouTam's softmax kernels, round
    45: 3 false HZ109)."""
    from_grid = {"gridDim"}
    for _ in range(2):  # names computed from gridDim, and names computed from those
        for k in range(f.open + 1, f.close - 1):
            if toks[k].text == "=" and toks[k - 1].kind is Kind.IDENT:
                if any(t.text in from_grid for t in _operand(toks, k + 1, f.close)):
                    from_grid.add(toks[k - 1].text)
    return any(
        toks[k].text == "+=" and any(t.text in from_grid for t in _operand(toks, k + 1, f.close))
        for k in range(f.open + 1, f.close)
    )


def _operand(toks: Sequence[Token], start: int, end: int) -> Sequence[Token]:
    """The tokens from ``start`` to the end of the statement or `for` clause (`;`, `,` or an
    unmatched `)`)."""
    depth, k = 0, start
    while k < end and toks[k].text not in (";", ",") and depth >= 0:
        depth += {"(": 1, ")": -1}.get(toks[k].text, 0)
        k += 1
    return toks[start : k - (depth < 0)]


def _commented(unit: Unit, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    sites = _commented_sites(unit) if unit.launch_openers else iter(())
    for k, line, kernel in _once_per_site(unit, sites):
        yield report(
            toks[k].start,
            toks[k].end,
            f"this 32 is the warp size by its comment, and it sizes the launch of `{kernel}` "
            f"(line {line}, defined in another file): MI300X (gfx942) wavefronts have 64 "
            "lanes, so a kernel that counts warps with warpSize gets half the warps this "
            "assumes (query hipDeviceAttributeWarpSize on the host)",
            severity=Severity.WARNING,
            extra={"related_lines": str(line)},
        )


def _once_per_site(
    unit: Unit, sites: Iterator[tuple[int, int, str]]
) -> Iterator[tuple[int, int, str]]:
    """(site token, line of its launch, kernel) for the first launch found per site token."""
    seen: set[int] = set()
    for k, launch, kernel in sites:
        if k not in seen:
            seen.add(k)
            yield k, unit.lines.position(unit.tokens[launch].start)[0], kernel
