"""A definition with no target of a function its header declares `__host__ __device__` gets both.

simple-cuda-voxel-engine's `vector3.cuh` declares `__device__ __host__ float len(Vector3 v);`
and `vector3.cu`, which includes it, defines `float len(Vector3 v) { ... }`.  nvcc gives the
definition the declaration's targets; clang reads a host function that cannot overload the
declared one ("__host__ function 'len' cannot overload __host__ __device__ function 'len'":
compile round 43, a silent TU).  Written on the definition, the targets are the ones nvcc
used.  Only `__host__ __device__` declarations are followed (``ProjectIndex.
both_declarations``): adding both targets to a function of the same name that is another
overload changes nothing a host build compiles.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath

from ..analysis.functions import declaration_head, functions
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import inactive_in
from ..frontend.directives import includes
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "definition-targets"
_TARGETS = frozenset({"__host__", "__device__", "__global__"})


@rewrite_pass(RULE, order=15)
def definition_targets(unit: Unit, ctx: Context) -> Iterator[Edit]:
    declared = ctx.project.both_declarations
    if not declared or not unit.is_source:
        return
    headers = {PurePath(inc.path).name for inc in includes(unit.text, unit.tokens, unit.directives)}
    names = {name for header, name in declared if header in headers}
    if not names & unit.identifiers:
        return
    toks, inactive = unit.tokens, inactive_in(unit)
    for f in functions(unit):
        if f.name not in names or f.specifiers & _TARGETS or "template" in f.specifiers:
            continue
        if toks[f.name_index - 1].text == "::" or toks[f.name_index].start in inactive:
            continue  # a member of a class, or code the HIP build skips
        head = declaration_head(toks, f)
        start = max((k + 1 for k in head if toks[k].in_directive), default=head.start)
        if toks[start].text == "extern":
            continue  # `extern "C"` must come first; such a definition is left as written
        yield Edit(toks[start].start, toks[start].start, "__host__ __device__ ", RULE)
