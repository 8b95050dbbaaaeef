"""A space between a string literal and a CUDA qualifier written against it.

``extern "C"__global__ void saxpy(...)`` (NVIDIA's grcuda blog sample) builds with nvcc,
whose front end expands ``__global__`` before it looks at the string; clang lexes
``"C"__global__`` as one user-defined string literal ("string literal with user-defined
suffix cannot be used here") and the converted file does not compile.  A space keeps the
meaning for both compilers.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "qualifier-spacing"
QUALIFIERS = frozenset(
    {
        "__global__",
        "__device__",
        "__host__",
        "__shared__",
        "__constant__",
        "__managed__",
        "__forceinline__",
        "__noinline__",
        "__launch_bounds__",
    }
)


@rewrite_pass("qualifier-spacing", order=13)
def qualifier_spacing(unit: Unit, ctx: Context) -> Iterator[Edit]:
    present = QUALIFIERS & unit.identifiers
    toks = unit.tokens
    for name in present:
        for i in unit.identifier_positions[name]:
            before = toks[i - 1] if i > 0 else None
            if before is not None and before.kind is Kind.STRING and before.end == toks[i].start:
                yield Edit(toks[i].start, toks[i].start, " ", RULE)
