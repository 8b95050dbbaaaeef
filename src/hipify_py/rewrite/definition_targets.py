"""A definition with no target of a function its header declares `__host__ __device__` gets both.

simple-cuda-voxel-engine's `vector3.cuh` declares `__device__ __host__ float len(Vector3 v);`
and `vector3.cu`, which includes it, defines `float len(Vector3 v) { ... }`.  nvcc gives the
definition the declaration's targets; clang reads a host function that cannot overload the
declared one ("__host__ function 'len' cannot overload __host__ __device__ function 'len'":
compile round 43, a silent TU).  Written on the definition, the targets are the ones nvcc
used.  Only `__host__ __device__` declarations are followed (``ProjectIndex.
both_declarations``): adding both targets to a function of the same name that is another
overload changes nothing a host build compiles.  The header is the one the source includes, as
the include graph resolves it: tobiasvanderwerff's infoli keeps a serial `axon.h` that declares
a plain `compAxon` beside the parallel one's `__host__ __device__` `compAxon` (compile round
46: 2 silent TUs, "cannot overload").
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
    names = _declared_in_included(unit, ctx)
    if not names & unit.identifiers:
        return
    toks, inactive = unit.tokens, inactive_in(unit)
    # a definition's targets may be a macro of another file: infoli's `CUDA_CALLABLE_FUNCTION
    # void compAxon(...) {`, the macro defined in its header (round 46)
    spelled = dict(ctx.project.decorations)
    for f in functions(unit):
        targets = f.specifiers.union(*(spelled.get(w, ()) for w in f.specifiers)) & _TARGETS
        if f.name not in names or targets or "template" in f.specifiers:
            continue
        if toks[f.name_index - 1].text == "::" or toks[f.name_index].start in inactive:
            continue  # a member of a class, or code the HIP build skips
        head = declaration_head(toks, f)
        start = max((k + 1 for k in head if toks[k].in_directive), default=head.start)
        if toks[start].text == "extern":
            continue  # `extern "C"` must come first; such a definition is left as written
        yield Edit(toks[start].start, toks[start].start, "__host__ __device__ ", RULE)


def _declared_in_included(unit: Unit, ctx: Context) -> set[str]:
    """The functions declared `__host__ __device__` in the headers ``unit`` includes: by the
    include graph's resolved paths, or by base name where the graph keeps names only."""
    graph = ctx.project.include_graph
    reached = set(graph.down.get(graph.node(unit.path), ()))
    if not reached:  # no edges known for the file: its includes by name
        found = includes(unit.text, unit.tokens, unit.directives)
        reached = {graph.node(PurePath(inc.path).name) for inc in found}
    return {name for header, name in ctx.project.both_declarations if graph.node(header) in reached}
