"""Integer values from tokens: literals, constants (`#define`, `const`, `constexpr`), small
expressions, and the byte sizes of basic and typedef'd types as the HIP build sees them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .declared_types import typedefs
from .functions import Func, declaration_head, function_at
from .namespaces import project_warp_size
from .own_constants import template_parameter
from .tokens import cached, inside, match, split, template_close
from .type_sizes import SIZEOF


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


def compare(op: str, left: int, right: int) -> bool | None:
    """``left op right`` for a C comparison operator; None for any other operator."""
    return {
        "<": left < right,
        "<=": left <= right,
        ">": left > right,
        ">=": left >= right,
        "==": left == right,
        "!=": left != right,
    }.get(op)


_ARITH = re.compile(r"^[0-9+\-*/%() <>]*$")


def constant_at(unit: Unit, name: str, index: int) -> int | None:
    """The value of integer constant ``name`` (`#define N 128`, `constexpr int N = 128;`,
    `const int N = 128;`) as seen from token ``index``: a `constexpr`/`const`
    declared earlier in the enclosing function, else the file-scope one, else, for a name
    the file does not define, the tree's warp-size constant of 32 (``Unit.tree_warp_constants``).
    A function-local `constexpr int rows = 32;` in one kernel says nothing about `rows` in
    another."""
    file_scope, local = _constant_tables(unit)
    func = function_at(unit, index)
    if func is not None:
        best = None
        for decl, value in local.get((func.open, name), ()):
            if decl < index:
                best = value
        if best is not None or (func.open, name) in local:
            return best
        default = _template_default(unit, func, name)
        if default is None:
            default = _instantiated(unit, func, name)
        if default is not None:
            return default
    if name in file_scope or not _tree_constant(unit, name):
        return file_scope.get(name)
    return 32


def _template_default(unit: Unit, func: Func, name: str) -> int | None:
    """The number a template parameter ``name`` of ``func`` defaults to (`template <int
    WARPS_PER_BLOCK, int WARP_SIZE = 32>`: FasterTransformer's `block_sum`, whose callers all
    take the default), or a file constant of one (oneflow's `int thread_group_width =
    kWarpSize`, round 32), else None."""
    toks = unit.tokens
    for j in declaration_head(toks, func):
        if toks[j].text != name or toks[j + 1].text != "=" or not template_parameter(toks, j):
            continue
        if toks[j + 2].kind is Kind.NUMBER:
            return int_value(toks[j + 2].text)
        if toks[j + 2].kind is Kind.IDENT and toks[j + 3].text in (",", ">"):
            return constant_at(unit, toks[j + 2].text, j + 2)
    return None


def _instantiated(unit: Unit, func: Func, name: str) -> int | None:
    """The one number every explicit instantiation of ``func`` in the file gives its template
    parameter ``name`` (mistral.rs's `gdn_warp_sum<WARP_SIZE>(x)`, called from kernels whose
    `WARP_SIZE` is 32, round 33); None where they disagree, one is unknown or there is none.
    Asked once per function and name: a template that instantiates itself sees None."""
    known: dict[tuple[int, str], int | None] = cached(unit, "_template_instances", dict)
    key = (func.open, name)
    if key not in known:
        known[key] = None
        place = _template_place(unit.tokens, func, name)
        known[key] = None if place is None else _one_argument(unit, func, place)
    return known[key]


def _template_place(toks: Sequence[Token], func: Func, name: str) -> int | None:
    """Which parameter of ``func``'s `template <...>` header ``name`` is, or None."""
    head = declaration_head(toks, func)
    for j in head:
        if toks[j].text == "template" and toks[j + 1].text == "<":
            close = template_close(toks, j + 1)
            if close is None:
                return None
            for place, (a, b) in enumerate(split(toks, j + 2, close)):
                if any(toks[k].text == name for k in range(a, b)):
                    return place
    return None


def _one_argument(unit: Unit, func: Func, place: int) -> int | None:
    """The value of the ``place``-th template argument at every `name<...>` of ``func`` outside
    its own body, if they all agree."""
    toks = unit.tokens
    values: set[int | None] = set()
    for k in unit.identifier_positions.get(func.name, ()):
        if func.open < k < func.close or k + 1 >= len(toks) or toks[k + 1].text != "<":
            continue
        close = template_close(toks, k + 1)
        args = split(toks, k + 2, close) if close is not None else []
        values.add(evaluate(unit, *args[place]) if place < len(args) else None)
        if len(values) > 1 or None in values:
            return None
    return values.pop() if values else None


def _tree_constant(unit: Unit, name: str) -> bool:
    """``name`` is the tree's warp-size constant of 32 here: the file neither defines nor
    declares it (nunchaku's `warp = threadIdx.x / WARP_SIZE` in a file that uses a header's
    `WARP_SIZE`: `warp` is a variable there, though another file defines a constant `warp`)."""
    if name not in unit.tree_warp_constants:
        return False
    found: dict[str, bool] = cached(unit, "_hz_tree_constants", dict)
    if name not in found:
        toks = unit.tokens
        found[name] = name not in _define_ranges(unit) and not any(
            _declared_at(toks, k) for k in unit.identifier_positions.get(name, ())
        )
    return found[name]


def _declared_at(toks: Sequence[Token], k: int) -> bool:
    """The name at token ``k`` is declared or assigned there: `int warp = ...`, `int warp;`,
    a parameter `int warp)`, `warp = ...`, or a member `.warp`."""
    before = toks[k - 1] if k else None
    after = toks[k + 1].text if k + 1 < len(toks) else ""
    if before is not None and before.text in (".", "->", "#", "define"):
        return True
    if after == "=":
        return True
    return (
        before is not None
        and before.kind is Kind.IDENT
        and before.text not in ("return", "case", "sizeof", "else", "do")
        and after in (";", ",", ")", "[", "{", ":")
    )


# file-scope NAME -> value, and (function, NAME) -> [(token index, value or None)] of locals
_Constants = tuple[dict[str, int], dict[tuple[int, str], list[tuple[int, int | None]]]]


def _constant_tables(unit: Unit) -> _Constants:
    def make() -> _Constants:
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
            if t.kind is Kind.DIRECTIVE:
                defined = _defined_literal(toks, i)
                if defined is not None:
                    out.setdefault(*defined)
                continue
            declared = _declared_constant(toks, i)
            if declared is None:
                continue
            j, v = declared
            func = function_at(unit, j)
            if func is not None:  # a local constant (its value, or None if not a literal)
                local.setdefault((func.open, toks[j].text), []).append((j, v))
            elif v is not None:
                out.setdefault(toks[j].text, v)
        return out, local

    return cached(unit, "_hz_constants", make)


def _defined_literal(toks: Sequence[Token], i: int) -> tuple[str, int] | None:
    """(NAME, value) of ``#define NAME <integer literal>`` at directive ``i``: the literal
    alone, since anything after it would make the value an expression."""
    value = toks[i + 3]
    if toks[i + 1].text != "define" or not value.in_directive or value.kind is not Kind.NUMBER:
        return None
    if i + 4 < len(toks) and toks[i + 4].in_directive and toks[i + 4].kind is not Kind.DIRECTIVE:
        return None
    v = int_value(value.text)
    return None if v is None else (toks[i + 2].text, v)


def _declared_constant(toks: Sequence[Token], i: int) -> tuple[int, int | None] | None:
    """(name token, value) of ``const``/``constexpr T NAME = ...`` (or ``T NAME{...}``, as
    FasterTransformer's attention writes `constexpr unsigned WARP_SIZE{32};`) starting at
    ``i``; the value is None unless the initializer is one integer literal."""
    if toks[i].kind is not Kind.IDENT or toks[i].text not in ("constexpr", "const"):
        return None
    j = i + 1
    while j < len(toks) and toks[j].kind is Kind.IDENT and toks[j + 1].kind is Kind.IDENT:
        j += 1
    if j + 3 >= len(toks) or toks[j].kind is not Kind.IDENT or toks[j + 1].text not in "={":
        return None
    close = "}" if toks[j + 1].text == "{" else ";"
    literal = toks[j + 2].kind is Kind.NUMBER and toks[j + 3].text == close
    return j, int_value(toks[j + 2].text) if literal else None


def _define_ranges(unit: Unit) -> dict[str, tuple[int, int]]:
    """NAME -> token range of the body of an object-like `#define NAME body`."""

    def make() -> dict[str, tuple[int, int]]:
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

    return cached(unit, "_hz_define_ranges", make)


