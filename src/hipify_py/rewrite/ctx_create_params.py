"""CUDA 13's ``cuCtxCreate(&ctx, &params, flags, dev)`` -> ``hipCtxCreate(&ctx, flags, dev)``.

Only where the parameters ask for nothing (``analysis.ctx_create``: a zero-initialised
``CUctxCreateParams`` used nowhere else, or NULL): the argument goes, and so does the
declaration, whose type HIP does not have.  The rename itself is the tables' (cuCtxCreate ->
hipCtxCreate).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.ctx_create import empty_ctx_params
from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "ctx-create-params"


@rewrite_pass(
    RULE,
    order=25,
    tallies=(
        Tally(RULE, "context_parameter_edits", "empty cuCtxCreate parameters dropped (edits)"),
    ),
)
def ctx_create_params(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "cuCtxCreate" not in unit.identifiers:
        return
    declarations = set()
    for call in empty_ctx_params(unit):
        yield Edit(*call.argument, "", RULE)
        if call.declaration is not None and call.declaration not in declarations:
            declarations.add(call.declaration)
            yield Edit(*call.declaration, "", RULE)
