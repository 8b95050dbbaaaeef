"""HZ107 warp-size-constant-32

## What it detects
A named constant that states the warp size as 32: `#define WARP_SIZE 32`,
`constexpr int kWarpSize = 32;`, `static const int THREADS_PER_WARP = 32;`,
`enum { kWarpLanes = 32 };`. The name must say it is a warp size (warp/lanes per warp), or its
line comment must (`static const int WS = 32; // warp size`), so tile sizes and block sizes of
32 are not reported. A definition in a branch the HIP build never
compiles (the `#else` of an `__HIP_PLATFORM_AMD__` test) is not reported either, nor one in
code only the project's HIP build compiles (`#ifdef __HIPCC__`): the value is the project's
choice for AMD (sppark emulates 32-lane warps there with its own shuffles).

## Why it breaks on AMD
MI300X (gfx942, CDNA3) wavefronts have **64** lanes and CDNA cannot run wave32. Every use of the
constant (lane ids, warp counts, per-warp strides, shared-memory slots per warp) then describes
half a wavefront: reductions drop lanes 32-63 and per-warp slots collide. The definition is the
one place to fix, so the uses are not reported again by HZ101 or HZ102 (shuffle loops bounded by
the constant): the finding lists them as dependent lines (notes in text output, related
locations in SARIF).

Reported only where the constant meets the hardware wavefront: a function that uses it (or a
kernel that calls one that does) also uses `warpSize` or `__lane_id()`, counts or indexes a
ballot, votes with `__any_sync`/`__all_sync`, multiplies wmma fragments, or shuffles across a
32-lane group without a width; the host passes it to a kernel as an argument, or sizes blocks
for kernels that do any of this; or a template this file does not define takes it (not a
cooperative-groups tile, `thread_block_tile<kWarpSize>`: its operations stay in it). Code of
consistent 32-lane groups (lane and group ids from the constant, reductions that stay in the
group, per-group shared slots, block sizes) computes the same on a 64-lane wavefront, which
simply holds two groups: not reported. A source file that never uses its constant is not
reported. A header's constant outside a function is also decided by the files that include
it (directly or through other headers): reported where one of them uses it in code of hardware
wavefronts (the message names that file), and not where none does (llm.c's `cuda_common.h`,
whose includers use `WARP_SIZE` only in 32-lane groups). A header checked on its own, with no
tree, is reported where it does not use the constant itself (the files that include it may).

## Example
```cuda
#define WARP_SIZE 32            // HZ107
int lane = threadIdx.x % WARP_SIZE;
```

## How to fix
Choose the value per platform where the constant is defined:
```cuda
#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64            // CDNA (gfx9); RDNA is 32: prefer warpSize at run time
#else
#define WARP_SIZE 32
#endif
```
or use `warpSize` (a run-time value since HIP 7.0) where no compile-time constant is needed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, function_at, functions
from ..analysis.own_constants import declares_local
from ..analysis.tokens import split, template_close
from ..analysis.warp_constants import definitions, uses
from ..analysis.warp_model import related
from ..analysis.wavefronts import reaches_wavefronts
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule


@hazard_rule(
    "HZ107",
    "warp-size-constant-32",
    Severity.ERROR,
    "named warp-size constant defined as 32 (wavefronts are 64 wide on MI300X)",
    bites=RUN,
    cuda_premise=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    elsewhere = ctx.project.wavefront_constants  # None: no tree known, a file checked alone
    for name, i, value in definitions(unit):
        direct, reached = uses(unit, name, i)
        home = function_at(unit, i)  # a function's own constant: used in it alone
        if home is not None:
            scope = _scope(unit, home, name)
            direct, reached = _within(scope, direct), _within(scope, reached)
        else:
            direct, reached = _unshadowed(unit, direct), _unshadowed(unit, reached)
        user = None if home else next(iter(ctx.project.includers(name, unit.path)), None)
        if reached and reaches_wavefronts(unit, reached):
            user = None  # this file's own uses are the evidence
        elif unit.is_source or (user is None and (reached or elsewhere is not None)):
            continue  # consistent 32-lane groups, block sizes, or no use: right on 64 lanes
        more = related(unit, direct, i)
        where = f"; {user} uses it where code meets the hardware wavefront" if user else ""
        yield report(
            toks[i].start,
            toks[value].end,
            f"`{name}` is defined as 32 lanes: MI300X (gfx942) wavefronts have 64; define it "
            f"per platform (64 on AMD CDNA) or use warpSize at run time, which also fixes "
            f"the lines that use it{more.note}{where}",
            extra=more.extra,
        )


def _scope(unit: Unit, home: Func, name: str) -> list[Func]:
    """Where a constant of function ``home`` reaches: ``home``, and the functions of the file it
    passes the constant to as a template argument (ggml's `flash_attn_tile_load_tile<warp_size,
    ...>`, whose parameter has the name), not another function's parameter of the same name
    (omniserve's `block_sum<WARPS_PER_RED>`, whose `WARP_SIZE` keeps its default; round 20)."""
    toks = unit.tokens
    callees = {
        toks[k - 1].text
        for k in range(home.open, home.close)
        if toks[k].text == "<" and toks[k - 1].kind is Kind.IDENT and _argument_named(toks, k, name)
    }
    return [home, *(f for f in functions(unit) if f.name in callees and f.open != home.open)]


def _argument_named(toks: Sequence[Token], lt: int, name: str) -> bool:
    """The template argument list opening at token ``lt`` holds ``name`` as an argument."""
    close = template_close(toks, lt)
    return close is not None and any(
        b == a + 1 and toks[a].text == name for a, b in split(toks, lt + 1, close)
    )


def _unshadowed(unit: Unit, found: list[int]) -> list[int]:
    """The uses of a file- or class-scope constant, less those in a function that declares a
    local of the name itself (OpenCV's wavelet-matrix kernels: `constexpr int WARP_SIZE = 8 *
    sizeof(WarpWT);` beside a struct's `WARP_SIZE = 32`, round 21).  A template parameter of
    the name does not hide it: AMGX instantiates its kernels with the file's constant."""
    toks = unit.tokens
    out = []
    for k in found:
        func = function_at(unit, k)
        if func is None or not declares_local(toks, func, toks[k].text):
            out.append(k)
    return out


def _within(funcs: list[Func], found: list[int]) -> list[int]:
    return [k for k in found if any(f.open < k < f.close for f in funcs)]