def evaluate(
    unit: Unit, first: int, end: int, _depth: int = 0, widest: int | None = None
) -> int | None:
    """Value of a small integer expression (literals, known constants, sizeof(basic type)).
    ``widest``: the size to take for `sizeof` of a type it does not know (a template's
    `value_type`), for an upper bound; None leaves such an expression unknown."""
    toks = unit.tokens
    parts: list[str] = []
    i = first
    while i < end:
        if toks[i].text == "sizeof" and i + 1 < end and toks[i + 1].text == "(":
            close = match(toks, i + 1)
            if close is None or close >= end:
                return None
            size = SIZEOF.get(" ".join(x.text for x in toks[i + 2 : close]))
            if size is None and widest is not None and _an_element(unit, i + 2, close):
                size = widest
            if size is None:
                return None
            parts.append(str(size))
            i = close + 1
            continue
        part = _expression_part(unit, i, _depth, widest)
        if part is None:
            return None
        if part:
            parts.append(part)
        i += 1
    return _arithmetic(parts)


def _an_element(unit: Unit, first: int, end: int) -> bool:
    """``tokens[first:end]``, a `sizeof` operand, is one element: `*ptr`, `data[0]`, or a name
    the file declares as a type (a template parameter, `using T = ...`, a typedef), not a
    variable (an array's `sizeof` is its whole size)."""
    toks = unit.tokens
    if end - first == 2 and toks[first].text == "*" and toks[first + 1].kind is Kind.IDENT:
        return True
    if end - first >= 4 and toks[first].kind is Kind.IDENT and toks[first + 1].text == "[":
        return match(toks, first + 1) == end - 1  # one subscript: an element of the array
    if end - first != 1 or toks[first].kind is not Kind.IDENT:
        return False
    name = toks[first].text
    return name in typedefs(unit) or any(
        toks[k - 1].text in ("typename", "class", "struct")
        for k in unit.identifier_positions.get(name, ())
    )


