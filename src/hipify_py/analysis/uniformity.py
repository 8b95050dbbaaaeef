"""Which values of a condition differ between the threads that evaluate it together.

The thread taint (``taint.Taint``) says a name was computed from the thread index somewhere in
the function. That is too coarse for barriers, which care whether the threads of a warp or of
a block can disagree on a condition *where it is evaluated*:

- **warp scope**: only values that differ between the lanes of one warp count. `threadIdx.y`
  and `threadIdx.z` are the same for all lanes of a warp whenever `blockDim.x` is a multiple
  of 32 (one row per warp: ge-spmm), so names derived from them alone are warp-uniform.
- **reaching definitions**: a name whose last assignment before the condition reads no
  thread-dependent value (`best = buf_s[0];` after a reduction through shared memory, as in
  tsp) is uniform there, whatever the name held earlier.
- **meeting points**: `both_arms_call` finds an `if`/`else` whose two arms each call a
  barrier, where threads that disagree on the condition meet at different calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .functions import Func
from .taint import Taint, thread_taint
from .tokens import cached, statement_end

WARP = "warp"  # values that differ between the lanes of one (32-lane) warp
BLOCK = "block"  # values that differ between the threads of a block

_ROW_SOURCES = frozenset({"hipThreadIdx_y", "hipThreadIdx_z"})


class LaneTaint(Taint):
    """The thread taint without `threadIdx.y`/`.z` as sources: values that differ between the
    lanes of one warp (rows of a block whose `blockDim.x` is a multiple of 32 are warps)."""

    def is_tainted(self, k: int) -> bool:
        t = self.toks[k]
        if t.text in _ROW_SOURCES:
            return False
        if t.text == "threadIdx" and k + 2 < len(self.toks) and self.toks[k + 1].text == ".":
            return self.toks[k + 2].text == "x"
        return super().is_tainted(k)


def taint_of(unit: Unit, func: Func, scope: str) -> Taint:
    """The data flow of the values that differ within ``scope`` (WARP or BLOCK)."""
    if scope == BLOCK:
        return thread_taint(unit, func)
    flows: dict[int, Taint] = cached(unit, "_lane_taint", dict)
    taint = flows.get(func.open)
    if taint is None:
        taint = flows[func.open] = LaneTaint(unit, func)
    return taint


def varying_name(unit: Unit, func: Func, first: int, end: int, scope: str = BLOCK) -> str | None:
    """The first name of the `if` condition ``toks[first:end]`` whose value can differ between
    the threads of ``scope`` where the condition is evaluated, or None when every thread of the
    scope agrees."""
    toks = unit.tokens
    taint = taint_of(unit, func, scope)
    for k in range(first, end):
        t = toks[k]
        if not taint.is_tainted(k):
            continue
        if t.kind is Kind.IDENT and _defined_uniform(unit, func, taint, k, first):
            continue
        return t.text
    return None


def _defined_uniform(unit: Unit, func: Func, taint: Taint, k: int, first: int) -> bool:
    """The definition of the name at ``k`` that reaches the condition starting at ``first``
    assigns a value all threads agree on (`best = buf_s[0];` after a reduction through shared
    memory), whatever the name held before."""
    return _last_assignment_uniform(unit.tokens, taint, unit.tokens[k].text, func.open, first - 2)


def _last_assignment_uniform(
    toks: Sequence[Token], taint: Taint, name: str, lo: int, hi: int
) -> bool:
    """Walking back from ``hi`` to ``lo`` along straight-line code of the same block (or an
    enclosing one), the last `name = expr` assigns a uniform value."""
    depth = 0
    k = hi
    while k > lo:
        x = toks[k].text
        if x == "}":
            depth += 1
        elif x == "{":
            depth = max(0, depth - 1)
        elif depth == 0 and x == name and toks[k - 1].text not in (".", "->"):
            op = toks[k + 1].text
            if op == "=":
                e = k + 2
                while toks[e].text not in (";", ",", ")") and e < hi + 1:
                    e += 1
                return not any(taint.is_tainted(j) for j in range(k + 2, e))
            if op in ("+=", "-=", "*=", "|=", "&=", "^=", "++", "--") or toks[k - 1].text in (
                "++",
                "--",
            ):
                return False
        k -= 1
    return False


def arms(toks: Sequence[Token], cond_end: int, limit: int) -> tuple[range, range] | None:
    """The token ranges of the two arms of `if (c) ... else ...` whose condition ends at
    ``cond_end`` (each a block or one statement), or None without an ``else``."""
    then_first = cond_end + 1
    if then_first >= limit:
        return None
    then_last = statement_end(toks, then_first, limit)
    if then_last + 1 >= limit or toks[then_last + 1].text != "else":
        return None
    else_first = then_last + 2
    else_last = statement_end(toks, else_first, limit)
    return range(then_first, then_last + 1), range(else_first, else_last + 1)


def both_arms_call(toks: Sequence[Token], cond_end: int, limit: int, names: frozenset[str]) -> bool:
    """`if (c) { ...; f(); } else { ...; f(); }` for an ``f`` of ``names``: the threads on
    either side of the condition meet at a call of their own arm."""
    found = arms(toks, cond_end, limit)
    return found is not None and all(any(toks[k].text in names for k in arm) for arm in found)
