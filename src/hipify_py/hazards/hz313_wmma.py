"""HZ313 wmma

## What it detects
Warp-matrix code written with CUDA's WMMA API (`nvcuda::wmma`, or `wmma::` after `using
namespace nvcuda`). The conversion translates it to AMD's rocWMMA (`#include
<rocwmma/rocwmma.hpp>`, `rocwmma::fragment`, `rocwmma::load_matrix_sync`, `rocwmma::mma_sync`,
`rocwmma::store_matrix_sync`, `rocwmma::fill_fragment`, `rocwmma::mem_row_major`; the table is
`mappings/wmma.yaml`). Two findings:

- a **warning once per function** that uses WMMA, at its first WMMA line: the names were
  translated, and the warp geometry is left to check (with the line where the function divides
  or takes a remainder by 32, if it does); not for a kernel that never reads its thread index
  and whose launches in the file give each block at least 64 threads, where every warp, and so
  every wavefront, computes the block's whole tile;
- an **error** at each line that uses what rocWMMA does not have, left as it was: tf32
  (`wmma::precision::tf32`, `__float_to_tf32`), sub-byte and bit fragments
  (`precision::u4/s4/b1`, `wmma::experimental`, `bmma_sync`), a fragment of `__nv_bfloat16`
  (rocWMMA's bf16 is `rocwmma::bfloat16_t`, ROCm's older `hip_bfloat16`, not the
  `__hip_bfloat16` that `__nv_bfloat16` converts to);
- an **error once per function** whose fragments have the non-square shapes `32x8x16` or
  `8x32x16` (rocWMMA's blocks on gfx942 are 16x16 or 32x32), at its first such fragment,
  listing the others: one retiling fixes them all, and it replaces the geometry warning;
- an **error once per function** that casts a fragment's element storage as a whole
  (`reinterpret_cast<__half2*>(frag.x)`, `(__half2*)frag.x`), listing its other casts: CUDA's
  `x` is an array, rocWMMA's a vector type no pointer cast takes.

Inline `mma.sync`/`ldmatrix` PTX is reported by HZ310.

## Why it breaks on AMD
A WMMA fragment belongs to one 32-lane warp on NVIDIA; a rocWMMA fragment belongs to one
64-lane wavefront on MI300X (gfx942). The API calls translate one to one, but a kernel that
gives each warp a tile computes its warp id as `threadIdx.x / 32` and launches 32 threads per
tile: on gfx942 two such "warps" are one wavefront, so both halves load, multiply and store the
same tile as one fragment, or a block of 32 threads leaves half the wavefront idle while the
fragment needs all 64 lanes. The per-lane layout of `frag.x[i]` differs as well
(`num_elements` is per lane and is not the same number). Error findings are the parts that do
not compile.

## Example
```cuda
using namespace nvcuda;                       // -> namespace wmma = rocwmma;
__global__ void k(const half* a, float* c) {
  int warp = threadIdx.x / 32;                // HZ313 (warning): check the geometry
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;  // rocwmma::...
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> t;  // error
}
```

## How to fix
For the warning: make one wavefront own one tile (`warp = threadIdx.x / warpSize`, launch
64 threads per tile, or use `rocwmma::Constants::AMDGCN_WAVE_SIZE`), and do not rely on
which lane holds which element of `frag.x`. For an error: use a type and shape rocWMMA
supports (half or float inputs, 16x16 or 32x32 blocks), or a GEMM library (hipBLASLt).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.block_geometry import fewest_threads
from ..analysis.functions import Func, function_at
from ..analysis.tokens import match, one_per_line
from ..analysis.values import evaluate
from ..analysis.warp_model import related
from ..analysis.wmma import WmmaUse, wmma_uses
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_SQUARE = frozenset({16, 32})  # rocWMMA's block sizes M and N on gfx942 (MFMA)
_NO_FRAGMENT_TYPE = frozenset({"__nv_bfloat16"})
# what tells a thread which part of the work is its own
_THREAD_INDEX = frozenset({"threadIdx", "warpSize", "__lane_id", "laneid", "this_thread_block"})


@hazard_rule(
    "HZ313",
    "wmma",
    Severity.WARNING,
    "nvcuda::wmma translated to rocWMMA: check the wave64 tile geometry (errors: no rocWMMA form)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    uses = wmma_uses(unit)
    if not uses:
        return
    errors = [report(*where, severity=Severity.ERROR) for where in _unsupported(unit, uses)]
    yield from one_per_line(errors, unit)
    retiled = _shapes(unit, uses)
    for shapes in retiled.values():
        (first, close, _), *others = shapes
        more = related(unit, [k for k, _, _ in others], first)
        names = ", ".join(dict.fromkeys(shape for _, _, shape in shapes))
        func = function_at(unit, first)
        where = _divides_by_32(unit, func) if func is not None else None
        yield report(
            unit.tokens[first].start,
            unit.tokens[close].end,
            f"a {names} WMMA fragment: rocWMMA's blocks on gfx942 are 16x16 or 32x32 (M and "
            "N); retile the kernel for 64-lane wavefronts"
            + (f" (line {where} divides by 32)" if where else "")
            + more.note,
            severity=Severity.ERROR,
            extra=more.extra,
        )
    for casts in _storage_casts(unit, uses).values():
        first, last = casts[0]
        more = related(unit, [k for k, _ in casts[1:]], first)
        yield report(
            unit.tokens[first].start,
            unit.tokens[last].end,
            f"`{unit.text[unit.tokens[first].start : unit.tokens[last].end]}` casts a WMMA "
            "fragment's element storage as an array: a rocWMMA fragment keeps its elements in "
            "a vector type, which no pointer cast takes, so this does not compile for AMD; "
            f"index the elements (`frag.x[i]`) instead{more.note}",
            severity=Severity.ERROR,
            extra=more.extra,
        )
    seen = set(retiled)
    for use in uses:
        func = function_at(unit, use.index)
        if func is None or func.open in seen or not use.supported:
            continue
        seen.add(func.open)
        if not _whole_tile_per_wavefront(unit, func):
            yield report(use.start, use.end, _geometry_message(unit, func))


def _whole_tile_per_wavefront(unit: Unit, func: Func) -> bool:
    """A kernel that never reads its thread's index and is launched with blocks of at least
    64 threads: every warp computes the block's whole tile, and so does every 64-lane
    wavefront (AkshDesai04/CUDA's WMMA exercises, 256 threads a block, round 40: 3 false
    geometry warnings)."""
    toks = unit.tokens
    if any(toks[k].text in _THREAD_INDEX for k in range(func.open + 1, func.close)):
        return False
    threads = fewest_threads(unit, func)
    return threads is not None and threads >= 64


def _storage_casts(unit: Unit, uses: Sequence[WmmaUse]) -> dict[int, list[tuple[int, int]]]:
    """By function, the (first, last) tokens of each `frag.x` (or `frags[i].x`) of a fragment
    the file declares that is cast as a whole, `reinterpret_cast<__half2*>(frag.x)` or
    `(__half2*)frag.x`: CUDA's `x` is an array, rocWMMA's a vector (flash-fft-conv's
    butterfly kernels, issue 23 round 17: "reinterpret_cast from ... non_native_vector_base
    ... is not allowed")."""
    toks = unit.tokens
    names = {toks[k + 1].text for k in _fragment_closes(unit, uses) if k + 1 < len(toks)}
    out: dict[int, list[tuple[int, int]]] = {}
    for name in names:
        for k in unit.identifier_positions.get(name, ()):
            j = k + 1
            if j < len(toks) and toks[j].text == "[":
                j = (match(toks, j) or j) + 1
            if j + 2 >= len(toks) or toks[j].text != "." or toks[j + 1].text != "x":
                continue
            if toks[j + 2].text == "[" or not _cast_before(toks, k, j + 2):
                continue
            func = function_at(unit, k)
            out.setdefault(func.open if func else -1, []).append((k, j + 1))
    return {f: sorted(c) for f, c in sorted(out.items())}


def _cast_before(toks: Sequence[Token], k: int, after: int) -> bool:
    """The expression starting at token ``k`` and ending before ``after`` is cast as a whole:
    `reinterpret_cast<T*>(` ... `)`, or a C cast `(T*)` right before it."""
    if toks[k - 1].text == "(" and toks[k - 2].text == ">" and toks[after].text == ")":
        return True
    return toks[k - 1].text == ")" and toks[k - 2].text == "*"


def _fragment_closes(unit: Unit, uses: Sequence[WmmaUse]) -> Iterator[int]:
    """The `>` closing each `wmma::fragment<...>` declaration's arguments."""
    for use in uses:
        found = _fragment_arguments(unit, use)
        if found is not None:
            yield found[1]


def _geometry_message(unit: Unit, func: Func) -> str:
    where = _divides_by_32(unit, func)
    note = f" (line {where} divides by 32)" if where else ""
    return (
        f"`{func.name}` uses WMMA, translated to rocWMMA: a fragment belongs to a 64-lane "
        "wavefront on gfx942, not a 32-lane warp; check the warp ids this function computes"
        f"{note} and the threads its launch gives each tile (32 per tile leaves half a "
        "wavefront; 64 make two CUDA warps one wavefront)"
    )


def _divides_by_32(unit: Unit, func: Func) -> int | None:
    """The line of the first ``x / 32`` or ``x % 32`` (32 spelled or a known constant)."""
    toks = unit.tokens
    for k in range(func.open, func.close):
        if toks[k].text in ("/", "%") and evaluate(unit, k + 1, k + 2) == 32:
            return unit.lines.position(toks[k].start)[0]
    return None


def _unsupported(unit: Unit, uses: Sequence[WmmaUse]) -> Iterator[tuple[int, int, str]]:
    """(start, end, message) of each WMMA use rocWMMA cannot express."""
    for use in uses:
        if not use.supported:
            why = use.entry.note if use.entry is not None and use.entry.note else ""
            yield (
                use.start,
                use.end,
                f"`{use.spelled}` has no rocWMMA counterpart"
                + (f" ({why})" if why else "")
                + ": left as it is, it does not compile for AMD; port this part by hand",
            )
        else:
            yield from _fragment_type(unit, use)


def _fragment_type(unit: Unit, use: WmmaUse) -> Iterator[tuple[int, int, str]]:
    """A fragment's element type that rocWMMA does not have."""
    found = _fragment_arguments(unit, use)
    if found is None:
        return
    args, close = found
    kind = " ".join(t.text for t in unit.tokens[args[4][0] : args[4][1]])
    if kind in _NO_FRAGMENT_TYPE:
        yield (
            use.start,
            unit.tokens[close].end,
            f"a WMMA fragment of `{kind}`: rocWMMA's bf16 fragments take rocwmma::bfloat16_t "
            "(hip_bfloat16), not the __hip_bfloat16 it converts to; convert the data or use half",
        )


def _shapes(unit: Unit, uses: Sequence[WmmaUse]) -> dict[int, list[tuple[int, int, str]]]:
    """By function (its `{`; -1 outside any), the first token, the closing `>` and the
    ``MxNxK`` of each fragment whose M or N is not one of rocWMMA's block sizes."""
    out: dict[int, list[tuple[int, int, str]]] = {}
    for use in uses:
        found = _fragment_arguments(unit, use)
        if found is None:
            continue
        args, close = found
        shape = [evaluate(unit, a, b) for a, b in args[1:4]]
        if None in shape or (shape[0] in _SQUARE and shape[1] in _SQUARE):
            continue
        func = function_at(unit, use.index)
        entry = (use.index, close, "x".join(map(str, shape)))
        out.setdefault(func.open if func is not None else -1, []).append(entry)
    return out


def _fragment_arguments(unit: Unit, use: WmmaUse) -> tuple[list[tuple[int, int]], int] | None:
    """The template arguments of a supported `wmma::fragment<...>` use (at least five) and
    the index of its closing `>`."""
    if not use.supported or not use.key.endswith("::fragment"):
        return None
    toks = unit.tokens
    last = next(k for k in range(use.index, len(toks)) if toks[k].end == use.end)
    found = _arguments(toks, last + 1)
    return found if found is not None and len(found[0]) >= 5 else None


def _arguments(toks: Sequence[Token], opener: int) -> tuple[list[tuple[int, int]], int] | None:
    """Token ranges of the top-level template arguments of the ``<`` at ``opener``, and the
    index of its ``>``; None when ``toks[opener]`` opens no argument list that closes."""
    if opener >= len(toks) or toks[opener].text != "<":
        return None
    out, start, depth, k = [], opener + 1, 1, opener + 1
    while k < len(toks):
        text = toks[k].text
        if text in ("(", "[", "{"):
            end = match(toks, k)
            if end is None:
                return None
            k = end + 1
            continue
        if text in (";", ")", "]", "}"):
            return None
        depth += text.count("<") if text in ("<", "<<") else 0
        if text in (">", ">>"):
            depth -= len(text)
            if depth <= 0:
                out.append((start, k))
                return out, k
        elif text == "," and depth == 1:
            out.append((start, k))
            start = k + 1
        k += 1
    return None
