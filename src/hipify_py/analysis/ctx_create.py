"""CUDA 13's ``cuCtxCreate(&ctx, &params, flags, dev)`` with parameters that ask for nothing.

CUDA 13 gave ``cuCtxCreate`` a ``CUctxCreateParams*`` second argument (execution affinity and
CIG settings); every sample passes a zero-initialised struct, which asks for neither, or NULL.
``hipCtxCreate(&ctx, flags, dev)`` is the same request.  A call qualifies when its second
argument is ``NULL``/``nullptr``/``0``, or ``&p`` where the file declares
``CUctxCreateParams p = {};`` (or ``p{}``) on a line of its own and names ``p`` nowhere else
but in such calls; the rewrite pass drops the argument and the declaration, and HZ300 leaves
the declaration's type alone.  Any other use of the struct stays and HZ300 reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..frontend.lexer import Kind, Token
from ..frontend.syntax import call_args
from ..frontend.unit import Unit
from .tokens import cached

PARAMS_TYPE = "CUctxCreateParams"
_NOTHING = frozenset({"NULL", "nullptr", "0"})


@dataclass(frozen=True)
class EmptyParams:
    """Byte ranges to remove: the call's second argument with its comma, and the declaration
    lines of its struct (empty for NULL)."""

    argument: tuple[int, int]
    declaration: tuple[int, int] | None


def empty_ctx_params(unit: Unit) -> list[EmptyParams]:
    """The qualifying ``cuCtxCreate`` calls of the file (computed once per file)."""
    return cached(unit, "_empty_ctx_params", lambda: _find(unit))


def _find(unit: Unit) -> list[EmptyParams]:
    toks, positions = unit.tokens, unit.identifier_positions
    out: list[EmptyParams] = []
    for i in positions.get("cuCtxCreate", ()):
        args = call_args(toks, i)
        if args is None or len(args) != 4:
            continue
        second = toks[args[1].first : args[1].last + 1]
        argument = (args[0].span(toks)[1], args[1].span(toks)[1])
        if len(second) == 1 and second[0].text in _NOTHING:
            out.append(EmptyParams(argument, None))
        elif len(second) == 2 and second[0].text == "&" and second[1].kind is Kind.IDENT:
            declaration = _empty_declaration(unit, second[1].text)
            if declaration is not None:
                out.append(EmptyParams(argument, declaration))
    return out


def _empty_declaration(unit: Unit, name: str) -> tuple[int, int] | None:
    """The lines of ``CUctxCreateParams name = {};`` when ``name`` is used only as ``&name``
    in a 4-argument ``cuCtxCreate`` besides; None otherwise."""
    toks = unit.tokens
    declared = None
    for j in unit.identifier_positions.get(name, ()):
        if toks[j - 1].text == PARAMS_TYPE and _zero_initialised(toks, j) and declared is None:
            declared = j
        elif not (toks[j - 1].text == "&" and _is_second_argument(toks, j)):
            return None
    if declared is None:
        return None
    start, end = toks[declared - 1].start, toks[_zero_initialised(toks, declared)].end
    line_start = unit.lines.line_start(start)
    newline = unit.text.find("\n", end)
    line_end = len(unit.text) if newline < 0 else newline + 1
    if unit.text[line_start:start].strip() or unit.text[end:line_end].strip():
        return None
    return line_start, line_end


def _zero_initialised(toks: Sequence[Token], j: int) -> int:
    """Index of the ``;`` of ``name = {};``/``name{};``/``name = {0};`` at ``j``, else 0."""
    rest = [t.text for t in toks[j + 1 : j + 6]]
    for shape in (["=", "{", "}", ";"], ["{", "}", ";"], ["=", "{", "0", "}", ";"]):
        if rest[: len(shape)] == shape:
            return j + len(shape)
    return 0


def _is_second_argument(toks: Sequence[Token], j: int) -> bool:
    """``&name`` at ``j - 1`` is the second argument of a 4-argument ``cuCtxCreate``."""
    k = j - 2
    if k < 2 or toks[k].text != ",":
        return False
    depth = 0
    while k > 0:
        k -= 1
        text = toks[k].text
        if text in (")", "]", "}"):
            depth += 1
        elif text in ("(", "[", "{"):
            if depth == 0:
                break
            depth -= 1
        elif text in (",", ";") and depth == 0:
            return False
    if toks[k].text != "(" or toks[k - 1].text != "cuCtxCreate":
        return False
    args = call_args(toks, k - 1)
    return args is not None and len(args) == 4 and args[1].first == j - 1
