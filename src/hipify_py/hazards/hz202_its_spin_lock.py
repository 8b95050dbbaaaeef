"""HZ202 its-spin-lock

## What it detects
In device code, a spin loop on an atomic: `while (atomicCAS(...) != ...)`,
`while (atomicExch(...))`, `do { ... } while (atomicCAS(...) ...)`: the per-thread lock pattern
that needs independent thread scheduling. A lock swaps constants (`atomicCAS(&l, 0, 1)`,
`atomicExch(&l, 1)`); a lock-free retry loop (`do { old = *p; v = f(old); } while
(atomicCAS(p, old, v) != old)`) compares and swaps values it computed, one lane always wins
and none waits for another, so it is not reported.

## Why it breaks on AMD
AMD GPUs have no independent thread scheduling. When one lane of a wavefront takes the lock,
the other lanes of the same wavefront keep spinning and the wavefront never reaches the code
that releases the lock: the kernel hangs. (Pre-Volta NVIDIA GPUs hang the same way.)

## Example
```cuda
while (atomicCAS(&lock, 0, 1) != 0) {}    // HZ202
critical();
atomicExch(&lock, 0);
```

## How to fix
Elect one lane per wavefront to take the lock (`if (__lane_id() == 0)` ... then broadcast), or
restructure the loop so the lock is acquired and released inside the same loop iteration
(`while (!done) { if (atomicCAS(...) == 0) { critical(); release; done = true; } }`), or use
atomics without a lock.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import Call, calls
from ..analysis.functions import function_at
from ..analysis.tokens import cached, has_ident, match, occurrences, text_of
from ..analysis.values import evaluate
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_ATOMICS = frozenset(
    {
        "atomicCAS",
        "atomicExch",
        "atomicCAS_system",
        "atomicExch_system",
        "atomicCAS_block",
        "atomicExch_block",
    }
)


@hazard_rule(
    "HZ202",
    "its-spin-lock",
    Severity.WARNING,
    "per-thread spin lock on an atomic: hangs without independent thread scheduling",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_ATOMICS & unit.identifiers):
        return
    toks = unit.tokens
    for i in occurrences(unit, ("while",)):
        t = toks[i]
        if i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        close = match(toks, i + 1)
        if close is None or not has_ident(toks[i + 2 : close], _ATOMICS):
            continue
        f = function_at(unit, i)
        if f is None or not f.is_device:
            continue
        if not any(_takes_lock(unit, c) for c in _atomic_calls(unit, i + 1, close)):
            continue  # a lock-free retry loop: the lane whose swap succeeds leaves
        # the retry loop that releases inside the body (`while (x) { if (CAS == 0) {...} }`)
        # has no atomic in its condition, so it never gets here
        yield report(
            t.start,
            toks[close].end,
            f"spin lock `{text_of(unit, i, close + 1)}`: without independent thread "
            f"scheduling the lanes of one wavefront can deadlock on it",
        )


def _atomic_calls(unit: Unit, first: int, end: int) -> list[Call]:
    every = cached(unit, "_hz202_atomics", lambda: list(calls(unit, _ATOMICS)))
    return [c for c in every if first < c.index < end]


def _takes_lock(unit: Unit, c: Call) -> bool:
    """The atomic swaps constants, as a lock does (`atomicCAS(&l, 0, 1)`, `atomicExch(&l, 1)`),
    not values computed from what it read; a compare-and-swap of a value with itself
    (`atomicCAS(p, 0, 0)`) is an atomic read: a wait for another block or kernel to clear
    the flag (TransformerEngine's userbuffers, round 11), which holds nothing another lane of
    the wavefront waits for."""
    values = [evaluate(unit, a, b) for a, b in c.args[1:]]
    if not values or None in values:
        return False
    return not (c.name.startswith("atomicCAS") and len(values) == 2 and values[0] == values[1])
