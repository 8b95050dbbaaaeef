"""Drop `static` from a function template definition whose header declared it without.

stylegan3's `filtered_lrelu.h` declares `template <bool, bool> cudaError_t
copy_filters(cudaStream_t);`, and `filtered_lrelu.cu`, which includes it, defines `template
<bool, bool> static cudaError_t copy_filters(cudaStream_t stream) { ... }`.  nvcc's host
compiler keeps the first declaration's linkage; clang rejects the definition ("static
declaration follows non-static declaration": 4 silent TUs in compile round 29).  Without
`static` the definition has the linkage the header gave it, as it had with nvcc; the other
files that instantiate the template through the header keep working.
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
from ..rules import Tally, rewrite_pass

RULE = "static-after-declaration"


@rewrite_pass(
    RULE,
    order=14,
    tallies=(Tally(RULE, "static_dropped", "static templates declared non-static"),),
)
def static_after_declaration(unit: Unit, ctx: Context) -> Iterator[Edit]:
    declared = ctx.project.template_declarations
    if not declared or "static" not in unit.identifiers or "template" not in unit.identifiers:
        return
    headers = {PurePath(inc.path).name for inc in includes(unit.text, unit.tokens, unit.directives)}
    names = {name for header, name in declared if header in headers}
    toks, inactive = unit.tokens, inactive_in(unit)
    for f in functions(unit):
        if f.name not in names or not {"template", "static"} <= f.specifiers:
            continue
        if toks[f.name_index].start in inactive:
            continue
        for k in declaration_head(toks, f):
            if toks[k].text == "static" and not toks[k].in_directive:
                yield Edit(toks[k].start, toks[k + 1].start, "", RULE)
