"""HZ201 syncwarp-its

## What it detects
`__syncwarp()` in **both** arms of an `if`/`else` whose condition differs between the lanes
of a warp, where one arm writes an array before its `__syncwarp` that the other arm reads
after its own: the lanes on either side meet there to exchange data
(`if (lane < 16) { buf[lane] = a; __syncwarp(); ... } else { __syncwarp(); b = buf[lane - 16]; }`).
Arms that exchange nothing through arrays (each notifies its own peers, as in NCCL's
all-reduce roles) meet for nothing: each `__syncwarp` is a barrier among its own lanes.
A `__syncwarp()` that every lane reaches together, or one in a branch or loop that only some
lanes enter (a barrier among the lanes that are there), is right on AMD and not reported;
neither is a condition on values that are the same for every lane of a warp (`threadIdx.y`
rows of 32 lanes, a value read back from shared memory: `analysis.uniformity`).

## Why it breaks on AMD
`__syncwarp` exists in HIP since 7.0 (a wavefront fence and `s_wave_barrier` in ROCm 7.2.4),
but HIP does **not** implement independent thread scheduling: a wavefront runs one arm of a
divergent `if` to its end, with the other lanes masked off, and only then the other arm. On
Volta+ the two groups of lanes meet at their `__syncwarp` calls and each sees what the other
wrote before it; on AMD the first arm runs past its `__syncwarp` before the second arm has
written anything, so it reads stale data (and a lane that spins waiting for the other arm
hangs).

## Example
```cuda
if (lane < 16) { buf[lane] = v; __syncwarp(); w = buf[lane + 16]; }   // HZ201
else           { buf[lane] = v; __syncwarp(); w = buf[lane - 16]; }
```

## How to fix
Put the exchange where all lanes are converged: write, `__syncwarp()` (or nothing, on AMD)
after the `if`, then read in a second `if`. Suppress with `// hipify-py: ignore[HZ201]` once
checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.calls import calls
from ..analysis.functions import enclosing_conditions, function_at
from ..analysis.tokens import match
from ..analysis.uniformity import WARP, arms, both_arms_call, varying_name
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_SYNCWARP = frozenset({"__syncwarp"})


@hazard_rule(
    "HZ201",
    "syncwarp-its",
    Severity.WARNING,
    "__syncwarp in both arms of a lane-dependent if: HIP has no independent thread scheduling",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, _SYNCWARP):
        func = function_at(unit, c.index)
        if func is None:
            continue
        for kw, a, b in enclosing_conditions(unit, c.index, func):
            if kw != "if" or not both_arms_call(toks, b, func.close, _SYNCWARP):
                continue
            name = varying_name(unit, func, a, b, WARP)
            if name is None or not _exchange(toks, b, func.close):
                continue
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`__syncwarp()` in both arms of an if on `{name}`: without independent "
                "thread scheduling a wavefront runs one arm past its `__syncwarp` before the "
                "other arm starts, so the lanes do not meet there",
            )
            break


def _exchange(toks: Sequence[Token], cond_end: int, limit: int) -> bool:
    """One arm writes an array before its `__syncwarp` that the other arm reads after its own:
    the data the lanes meet to exchange (nccl's role arms that only notify peers meet for
    nothing: each is a barrier among its own lanes)."""
    found = arms(toks, cond_end, limit)
    if found is None:
        return False
    halves = [_split_at_syncwarp(toks, arm) for arm in found]
    (w0, r0), (w1, r1) = halves
    return bool(w0 & r1 or w1 & r0)


def _split_at_syncwarp(toks: Sequence[Token], arm: range) -> tuple[set[str], set[str]]:
    """The arrays an arm writes (`x[...] =`) before its first `__syncwarp` and the arrays it
    reads (`x[...]` not assigned) after it."""
    at = next((k for k in arm if toks[k].text in _SYNCWARP), arm.stop)
    written: set[str] = set()
    read: set[str] = set()
    for k in arm:
        if toks[k].kind is not Kind.IDENT or k + 1 >= arm.stop or toks[k + 1].text != "[":
            continue
        close = match(toks, k + 1)
        stored = close is not None and close + 1 < len(toks) and toks[close + 1].text == "="
        if k < at and stored:
            written.add(toks[k].text)
        elif k > at and not stored:
            read.add(toks[k].text)
    return written, read
