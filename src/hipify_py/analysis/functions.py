"""Function definitions found from tokens, the function (scope) around a token, and the
control-flow conditions that enclose it.

Rules use ``unit.ast`` only for what needs types or control flow, and only when a token-level
candidate exists; these token-level answers come first.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..frontend.directives import lines
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .tokens import CONTROL, cached, match, match_back, split

_AFTER_PARAMS = frozenset(
    {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&", "throw"}
)


@dataclass
class Func:
    name: str
    name_index: int  # token index of the function name
    open: int  # token index of the body's '{'
    close: int  # token index of the body's '}'
    specifiers: frozenset[str]  # __global__, __device__, __host__, template, static, ...
    params: tuple[int, int] = (0, 0)  # token indexes of '(' and ')' of the parameter list

    @property
    def is_device(self) -> bool:
        """Device code: `__global__`, `__device__`, or launch bounds, which only a kernel has
        (DeepGEMM's `CUTLASS_GLOBAL __launch_bounds__(32, 1)`: a macro spells `__global__`)."""
        return bool(self.specifiers & {"__global__", "__device__", "__launch_bounds__"})

    @property
    def is_host(self) -> bool:
        return not self.is_device or "__host__" in self.specifiers


def functions(unit: Unit) -> list[Func]:
    """Function definitions (outermost only) found from tokens, with their CUDA specifiers,
    also where a macro of the file spells them (deepmd-kit's `#define DEV_INLINE __device__
    __forceinline__`, round 28)."""
    return cached(unit, "_hz_functions", lambda: _with_macro_specifiers(unit))


_CUDA_SPECIFIERS = frozenset({"__global__", "__device__", "__host__"})


def _with_macro_specifiers(unit: Unit) -> list[Func]:
    found = _find_functions(unit.tokens, _braces(unit))
    # object-like macros of words alone (`__device__ __forceinline__`), not a macro that
    # instantiates kernels (FasterTransformer's `INSTANTIATE...(T) template __global__ ...`)
    spelled = {
        line.body[0].text: words
        for line in lines(unit.tokens, unit.directives)
        if line.word == "define"
        and len(line.body) > 1
        and all(t.kind is Kind.IDENT for t in line.body[1:])
        and (words := _CUDA_SPECIFIERS.intersection(t.text for t in line.body[1:]))
    }
    if not spelled:
        return found
    return [
        replace(f, specifiers=f.specifiers.union(*(spelled.get(w, ()) for w in f.specifiers)))
        for f in found
    ]


def body_follows(unit: Unit, paren: int) -> bool:
    """The parenthesised list opening at token ``paren`` is a function's parameters, a body
    right after them (past `const`, `noexcept`...): a definition, not a call."""
    toks = unit.tokens
    end = unit.lexed.brackets.get(paren)
    if end is None:
        return False
    k = end + 1
    while k < len(toks) and toks[k].text in _AFTER_PARAMS:
        k += 1
    return k < len(toks) and toks[k].text == "{"


def defined_names(unit: Unit) -> frozenset[str]:
    """Names of the functions the file defines: its own `mulhi` or `tex2D` is not CUDA's."""
    return cached(unit, "_hz_defined_names", lambda: frozenset(f.name for f in functions(unit)))


def _braces(unit: Unit) -> list[int]:
    """The '{' that have their '}' (from the lexer's bracket table): only those can open a
    function body."""
    toks = unit.tokens
    return sorted(k for k in unit.lexed.brackets if toks[k].text == "{")


def _find_functions(tokens: Sequence[Token], braces: list[int]) -> list[Func]:
    out: list[Func] = []
    after = 0  # the end of the last function body found
    for i in braces:
        tok = tokens[i]
        if i < after or tok.in_directive or tok.kind is not Kind.PUNCT:
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
                    and name.text not in CONTROL
                    and not (name_i > 0 and tokens[name_i - 1].text in (".", "->"))
                ):
                    close = match(tokens, i)
                    if close is not None:
                        out.append(
                            Func(name.text, name_i, i, close, specifiers(tokens, name_i), (k, j))
                        )
                        after = close + 1
    return out


