"""An object-like macro whose body is a ``#pragma`` becomes the ``_Pragma`` operator's form:
``#define UNROLL #pragma unroll`` -> ``#define UNROLL _Pragma("unroll")``.

A ``#`` in a macro body is no directive: expanded, ``UNROLL`` gives the tokens ``# pragma
unroll``, which nvcc takes as the pragma and clang rejects ("expected expression", CUDA_3D's
`__CONDITIONAL_UNROLL__` in `math.cuh`, defined under `__CUDA_ARCH__`, which the HIP device
pass now takes: compile round 45, 2 silent TUs).  ``_Pragma`` (C++11) is the standard way to
put a pragma in a macro, and both compilers read it as the directive.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "macro-pragma"


@rewrite_pass(RULE, order=12)
def macro_pragma(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "pragma" not in unit.identifiers:
        return
    toks = unit.tokens
    for d in unit.directives:
        if d + 4 >= len(toks) or toks[d + 1].text != "define" or not toks[d + 2].in_directive:
            continue
        name, sharp, pragma = toks[d + 2], toks[d + 3], toks[d + 4]
        if unit.text[name.end : name.end + 1] == "(":
            continue  # a function-like macro's `#` stringizes its parameter
        if sharp.text != "#" or sharp.kind is Kind.DIRECTIVE or pragma.text != "pragma":
            continue
        if (
            not pragma.in_directive
            or sharp.end != pragma.start
            and unit.text[sharp.end : pragma.start].strip()
        ):
            continue
        end = d + 5
        while end < len(toks) and toks[end].in_directive and toks[end].kind is not Kind.DIRECTIVE:
            end += 1
        if end == d + 5:
            continue  # `#pragma` alone names no pragma
        body = unit.text[toks[d + 5].start : toks[end - 1].end]
        if "\\" in body or '"' in body:
            continue  # a continued line or a string: leave it as written
        yield Edit(sharp.start, toks[end - 1].end, f'_Pragma("{body}")', RULE)
