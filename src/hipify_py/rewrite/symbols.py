"""Wrap the symbol argument of the CUDA symbol APIs in ``HIP_SYMBOL(...)``.

On hip-clang ``HIP_SYMBOL(x)`` expands to ``x``; the porting guide asks for it anyway so the
code stays portable to other HIP back ends, and hipify-clang emits it too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import Arg, call_args
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass
from ._macro_definitions import NAME, definition_roles

# API -> index of its symbol argument
SYMBOL_ARGUMENT = {
    "cudaMemcpyToSymbol": 0,
    "cudaMemcpyToSymbolAsync": 0,
    "cudaMemcpyFromSymbol": 1,
    "cudaMemcpyFromSymbolAsync": 1,
    "cudaGetSymbolAddress": 1,
    "cudaGetSymbolSize": 1,
    "cudaGraphAddMemcpyNodeToSymbol": 4,
    "cudaGraphAddMemcpyNodeFromSymbol": 5,
    "cudaGraphMemcpyNodeSetParamsToSymbol": 1,
    "cudaGraphMemcpyNodeSetParamsFromSymbol": 2,
    "cudaGraphExecMemcpyNodeSetParamsToSymbol": 2,
    "cudaGraphExecMemcpyNodeSetParamsFromSymbol": 3,
}


# a wrap is two edits, counted once, at its HIP_SYMBOL(
WRAPS = Tally("symbol", "symbols_wrapped", "HIP_SYMBOL wraps", lambda e: e.text == "HIP_SYMBOL(")


@rewrite_pass("symbols", order=20, tallies=(WRAPS,))
def symbols(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "Symbol" not in unit.text:
        return
    tokens = unit.tokens
    roles = definition_roles(unit)
    for i, tok in enumerate(tokens):
        position = SYMBOL_ARGUMENT.get(tok.text) if tok.kind is Kind.IDENT else None
        if position is None or roles.get(i) == NAME:
            continue  # `#define cudaMemcpyToSymbol(...) hipMemcpyToSymbol(__VA_ARGS__)`: its
            # head declares parameters (mscclpp's gpu.hpp, issue 23 round 26)
        args = call_args(tokens, i)
        if not args or len(args) <= position:
            continue
        arg = args[position]
        if tokens[arg.first].text == "HIP_SYMBOL" or _has_launch(tokens, arg):
            continue
        start, end = arg.span(tokens)
        yield Edit(start, start, "HIP_SYMBOL(", "symbol")
        yield Edit(end, end, ")", "symbol")


def _has_launch(tokens: Sequence[Token], arg: Arg) -> bool:
    """A ``<<<`` launch is no symbol: wrapping it would put HIP_SYMBOL( and the launch rewrite's
    hipLaunchKernelGGL( at the same offset, in no defined order."""
    return any(tokens[k].text == "<<<" for k in range(arg.first, arg.last + 1))