_OPERATORS = frozenset(("+", "-", "*", "/", "%", "(", ")", "<<", ">>"))
_SKIPPED = frozenset(("static_cast", "size_t", "<", ">"))


def _expression_part(unit: Unit, i: int, depth: int, widest: int | None) -> str | None:
    """Token ``i`` as Python arithmetic: a number, an operator (``/`` as ``//``), or the value
    of a name; "" for a token that does not change the value, None when it is not constant."""
    t = unit.tokens[i]
    if t.kind is Kind.NUMBER:
        v = int_value(t.text)
        return None if v is None else str(v)
    if t.kind is Kind.IDENT:
        value = _name_value(unit, i, depth, widest)
        return None if value is None else str(value)
    if t.text in _OPERATORS:
        return "//" if t.text == "/" else t.text
    return "" if t.text in _SKIPPED else None


def _name_value(unit: Unit, i: int, depth: int, widest: int | None) -> int | None:
    """The value of the name at token ``i``: a constant in scope, a local assigned once, a
    file-scope constant expression, or a ``#define`` body (each followed at most 8 deep)."""
    name = unit.tokens[i].text
    own = project_warp_size(unit, i) if name == "warpSize" else None
    if own is not None and own[1] is not None:
        return own[1]  # the project's own constant (flashinfer's), not HIP's run-time value
    value = constant_at(unit, name, i)
    if value is None and depth < 8:
        value = _single_assignment(unit, i, depth, widest)
    if value is None and depth < 8:
        value = _file_constant(unit, name, depth, widest)
    if value is not None:
        return value
    rng = _define_ranges(unit).get(name)
    return evaluate(unit, *rng, depth + 1, widest) if rng and depth < 8 else None


def _arithmetic(parts: list[str]) -> int | None:
    """The integer value of the arithmetic ``parts`` spell (digits and operators only)."""
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


def _single_assignment(unit: Unit, i: int, depth: int, widest: int | None) -> int | None:
    """Value of local variable tokens[i] when the function assigns it exactly once, from a
    constant expression (`int smem = 96 * 1024;` before `cudaFuncSetAttribute(..., smem)`)."""
    toks = unit.tokens
    func = function_at(unit, i)
    if func is None:
        return None
    positions = unit.identifier_positions.get(toks[i].text, [])  # ascending token indices
    in_function = inside(positions, func.open, func.close)
    sites = [
        k
        for k in in_function
        if toks[k + 1].text in ("=", "+=", "-=", "*=", "/=", "<<=", "|=", "++", "--")
        or toks[k - 1].text in ("++", "--", "&")
    ]
    if len(sites) != 1 or sites[0] > i or toks[sites[0] + 1].text != "=":
        return None
    first = sites[0] + 2
    end = first
    while end < func.close and toks[end].text not in (";", ","):
        end += 1
    return evaluate(unit, first, end, depth + 1, widest)


def _file_constant(unit: Unit, name: str, depth: int, widest: int | None) -> int | None:
    """Value of a file-scope constant initialised by a constant expression
    (`static const int ThreadsPerBlock = ws * ws;`), when the file declares it once."""
    toks = unit.tokens
    sites = [
        k
        for k in unit.identifier_positions.get(name, ())
        if k + 1 < len(toks)
        and toks[k + 1].text == "="
        and not toks[k].in_directive
        and function_at(unit, k) is None
    ]
    if len(sites) != 1:
        return None
    k = sites[0]
    j = k - 1
    while j >= 0 and toks[j].kind is Kind.IDENT and toks[j].text not in ("const", "constexpr"):
        j -= 1
    if j < 0 or toks[j].text not in ("const", "constexpr"):
        return None
    end = k + 2
    while end < len(toks) and toks[end].text not in (";", ","):
        end += 1
    return evaluate(unit, k + 2, end, depth + 1, widest)
