"""Shared helpers for hazard rules: functions found from tokens, thread-id data flow, calls.

Everything here works on the raw token list (every preprocessor branch, CUDA and HIP alike) and
is cached on the ``Unit`` so that twenty rules share one scan.  Rules use ``unit.ast`` only for
what needs types or control flow, and only when a token-level candidate exists.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..findings import Finding, Fix
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_backward, match_forward, split_args
from ..frontend.unit import Unit
from ..rules import RULES

_CONTROL = frozenset(
    {
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "sizeof",
        "decltype",
        "alignof",
        "__attribute__",
        "__launch_bounds__",
        "__declspec",
        "defined",
        "static_assert",
        "noexcept",
        "typeid",
        "alignas",
    }
)
_AFTER_PARAMS = frozenset(
    {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&", "throw"}
)

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

SHUFFLES = {  # name -> index of the width argument
    "__shfl": 2,
    "__shfl_up": 2,
    "__shfl_down": 2,
    "__shfl_xor": 2,
    "__shfl_sync": 3,
    "__shfl_up_sync": 3,
    "__shfl_down_sync": 3,
    "__shfl_xor_sync": 3,
}
BALLOTS = frozenset(
    {
        "__ballot",
        "__ballot_sync",
        "__activemask",
        "__ballot64",
        "__lanemask_lt",
        "__lanemask_le",
        "__lanemask_gt",
        "__lanemask_ge",
        "__lanemask_eq",
        "__match_any_sync",
        "__match_all_sync",
    }
)
MASKED_SYNC = frozenset(
    {
        "__shfl_sync",
        "__shfl_up_sync",
        "__shfl_down_sync",
        "__shfl_xor_sync",
        "__ballot_sync",
        "__any_sync",
        "__all_sync",
        "__uni_sync",
        "__match_any_sync",
        "__match_all_sync",
        "__syncwarp",
        "__reduce_add_sync",
        "__reduce_min_sync",
        "__reduce_max_sync",
        "__reduce_and_sync",
        "__reduce_or_sync",
        "__reduce_xor_sync",
    }
)


@dataclass
class Func:
    name: str
    name_index: int  # token index of the function name
    open: int  # token index of the body's '{'
    close: int  # token index of the body's '}'
    specifiers: frozenset[str]  # __global__, __device__, __host__, template, static, ...
    params: tuple[int, int] = (0, 0)  # token indexes of '(' and ')' of the parameter list
    _taint: Taint | None = field(default=None, repr=False)

    @property
    def is_device(self) -> bool:
        return bool(self.specifiers & {"__global__", "__device__"})

    @property
    def is_host(self) -> bool:
        return not self.is_device or "__host__" in self.specifiers


def _cached(unit: Unit, key: str, make):
    value = unit.__dict__.get(key)
    if value is None:
        value = make()
        unit.__dict__[key] = value
    return value


match = match_forward  # the shared bracket matcher (frontend.syntax)
match_back = match_backward


def functions(unit: Unit) -> list[Func]:
    """Function definitions (outermost only) found from tokens, with their CUDA specifiers."""
    return _cached(unit, "_hz_functions", lambda: _find_functions(unit.tokens))


def _find_functions(tokens: list[Token]) -> list[Func]:
    out: list[Func] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.in_directive or tok.text != "{" or tok.kind is not Kind.PUNCT:
            i += 1
            continue
        j = i - 1
        while j >= 0 and (tokens[j].text in _AFTER_PARAMS or tokens[j].in_directive):
            j -= 1
        if j > 0 and tokens[j].text == ")":
            k = match_back(tokens, j)
            if k is not None and k > 0:
                name_i = k - 1
                name = tokens[name_i]
                if (
                    name.kind is Kind.IDENT
                    and name.text not in _CONTROL
                    and not (name_i > 0 and tokens[name_i - 1].text in (".", "->"))
                ):
                    close = match(tokens, i)
                    if close is not None:
                        out.append(
                            Func(name.text, name_i, i, close, _specifiers(tokens, name_i), (k, j))
                        )
                        i = close + 1
                        continue
        i += 1
    return out


def _specifiers(tokens: list[Token], name_i: int) -> frozenset[str]:
    found = set()
    j = name_i - 1
    while j >= 0:
        tok = tokens[j]
        if tok.in_directive:
            j -= 1
            continue
        if tok.text in (";", "}", "{"):
            break
        if tok.text == ")":
            k = match_back(tokens, j)
            if k is None:
                break
            j = k - 1
            continue
        if tok.kind is Kind.IDENT:
            found.add(tok.text)
        j -= 1
    return frozenset(found)


def function_at(unit: Unit, index: int) -> Func | None:
    """The function whose body holds token ``index``."""
    funcs = functions(unit)
    opens = _cached(unit, "_hz_func_opens", lambda: [f.open for f in funcs])
    k = bisect.bisect_right(opens, index) - 1
    if k >= 0 and funcs[k].open < index < funcs[k].close:
        return funcs[k]
    return None


def scope_of(unit: Unit, index: int) -> int:
    """The function whose body or parameter list holds token ``index`` (as the token index of
    its '{'), or -1 at file scope: the scope a variable declared there is visible in."""
    func = function_at(unit, index)
    if func is not None:
        return func.open
    for f in functions(unit):
        if f.params[0] < index < f.params[1]:
            return f.open
    return -1


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
        toks = unit.tokens
        self.toks = toks
        self.decls: dict[str, list[tuple[int, int, int]]] = {}  # name -> (decl, start, end)
        lo, hi = func.params
        for k in range(lo + 1, hi):
            t = toks[k]
            if t.kind is Kind.IDENT and toks[k + 1].text in (",", ")", "=", "["):
                self.decls.setdefault(t.text, []).append((k, func.open, func.close))
        stack = [func.open]
        paren_for: list[tuple[int, int]] = []  # (header open, loop end)
        k = func.open + 1
        while k < func.close:
            t = toks[k]
            x = t.text
            if t.kind is Kind.PUNCT:
                if x == "{":
                    stack.append(k)
                elif x == "}" and len(stack) > 1:
                    stack.pop()
            elif t.kind is Kind.IDENT and x == "for" and toks[k + 1].text == "(":
                close = match(toks, k + 1)
                if close is not None:
                    paren_for.append((k + 1, statement_end(toks, close + 1, func.close)))
            elif t.kind is Kind.IDENT and self._is_declaration(k):
                inner = [(a, b) for a, b in paren_for if a < k < b]
                if inner and k < (match(toks, inner[-1][0]) or 0):
                    start, end = inner[-1]
                else:
                    start = stack[-1]
                    closing = match(toks, start) if start != func.open else func.close
                    end = closing if closing is not None else func.close
                self.decls.setdefault(x, []).append((k, start, end))
            k += 1
        self.tainted: set[tuple[str, int]] = set()
        for name, items in self.decls.items():
            for d, a, _b in items:
                if a == func.open and lo < d < hi and LANE_LIKE.match(name):
                    self.tainted.add((name, d))
        assigns = []
        for i in range(func.open + 1, func.close):
            t = toks[i]
            if (
                t.kind is Kind.PUNCT
                and t.text in ("=", "+=", "-=", "|=", "^=", "&=", "*=", "<<=", ">>=")
                and toks[i - 1].kind is Kind.IDENT
            ):
                end = i + 1
                depth = 0
                while end < func.close:
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
                assigns.append((self.identity(i - 1), i + 1, end))
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
        toks = self.toks
        prev, nxt = toks[k - 1], toks[k + 1]
        if nxt.text not in ("=", ";", ",", "(", "{", "[", ":") or toks[k - 2].text in (".", "->"):
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


def statement_end(toks: Sequence[Token], j: int, limit: int) -> int:
    """Last token index of the statement starting at j (a block or up to ';')."""
    if j < len(toks) and toks[j].text == "{":
        return match(toks, j) or limit
    depth = 0
    while j < limit:
        x = toks[j].text
        if x in ("(", "[", "{"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
        elif x == ";" and depth <= 0:
            return j
        j += 1
    return limit


def thread_taint(unit: Unit, func: Func) -> Taint:
    """The (cached) thread-index data flow of ``func``."""
    if func._taint is None:
        func._taint = Taint(unit, func)
    return func._taint


def operand_before(tokens: Sequence[Token], op: int) -> tuple[int, int] | None:
    """Token range [first, op) of the primary/postfix expression left of operator ``op``."""
    j = op - 1
    first = None
    while j >= 0:
        t = tokens[j]
        if t.text in (")", "]"):
            k = match_back(tokens, j)
            if k is None:
                return None
            first = k
            j = k - 1
            if j >= 0 and tokens[j].kind is Kind.IDENT and tokens[j].text not in _CONTROL:
                continue  # call or subscript: f(...) / a[...]
            if j >= 0 and tokens[j].text in ("]", ")") and tokens[first].text == "[":
                continue
            break
        if t.kind in (Kind.IDENT, Kind.NUMBER):
            first = j
            j -= 1
            if j >= 0 and tokens[j].text in (".", "->", "::"):
                j -= 1
                continue
            break
        break
    return None if first is None else (first, op)


def int_value(text: str) -> int | None:
    """Value of an integer literal token (any base, suffixes, digit separators) or None."""
    t = text.replace("'", "").rstrip("uUlL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t[2:], 2)
        if len(t) > 1 and t.startswith("0") and t.isdigit():
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


def is_64bit_literal(text: str) -> bool:
    return "ll" in text.lower() or (int_value(text) or 0) > 0xFFFFFFFF


@dataclass(frozen=True)
class Call:
    name: str
    index: int  # token index of the name
    open: int
    close: int
    args: tuple[tuple[int, int], ...]  # token ranges [first, end)


def calls(unit: Unit, names: frozenset[str] | set[str] | dict) -> Iterator[Call]:
    """Every call ``name(...)`` of one of ``names`` (also in macro bodies and #if branches)."""
    toks = unit.tokens
    present = set(names) & unit.identifiers
    if not present:
        return
    positions = unit.identifier_positions
    for i in sorted(i for name in present for i in positions[name]):
        t = toks[i]
        if (
            i + 1 < len(toks)
            and toks[i + 1].text == "("
            and not (i > 0 and toks[i - 1].text in (".", "->"))
        ):
            close = match(toks, i + 1)
            if close is None:
                continue
            yield Call(t.text, i, i + 1, close, tuple(split(toks, i + 2, close)))


def one_per_line(findings: Iterable[Finding], unit: Unit) -> Iterator[Finding]:
    """The first finding on each line (``a.major > 8 || a.minor > 0`` is one problem)."""
    seen: set[int] = set()
    for f in findings:
        line = unit.lines.position(f.start)[0]
        if line not in seen:
            seen.add(line)
            yield f


def split(tokens: Sequence[Token], first: int, end: int) -> list[tuple[int, int]]:
    """Top-level comma split of tokens[first:end] as [first, end) token ranges."""
    return [(arg.first, arg.last + 1) for arg in split_args(tokens, first, end) or ()]


def text_of(unit: Unit, first: int, end: int) -> str:
    toks = unit.tokens
    if end <= first:
        return ""
    return " ".join(unit.text[toks[first].start : toks[end - 1].end].split())


def finding(
    unit: Unit,
    rule: str,
    start: int,
    end: int,
    message: str,
    fix: Fix | None = None,
    extra: dict | None = None,
) -> Finding:
    return Finding(rule, RULES[rule].severity, start, end, message, fix, extra=extra or {})


def statement_bounds(tokens: Sequence[Token], i: int, lo: int, hi: int) -> tuple[int, int]:
    """Token range [first, last] of the statement holding token i (between ';', '{', '}')."""
    a = i
    while a > lo and tokens[a - 1].text not in (";", "{", "}"):
        a -= 1
    b = i
    while b < hi and tokens[b].text not in (";", "{", "}"):
        b += 1
    return a, b


def has_ident(toks: Sequence[Token], names: set[str] | frozenset[str]) -> bool:
    return any(t.kind is Kind.IDENT and t.text in names for t in toks)


_SIZEOF = {
    "char": 1,
    "bool": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "unsigned char": 1,
    "short": 2,
    "half": 2,
    "__half": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "__nv_bfloat16": 2,
    "__hip_bfloat16": 2,
    "hip_bfloat16": 2,
    "int": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "float": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "half2": 4,
    "__half2": 4,
    "double": 8,
    "long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "size_t": 8,
    "float2": 8,
    "int2": 8,
    "float4": 16,
    "int4": 16,
    "double2": 16,
}
_WIDE_WORDS = frozenset({"uint64_t", "int64_t", "size_t", "uintptr_t", "intptr_t", "u64"})
_NARROW_WORDS = frozenset({"uint32_t", "int32_t", "uint", "u32", "int", "unsigned", "short"})


def type_size(unit: Unit, declared: str) -> int | None:
    """Size in bytes of a declared integer type written as words (`unsigned long long`,
    `uint32_t`, a `lane_mask_t` typedef), as the HIP/AMD build sees it: a typedef chosen per
    platform resolves to its definition in code HIP compiles.  None when unknown."""
    words = [w for w in declared.replace("*", " * ").split() if w not in ("const", "volatile")]
    if not words or "*" in words:
        return None
    if words.count("long") == 2 or set(words) & _WIDE_WORDS:
        return 8
    if len(words) == 1 and words[0] not in _NARROW_WORDS:
        target = _typedefs(unit).get(words[0])
        return type_size(unit, target) if target and target != words[0] else None
    if words.count("long") == 1:
        return 8
    if set(words) <= _NARROW_WORDS | {"signed"}:
        return 2 if "short" in words else 4
    return None


def _typedefs(unit: Unit) -> dict[str, str]:
    """`typedef T NAME;` / `using NAME = T;` outside the branches HIP never compiles."""

    def make():
        toks = unit.tokens
        inactive = inactive_in(unit)
        out: dict[str, str] = {}
        for name in ("typedef", "using"):
            for i in unit.identifier_positions.get(name, ()):
                if toks[i].start in inactive:
                    continue
                j = i + 1
                while j < len(toks) and toks[j].text not in (";", "{", "("):
                    j += 1
                if j >= len(toks) or toks[j].text != ";":
                    continue
                body = [t.text for t in toks[i + 1 : j]]
                if name == "typedef" and len(body) >= 2:
                    out.setdefault(body[-1], " ".join(body[:-1]))
                elif name == "using" and len(body) >= 3 and body[1] == "=":
                    out.setdefault(body[0], " ".join(body[2:]))
        return out

    return _cached(unit, "_hz_typedefs", make)


_ARITH = re.compile(r"^[0-9+\-*/%() <>]*$")


def constant_at(unit: Unit, name: str, index: int) -> int | None:
    """The value of integer constant ``name`` (`#define N 128`, `constexpr int N = 128;`,
    `const int N = 128;`) as seen from token ``index``: a `constexpr`/`const`
    declared earlier in the enclosing function, else the file-scope one.  A function-local
    `constexpr int rows = 32;` in one kernel says nothing about `rows` in another."""
    file_scope, local = _constant_tables(unit)
    func = function_at(unit, index)
    if func is not None:
        best = None
        for decl, value in local.get((func.open, name), ()):
            if decl < index:
                best = value
        if best is not None or (func.open, name) in local:
            return best
    return file_scope.get(name)


def _constant_tables(unit: Unit):
    def make():
        toks = unit.tokens
        inactive = inactive_in(unit)  # the HIP build's value of a per-platform constant
        out: dict[str, int] = {}
        local: dict[tuple[int, str], list[tuple[int, int | None]]] = {}
        ids = unit.identifier_positions
        starts = sorted([*unit.directives, *ids.get("const", ()), *ids.get("constexpr", ())])
        for i in starts:  # only `#define` and `const`/`constexpr` start a constant
            t = toks[i]
            if i + 3 >= len(toks) or t.start in inactive:
                continue
            if (
                t.kind is Kind.DIRECTIVE
                and toks[i + 1].text == "define"
                and toks[i + 3].in_directive
                and toks[i + 3].kind is Kind.NUMBER
                and (
                    i + 4 >= len(toks)
                    or not toks[i + 4].in_directive
                    or toks[i + 4].kind is Kind.DIRECTIVE
                )
            ):
                v = int_value(toks[i + 3].text)
                if v is not None:
                    out.setdefault(toks[i + 2].text, v)
            elif t.kind is Kind.IDENT and t.text in ("constexpr", "const"):
                j = i + 1
                while (
                    j < len(toks) and toks[j].kind is Kind.IDENT and toks[j + 1].kind is Kind.IDENT
                ):
                    j += 1
                if j + 3 >= len(toks) or toks[j].kind is not Kind.IDENT or toks[j + 1].text != "=":
                    continue
                literal = toks[j + 2].kind is Kind.NUMBER and toks[j + 3].text == ";"
                v = int_value(toks[j + 2].text) if literal else None
                func = function_at(unit, j)
                if func is not None:  # a local constant (its value, or None if not a literal)
                    local.setdefault((func.open, toks[j].text), []).append((j, v))
                elif v is not None:
                    out.setdefault(toks[j].text, v)
        return out, local

    return _cached(unit, "_hz_constants", make)


def _define_ranges(unit: Unit) -> dict[str, tuple[int, int]]:
    """NAME -> token range of the body of an object-like `#define NAME body`."""

    def make():
        toks = unit.tokens
        inactive = inactive_in(unit)
        out: dict[str, tuple[int, int]] = {}
        for i in unit.directives:
            t = toks[i]
            if (
                i + 3 < len(toks)
                and t.start not in inactive
                and toks[i + 1].text == "define"
                and toks[i + 2].kind is Kind.IDENT
                and unit.text[toks[i + 2].end : toks[i + 2].end + 1] != "("
            ):
                j = i + 3
                while j < len(toks) and toks[j].in_directive and toks[j].kind is not Kind.DIRECTIVE:
                    j += 1
                if j > i + 3:
                    out.setdefault(toks[i + 2].text, (i + 3, j))
        return out

    return _cached(unit, "_hz_define_ranges", make)


def evaluate(unit: Unit, first: int, end: int, _depth: int = 0) -> int | None:
    """Value of a small integer expression (literals, known constants, sizeof(basic type))."""
    toks = unit.tokens
    parts: list[str] = []
    i = first
    while i < end:
        t = toks[i]
        if t.text == "sizeof" and i + 1 < end and toks[i + 1].text == "(":
            close = match(toks, i + 1)
            if close is None or close >= end:
                return None
            name = " ".join(x.text for x in toks[i + 2 : close])
            if name not in _SIZEOF:
                return None
            parts.append(str(_SIZEOF[name]))
            i = close + 1
            continue
        if t.kind is Kind.NUMBER:
            v = int_value(t.text)
            if v is None:
                return None
            parts.append(str(v))
        elif t.kind is Kind.IDENT:
            value = constant_at(unit, t.text, i)
            if value is None and _depth < 8:
                value = _single_assignment(unit, i, _depth)
            if value is not None:
                parts.append(str(value))
            else:
                rng = _define_ranges(unit).get(t.text)
                value = evaluate(unit, *rng, _depth + 1) if rng and _depth < 8 else None
                if value is None:
                    return None
                parts.append(str(value))
        elif t.text in ("+", "-", "*", "/", "%", "(", ")", "<<", ">>"):
            parts.append("//" if t.text == "/" else t.text)
        elif t.text in ("static_cast", "size_t", "<", ">"):
            pass
        else:
            return None
        i += 1
    expr = " ".join(parts)
    if not expr or not _ARITH.match(expr.replace("//", "/")):
        return None
    shifts = zip(parts, parts[1:], strict=False)
    if any(p == "<<" and not (n.isdigit() and int(n) <= 64) for p, n in shifts):
        return None  # 1 << 1000000000 would build a gigantic integer
    try:
        value = eval(expr, {"__builtins__": {}}, {})  # digits and operators only
    except Exception:
        return None
    return value if isinstance(value, int) else None


def _single_assignment(unit: Unit, i: int, depth: int) -> int | None:
    """Value of local variable tokens[i] when the function assigns it exactly once, from a
    constant expression (`int smem = 96 * 1024;` before `cudaFuncSetAttribute(..., smem)`)."""
    toks = unit.tokens
    func = function_at(unit, i)
    if func is None:
        return None
    positions = unit.identifier_positions.get(toks[i].text, [])  # ascending token indices
    inside = positions[
        bisect.bisect_right(positions, func.open) : bisect.bisect_left(positions, func.close)
    ]
    sites = [
        k
        for k in inside
        if toks[k + 1].text in ("=", "+=", "-=", "*=", "/=", "<<=", "|=", "++", "--")
        or toks[k - 1].text in ("++", "--", "&")
    ]
    if len(sites) != 1 or sites[0] > i or toks[sites[0] + 1].text != "=":
        return None
    first = sites[0] + 2
    end = first
    while end < func.close and toks[end].text not in (";", ","):
        end += 1
    return evaluate(unit, first, end, depth + 1)


def cursor_at(unit: Unit, offset: int):
    """The libclang cursor at a character offset of the unit (None without an AST).

    Much cheaper than walking the tree: rules find candidates from tokens and ask the AST only
    about those places.
    """
    ast = unit.ast
    if ast is None:
        return None
    import clang.cindex as ci

    text = unit.text
    byte = offset if ast._ascii else len(text[:offset].encode("utf-8"))
    tu = ast.tu
    f = _cached(unit, "_hz_cxfile", lambda: tu.get_file(ast.filename))
    loc = ci.SourceLocation.from_offset(tu, f, byte)
    cur = ci.Cursor.from_location(tu, loc)
    return None if cur is None or cur.kind.is_invalid() else cur


def _keyword_at(toks: Sequence[Token], k: int) -> int | None:
    """Index of the if/for/while/switch keyword ending at token k (`if constexpr` too)."""
    if toks[k].text == "constexpr" and k > 0 and toks[k - 1].text == "if":
        return k - 1
    return k if toks[k].text in ("if", "for", "while", "switch") else None


def enclosing_conditions(unit: Unit, i: int, func: Func) -> list[tuple[str, int, int]]:
    """(keyword, first, end) token ranges of the conditions of the if/for/while/switch/do
    statements that enclose token ``i`` inside ``func``, innermost first."""
    toks = unit.tokens
    out: list[tuple[str, int, int]] = []

    def header_before(pos: int) -> int | None:
        """If a control header ends right before token ``pos``, record it; return its start."""
        prev = toks[pos - 1]
        if prev.text == ")":
            o = match_back(toks, pos - 1)
            if o is not None and o > 0:
                kw = _keyword_at(toks, o - 1)
                if kw is not None:
                    out.append((toks[kw].text, o + 1, pos - 1))
                    return kw
        elif prev.text == "else":
            # the matching if: skip its then-branch backwards
            k = pos - 2
            if toks[k].text == "}":
                opening = match_back(toks, k)
                if opening is None:
                    return None
                k = opening
            else:
                while k > func.open and toks[k - 1].text not in (";", "{", "}", ")"):
                    k -= 1
            return header_before(k)
        elif prev.text == "do":
            close = match(toks, pos) if toks[pos].text == "{" else None
            if close is not None and toks[close + 1].text == "while":
                end = match(toks, close + 2)
                if end is not None:
                    out.append(("do", close + 3, end))
            return pos - 1
        return None

    # the statement holding i (a brace-less body ends at its header), then each block
    s = i
    while s > func.open + 1 and toks[s - 1].text not in (";", "{", "}", "else", "do"):
        if toks[s - 1].text == ")":
            o = match_back(toks, s - 1)
            if o is not None and o > 0 and _keyword_at(toks, o - 1) is not None:
                break
        s -= 1
    pos = s
    while pos > func.open:
        nxt = header_before(pos)
        while nxt is not None and nxt > func.open + 1:
            pos = nxt
            nxt = header_before(pos)
        # find the '{' that opens the block around pos
        k = pos - 1
        while k > func.open:
            x = toks[k].text
            if x in ("}", ")", "]") and toks[k].kind is Kind.PUNCT:
                m = match_back(toks, k)
                if m is None:
                    return out
                k = m - 1
                continue
            if x == "{" and toks[k].kind is Kind.PUNCT:
                break
            k -= 1
        if k <= func.open:
            break
        pos = k
        h = header_before(pos)
        if h is None:
            pos = k  # a plain block (or lambda/initializer): keep going outwards
        else:
            pos = h
        if pos <= func.open + 1:
            break
    return out