def specifiers(tokens: Sequence[Token], name_i: int) -> frozenset[str]:
    """The words of the declaration before the name at token ``name_i`` (its CUDA qualifiers,
    `static`, `template`, the return type), back to the statement before it."""
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


def declaration_head(toks: Sequence[Token], f: Func) -> range:
    """The tokens from the end of the statement before ``f`` to its parameter list: where its
    `template <...>` header is."""
    start = f.name_index
    while start > 0 and toks[start - 1].text not in (";", "{", "}") and f.name_index - start < 256:
        start -= 1
    return range(start, f.params[0])


def parameter_names(toks: Sequence[Token], f: Func) -> list[str | None]:
    """The name each parameter of ``f`` declares (the word before any default), in order;
    None where a parameter names nothing (`float`, `...`)."""
    names: list[str | None] = []
    for a, b in split(toks, f.params[0] + 1, f.params[1]):
        cut = next((k for k in range(a, b) if toks[k].text == "="), b)
        last = toks[cut - 1] if cut - 1 > a else None
        names.append(last.text if last is not None and last.kind is Kind.IDENT else None)
    return names


def function_at(unit: Unit, index: int) -> Func | None:
    """The function whose body holds token ``index``."""
    funcs = functions(unit)
    opens = cached(unit, "_hz_func_opens", lambda: [f.open for f in funcs])
    k = bisect.bisect_right(opens, index) - 1
    if k >= 0 and funcs[k].open < index < funcs[k].close:
        return funcs[k]
    return None


def class_bodies(unit: Unit) -> list[tuple[int, int]]:
    """The braces of each `struct`/`class`/`union` body of the file, found once."""

    def find() -> list[tuple[int, int]]:
        toks, brackets = unit.tokens, unit.lexed.brackets
        out = []
        for keyword in ("struct", "class", "union"):
            for k in unit.identifier_positions.get(keyword, ()):
                j = k + 1
                while j < len(toks) and toks[j].text not in (";", "{", "}", "(", ")"):
                    j += 1
                close = brackets.get(j) if j < len(toks) and toks[j].text == "{" else None
                if close is not None:
                    out.append((j, close))
        return out

    return cached(unit, "_class_bodies", find)


def innermost_bodies(bodies: Iterable[tuple[int, int]], at: Iterable[int]) -> dict[int, int]:
    """For each token index of ``at``, the `{` of the innermost of ``bodies`` (braces that nest
    or are disjoint: class bodies) around it, where one is; one sweep over both in source
    order, the open bodies forming a chain."""
    ordered = sorted(bodies)
    found: dict[int, int] = {}
    chain: list[tuple[int, int]] = []
    i = 0
    for k in sorted(at):
        while i < len(ordered) and ordered[i][0] < k:
            while chain and chain[-1][1] < ordered[i][0]:
                chain.pop()
            chain.append(ordered[i])
            i += 1
        while chain and chain[-1][1] < k:
            chain.pop()
        if chain:
            found[k] = chain[-1][0]
    return found


def class_head(toks: Sequence[Token], open_: int) -> tuple[int, int | None] | None:
    """(the class name's token, its base clause's `:` or None) of the body opening at
    ``open_``: `struct NAME [final] [: BASES] {` (None for an unnamed or unreadable head)."""
    j = open_ - 1
    colon = None
    depth = 0
    while j > 0 and j > open_ - 128:
        text = toks[j].text
        depth += (text == ">") - (text == "<")
        if text in ("struct", "class") and depth == 0:
            name = j + 1
            ok = toks[name].kind is Kind.IDENT and toks[name + 1].text in (":", "{", "final")
            return (name, colon) if ok else None
        if text == ":" and depth == 0:
            colon = j
        if text in (";", "{", "}", "(", ")"):
            return None
        j -= 1
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


def _keyword_at(toks: Sequence[Token], k: int) -> int | None:
    """Index of the if/for/while/switch keyword ending at token k (`if constexpr` too)."""
    if toks[k].text == "constexpr" and k > 0 and toks[k - 1].text == "if":
        return k - 1
    return k if toks[k].text in ("if", "for", "while", "switch") else None


