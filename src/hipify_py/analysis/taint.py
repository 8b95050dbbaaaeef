"""Thread-index data flow: which variables of a function hold values derived from the
position of a thread in its block or warp."""

from __future__ import annotations

import re

from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from .functions import Func
from .tokens import cached, inside, match, statement_end

# names whose value is (or derives from) the position of a thread inside its block or warp
THREAD_SOURCES = frozenset(
    {
        "threadIdx",
        "hipThreadIdx_x",
        "hipThreadIdx_y",
        "hipThreadIdx_z",
        "__lane_id",
        "__laneid",
        "thread_rank",
        "__builtin_amdgcn_workitem_id_x",
        "__builtin_amdgcn_mbcnt_lo",
        "__builtin_amdgcn_mbcnt_hi",
        "__ockl_get_local_id",
        "__ockl_lane_u32",
        "laneid",
    }
)


LANE_LIKE = re.compile(
    r"^(?:lane|lane_?id|laneid|laneId|lane_?idx|tid|tidx|thread_?id|threadId|ltid|local_?tid|"
    r"tid_?x|thread_?idx|threadIdx_x|t_?id)$",
    re.I,
)


# what follows a declared name: `int x = ...`, `int x;`, `int x, y`, `T x(...)`, `T x{...}`,
# `int x[...]`, `int x : 3`
_DECLARATOR_END = frozenset(("=", ";", ",", "(", "{", "[", ":"))
_ASSIGN = frozenset(("=", "+=", "-=", "|=", "^=", "&=", "*=", "<<=", ">>="))

_NOT_TYPES = frozenset(
    {
        "return",
        "case",
        "goto",
        "else",
        "do",
        "throw",
        "new",
        "delete",
        "sizeof",
        "co_return",
        "co_yield",
        "typedef",
        "using",
        "operator",
    }
)


