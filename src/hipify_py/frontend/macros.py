"""How many tokens the preprocessor would make of a file, estimated from its tokens alone.

An 834-byte file of macros that each use the previous one eight times expands to billions of
tokens: libclang then runs for minutes and takes gigabytes before anything can stop it.  The
estimate below reads each ``#define`` once and the code once (linear in the file) and is an
upper bound in spirit: an object-like macro costs the tokens of its expansion, a function-like
one multiplies the tokens of its arguments by the most times one parameter appears in its
body, nested calls multiplying again.  A file over the budget is not parsed; it is converted
from tokens and reported as not analysed (``Unit.ast``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .directives import define_of, lines
from .lexer import Kind, Token


def expansion_estimate(tokens: Sequence[Token], directives: Sequence[int], budget: int) -> int:
    """The estimated expanded size of the file in tokens; counting stops past ``budget``."""
    sizes: dict[str, int] = {}  # macro -> tokens of one expansion (arguments not included)
    repeats: dict[str, int] = {}  # function-like macro -> most uses of one parameter
    for line in lines(tokens, directives):
        define = define_of(line)
        if define is None:
            continue
        name, params, body = define
        sizes[name.text] = _cost(body, sizes, repeats, budget)
        if params:
            uses = [sum(t.text == p for t in body) for p in params]
            repeats[name.text] = max(1, *uses)
    if not sizes:  # no macro: the code is its own expansion
        return len(tokens)
    return _cost((t for t in tokens if not t.in_directive), sizes, repeats, budget)


def _cost(seq: Iterable[Token], sizes: dict[str, int], repeats: dict[str, int], budget: int) -> int:
    """Tokens ``seq`` expands to: a macro its size, a call's arguments times its repeats."""
    total = 0
    factor = 1  # how many times the current tokens are copied by the calls around them
    calls: list[tuple[int, int]] = []  # (bracket depth of an open call, factor outside it)
    depth = 0
    pending = 0  # the repeats of a function-like macro just seen, if its '(' comes next
    for tok in seq:
        text = tok.text
        if text == "(":
            depth += 1
            if pending:
                calls.append((depth, factor))
                factor = min(factor * pending, budget + 1)
            pending = 0
            continue
        pending = 0
        if text == ")":
            if calls and calls[-1][0] == depth:
                factor = calls.pop()[1]
            depth -= 1
            continue
        size = sizes.get(text, 1) if tok.kind is Kind.IDENT else 1
        total += factor * size
        if total > budget:
            return budget + 1
        if tok.kind is Kind.IDENT:
            pending = repeats.get(text, 0)
    return total
