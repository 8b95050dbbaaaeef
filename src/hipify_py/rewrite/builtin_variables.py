"""Drop a file's own declarations of CUDA's built-in variables: ``extern const dim3 blockDim;``.

Some projects declare ``blockDim`` and ``threadIdx`` for their host code, so that code shared
with kernels parses there too (ccminer's ``cuda_helper.h``, under ``#ifndef __CUDA_ARCH__``).
nvcc accepts that; HIP declares the built-ins in host code as well, with types of its own
(``__hip_builtin_blockDim_t``), so clang rejects the redeclaration ("redeclaration of
'blockDim' with a different type"; held out, round 10).  The declaration adds nothing HIP lacks,
so it becomes a comment.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "builtin-variables"
_BUILTINS = frozenset({"blockDim", "threadIdx", "blockIdx", "gridDim"})
_TYPES = frozenset({"dim3", "uint3"})


@rewrite_pass("builtin-variables", order=12)
def builtin_variables(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "extern" not in unit.identifiers or not _BUILTINS & unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions["extern"]:
        # `extern [const] dim3 blockDim ;` and nothing else in the statement
        k = i + 1 + (i + 1 < len(toks) and toks[i + 1].text == "const")
        if k + 2 >= len(toks) or toks[i].in_directive:
            continue
        if toks[k].text in _TYPES and toks[k + 1].text in _BUILTINS and toks[k + 2].text == ";":
            text = unit.text[toks[i].start : toks[k + 2].end]
            yield Edit(toks[i].start, toks[k + 2].end, f"/* HIP declares it: {text} */", RULE)
