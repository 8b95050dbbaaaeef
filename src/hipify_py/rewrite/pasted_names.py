"""``cuda ## call`` in a macro body becomes ``hip ## call``.

A project may spell its runtime calls without the prefix and paste it on in a checking macro:
cudaKDTree's `#define CUKD_CUDA_CALL(call) CUKD_CUDA_CHECK(cuda##call)`, used as
`CUKD_CUDA_CALL(MemsetAsync(tags, 0, n, stream))` (OWL's and Ingo Wald's projects do the same).
No identifier names the API, so nothing is renamed and HIP's compile finds `cudaMemsetAsync`
undeclared (issue 23 round 35: 10 translation units).  The runtime API's HIP names are its
CUDA names with `hip` for `cuda`, so pasting `hip` names the same call.  A use in the file whose
pasted name HIP spells otherwise keeps the macro as it is; under ``--portable`` the compat
header's macros rename the pasted name, so nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import split
from ..context import Context
from ..edits import Edit
from ..frontend.directives import lines
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..mappings import hip_name
from ..rules import rewrite_pass

RULE = "pasted-names"
_CUDA, _HIP = "cuda", "hip"


@rewrite_pass(RULE, order=12)
def pasted_names(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if _CUDA not in unit.identifiers or "##" not in unit.text or ctx.options.portable:
        return
    toks = unit.tokens
    for line in lines(toks, unit.directives):
        body = line.body
        if line.word != "define" or len(body) < 2 or body[1].text != "(":
            continue
        close = next((k for k, t in enumerate(body) if t.text == ")"), None)
        if close is None:
            continue
        params = {t.text for t in body[2:close] if t.kind is Kind.IDENT}
        pasted = [
            body[k]
            for k in range(close + 1, len(body) - 2)
            if body[k].text == _CUDA and body[k + 1].text == "##" and body[k + 2].text in params
        ]
        if pasted and _prefix_names_only(unit, ctx, body[0].text):
            yield from (Edit(t.start, t.end, _HIP, RULE) for t in pasted)


def _prefix_names_only(unit: Unit, ctx: Context, macro: str) -> bool:
    """Every use of ``macro`` in the file pastes a name whose HIP name is `hip` + the rest
    (or one the tables do not know)."""
    toks = unit.tokens
    for k in unit.identifier_positions[macro]:
        if toks[k].in_directive or k + 2 >= len(toks) or toks[k + 1].text != "(":
            continue
        close = unit.lexed.brackets.get(k + 1)
        args = split(toks, k + 2, close) if close is not None else []
        if not args or toks[args[0][0]].kind is not Kind.IDENT:
            continue
        rest = toks[args[0][0]].text
        entry = ctx.mappings.known({_CUDA + rest}).get(_CUDA + rest)
        if entry is not None and hip_name(entry, ctx.options) not in (None, _HIP + rest):
            return False
    return True