class Taint:
    """Which variables of one function hold values derived from the thread index.

    Scope-aware: a declaration opens a new variable for the rest of its block (or, in a
    ``for`` header, for the loop), so an unrelated ``int c = 0`` is not tainted by an earlier
    ``for (int c = threadIdx.x; ...)``. Assignments propagate taint to a fixpoint.
    """

    def __init__(self, unit: Unit, func: Func) -> None:
        self.toks = unit.tokens
        self.decls: dict[str, list[tuple[int, int, int]]] = {}  # name -> (decl, start, end)
        self._declare_parameters(func)
        self._declare_locals(func)
        self.tainted: set[tuple[str, int]] = self._lane_like_parameters(func)
        self._propagate(self._assignments(unit, func))

    def _declare_parameters(self, func: Func) -> None:
        """Each parameter is a variable of the whole body."""
        toks = self.toks
        lo, hi = func.params
        for k in range(lo + 1, hi):
            t = toks[k]
            if t.kind is Kind.IDENT and toks[k + 1].text in (",", ")", "=", "["):
                self.decls.setdefault(t.text, []).append((k, func.open, func.close))

    def _declare_locals(self, func: Func) -> None:
        """Each local declaration, with the token range it is visible in (braces tracked in
        one pass: this is the hottest loop of the hazard rules)."""
        toks = self.toks
        stack = [func.open]
        paren_for: list[tuple[int, int]] = []  # (header open, loop end)
        punct_kind, ident_kind = Kind.PUNCT, Kind.IDENT
        for k in range(func.open + 1, func.close):
            t = toks[k]
            if t.kind is punct_kind:
                x = t.text
                if x == "{":
                    stack.append(k)
                elif x == "}" and len(stack) > 1:
                    stack.pop()
                continue
            if t.kind is not ident_kind:
                continue
            x = t.text
            after = toks[k + 1].text
            if x == "for" and after == "(":
                close = match(toks, k + 1)
                if close is not None:
                    paren_for.append((k + 1, statement_end(toks, close + 1, func.close)))
            elif after in _DECLARATOR_END and self._is_declaration(k):
                start, end = self._visibility(k, stack[-1], paren_for, func)
                self.decls.setdefault(x, []).append((k, start, end))

    def _visibility(
        self, k: int, block: int, paren_for: list[tuple[int, int]], func: Func
    ) -> tuple[int, int]:
        """The token range a name declared at ``k`` is visible in: a ``for`` header's
        variable lives for the loop, any other for the rest of the block opened at ``block``."""
        inner = [(a, b) for a, b in paren_for if a < k < b]
        if inner and k < (match(self.toks, inner[-1][0]) or 0):
            return inner[-1]
        closing = match(self.toks, block) if block != func.open else func.close
        return block, closing if closing is not None else func.close

    def _lane_like_parameters(self, func: Func) -> set[tuple[str, int]]:
        """Parameters named like a lane or thread index (``lane``, ``tid``): the caller
        passes the thread's position."""
        lo, hi = func.params
        return {
            (name, d)
            for name, items in self.decls.items()
            for d, a, _b in items
            if a == func.open and lo < d < hi and LANE_LIKE.match(name)
        }

    def _assignments(self, unit: Unit, func: Func) -> list[tuple[tuple[str, int], int, int]]:
        """(assigned variable, value's first token, value's end) of each ``name op= value``."""
        toks = self.toks
        operators = cached(unit, "_taint_assignments", lambda: unit.operators_spelled(_ASSIGN))
        return [
            (self.identity(i - 1), i + 1, self._value_end(i + 1, func.close))
            for i in inside(operators, func.open, func.close)
            if toks[i - 1].kind is Kind.IDENT
        ]

    def _value_end(self, end: int, limit: int) -> int:
        """The end of the assigned value starting at ``end``: the first ``;`` or ``,``
        outside brackets, or the bracket that closes around it."""
        toks = self.toks
        depth = 0
        while end < limit:
            x = toks[end].text
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            elif x in (";", ",") and depth == 0:
                break
            end += 1
        return end

    def _propagate(self, assigns: list[tuple[tuple[str, int], int, int]]) -> None:
        """A variable assigned a tainted value is tainted, to a fixpoint (at most 6 rounds,
        which bounds the work spent on one function)."""
        changed, rounds = True, 0
        while changed and rounds < 6:
            changed = False
            rounds += 1
            for ident, a, b in assigns:
                if ident in self.tainted:
                    continue
                if any(self.is_tainted(k) for k in range(a, b)):
                    self.tainted.add(ident)
                    changed = True

    def _is_declaration(self, k: int) -> bool:
        """Name ``k``, already followed by a ``_DECLARATOR_END``, is declared there."""
        toks = self.toks
        prev, nxt = toks[k - 1], toks[k + 1]
        if toks[k - 2].text in (".", "->"):
            return False
        if prev.kind is Kind.IDENT:
            return prev.text not in _NOT_TYPES
        if prev.text in ("*", "&", "&&"):
            pp = toks[k - 2]
            return pp.kind is Kind.IDENT and pp.text not in _NOT_TYPES or pp.text in (">", "*")
        return prev.text == ">" and nxt.text in ("=", ";", "(", "{")

    def identity(self, k: int) -> tuple[str, int]:
        name = self.toks[k].text
        best = -1
        for d, a, b in self.decls.get(name, ()):
            if d <= k and a <= k <= b and d > best:
                best = d
        return name, best

    def is_tainted(self, k: int) -> bool:
        t = self.toks[k]
        if t.kind is not Kind.IDENT:
            return False
        if t.text in THREAD_SOURCES:
            return True
        if k > 0 and self.toks[k - 1].text in (".", "->"):
            return False  # a member name, not a variable
        return self.identity(k) in self.tainted

    def any(self, first: int, end: int) -> str | None:
        """The first tainted name in tokens[first:end], or None."""
        for k in range(first, end):
            if self.is_tainted(k):
                return self.toks[k].text
        return None


def thread_taint(unit: Unit, func: Func) -> Taint:
    """The thread-index data flow of ``func``, computed once per unit (several rules ask)."""
    flows: dict[int, Taint] = cached(unit, "_thread_taint", dict)
    taint = flows.get(func.open)
    if taint is None:
        taint = flows[func.open] = Taint(unit, func)
    return taint
