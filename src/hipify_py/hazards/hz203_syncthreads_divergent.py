"""HZ203 syncthreads-divergent

## What it detects
`__syncthreads()` (and `__syncthreads_count/and/or`) inside an `if`, loop, `switch` or `?:`
whose condition depends on the thread index (data flow from `threadIdx`, lane ids, and values
computed from them), e.g. `if (threadIdx.x < 32) { ...; __syncthreads(); }` or a grid-stride
loop `for (i = threadIdx.x; i < n; i += blockDim.x) { ...; __syncthreads(); }`.
Conditions on block-uniform values (`blockDim.x`, kernel arguments, `s` in a tree reduction)
are not reported.

## Why it breaks on AMD
A block barrier must be reached by every thread of the block the same number of times. CUDA
makes that undefined behaviour too, but Volta+ often tolerates it; on AMD `s_barrier` counts
wavefronts, so a wavefront that skips the barrier (or loops a different number of times)
hangs the block or lets other wavefronts run ahead and read stale shared memory.

## Example
```cuda
if (tid < active) {
  smem[tid] += smem[tid + active];
  __syncthreads();          // HZ203
}
```

## How to fix
Hoist the barrier out of the thread-dependent branch (`if (tid < s) {...} __syncthreads();`),
and make loop trip counts block-uniform (loop to a rounded-up bound and guard the body).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import enclosing_conditions, function_at
from ..analysis.taint import Taint, thread_taint
from ..analysis.tokens import occurrences, statement_end, text_of
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_BARRIERS = frozenset(
    {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"}
)
_WHAT = {
    "if": "an if",
    "for": "a for loop",
    "while": "a while loop",
    "do": "a do loop",
    "switch": "a switch",
}


@hazard_rule(
    "HZ203",
    "syncthreads-divergent",
    Severity.ERROR,
    "__syncthreads() in control flow that depends on the thread index",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_BARRIERS & unit.identifiers):
        return
    toks = unit.tokens
    for i in occurrences(unit, _BARRIERS):
        t = toks[i]
        if t.in_directive or i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        func = function_at(unit, i)
        if func is None:
            continue
        conds = enclosing_conditions(unit, i, func)
        if not conds:
            continue
        taint = thread_taint(unit, func)
        for kw, a, b in conds:
            name = _dependent_name(toks, taint, kw, a, b)
            if name is not None and kw == "if" and _both_branches_wait(toks, b, func.close):
                continue  # every thread reaches a barrier either way (s_barrier is per wave)
            if name is not None:
                line = unit.lines.position(toks[a].start)[0]
                yield report(
                    t.start,
                    toks[i + 1].end + 1,
                    f"`{t.text}()` inside {_WHAT[kw]} (line {line}) whose condition "
                    f"`{text_of(unit, a, b)}` depends on the thread index "
                    f"(`{name}`): threads that skip the barrier hang or race",
                )
                break


def _dependent_name(toks: Sequence[Token], taint: Taint, kw: str, a: int, b: int) -> str | None:
    """The first thread-dependent name of a condition; a `for` variable the header resets to a
    block-uniform value (`for (j = 128; j > 0; j /= 2)`) does not count, whatever `j` held
    before the loop."""
    reset: set[str] = set()
    if kw == "for":
        init_end = next((k for k in range(a, b) if toks[k].text == ";"), b)
        cond_end = next((k for k in range(init_end + 1, b) if toks[k].text == ";"), b)
        k = a
        while k < init_end:
            if toks[k].kind is Kind.IDENT and toks[k + 1].text == "=":
                end = k + 2
                while end < init_end and toks[end].text != ",":
                    end += 1
                start_taint = _tainted_names(toks, taint, k + 2, end)
                if not start_taint or start_taint == _bound_taint(
                    toks, taint, toks[k].text, init_end + 1, cond_end
                ):
                    # a uniform start, or start and bound shifted by the same thread term
                    # (`t = base + tid; t < end + tid`): the trip count is block-uniform
                    reset.add(toks[k].text)
                    reset |= start_taint
                k = end
            k += 1
    for k in range(a, b):
        if toks[k].text in reset:
            continue
        if taint.is_tainted(k):
            return toks[k].text
    return None


def _tainted_names(toks: Sequence[Token], taint: Taint, a: int, b: int) -> set[str]:
    return {toks[k].text for k in range(a, b) if taint.is_tainted(k)}


def _bound_taint(toks: Sequence[Token], taint: Taint, var: str, a: int, b: int) -> set[str] | None:
    """Thread-dependent names of the bound in a `var < bound` condition."""
    if b - a >= 3 and toks[a].text == var and toks[a + 1].text in ("<", "<=", ">", ">=", "!="):
        return _tainted_names(toks, taint, a + 2, b)
    return None


def _both_branches_wait(toks: Sequence[Token], cond_end: int, limit: int) -> bool:
    """`if (c) { ...; __syncthreads(); } else { ...; __syncthreads(); }`"""
    then_first = cond_end + 1
    if then_first >= limit:
        return False
    then_last = statement_end(toks, then_first, limit)  # a block or one statement
    if then_last + 1 >= limit or toks[then_last + 1].text != "else":
        return False
    else_first = then_last + 2
    else_last = statement_end(toks, else_first, limit)

    def waits(lo: int, hi: int) -> bool:
        return any(t.text in _BARRIERS for t in toks[lo : hi + 1])

    return waits(then_first, then_last) and waits(else_first, else_last)