def _header_before(
    toks: Sequence[Token], func: Func, pos: int, out: list[tuple[str, int, int]]
) -> int | None:
    """If a control header ends right before token ``pos``, record it in ``out``; return its
    start.  (A module function, not a closure: a closure that calls itself is a reference
    cycle, which would keep the file's tokens alive until the cyclic collector runs.)"""
    prev = toks[pos - 1].text
    if prev == ")":
        return _parenthesised_header(toks, pos, out)
    if prev == "else":
        then = _then_branch_start(toks, func, pos)
        return None if then is None else _header_before(toks, func, then, out)
    if prev == "do":
        _record_do_condition(toks, pos, out)
        return pos - 1
    return None


def _parenthesised_header(
    toks: Sequence[Token], pos: int, out: list[tuple[str, int, int]]
) -> int | None:
    """The if/for/while/switch whose ``(...)`` ends right before ``pos``: its condition is
    recorded and its keyword returned (other parentheses, a call's, are no header)."""
    o = match_back(toks, pos - 1)
    if o is None or o <= 0:
        return None
    kw = _keyword_at(toks, o - 1)
    if kw is not None:
        out.append((toks[kw].text, o + 1, pos - 1))
    return kw


def _then_branch_start(toks: Sequence[Token], func: Func, pos: int) -> int | None:
    """Where the then-branch of the ``if`` whose ``else`` ends right before ``pos`` starts:
    the ``else`` is inside that if statement, so its header encloses ``pos`` too."""
    k = pos - 2
    if toks[k].text == "}":
        return match_back(toks, k)
    while k > func.open and toks[k - 1].text not in (";", "{", "}", ")"):
        k -= 1
    return k


def _record_do_condition(toks: Sequence[Token], pos: int, out: list[tuple[str, int, int]]) -> None:
    """The ``while (...)`` condition after the braced body of the ``do`` before ``pos``."""
    close = match(toks, pos) if toks[pos].text == "{" else None
    if close is not None and toks[close + 1].text == "while":
        end = match(toks, close + 2)
        if end is not None:
            out.append(("do", close + 3, end))


def _statement_start(toks: Sequence[Token], i: int, func: Func) -> int:
    """The first token of the statement holding ``i``; a brace-less body ends at its header,
    so the header stays outside and is found as an enclosing one."""
    s = i
    while s > func.open + 1 and toks[s - 1].text not in (";", "{", "}", "else", "do"):
        if toks[s - 1].text == ")":
            o = match_back(toks, s - 1)
            if o is not None and o > 0 and _keyword_at(toks, o - 1) is not None:
                break
        s -= 1
    return s


def _block_open(toks: Sequence[Token], func: Func, pos: int) -> int | None:
    """The ``{`` that opens the block around ``pos`` (None at the function's own body, or
    when a bracket does not match): nested brackets before ``pos`` are skipped whole."""
    k = pos - 1
    while k > func.open:
        x = toks[k].text
        if x in ("}", ")", "]") and toks[k].kind is Kind.PUNCT:
            m = match_back(toks, k)
            if m is None:
                return None
            k = m - 1
            continue
        if x == "{" and toks[k].kind is Kind.PUNCT:
            return k
        k -= 1
    return None


def enclosing_conditions(unit: Unit, i: int, func: Func) -> list[tuple[str, int, int]]:
    """(keyword, first, end) token ranges of the conditions of the if/for/while/switch/do
    statements that enclose token ``i`` inside ``func``, innermost first."""
    toks = unit.tokens
    out: list[tuple[str, int, int]] = []
    # the statement holding i, then each block around it
    pos = _statement_start(toks, i, func)
    while pos > func.open:
        nxt = _header_before(toks, func, pos, out)
        while nxt is not None and nxt > func.open + 1:
            pos = nxt
            nxt = _header_before(toks, func, pos, out)
        k = _block_open(toks, func, pos)
        if k is None:
            break
        h = _header_before(toks, func, k, out)
        pos = k if h is None else h  # no header: a plain block (or lambda/initializer)
        if pos <= func.open + 1:
            break
    return out
