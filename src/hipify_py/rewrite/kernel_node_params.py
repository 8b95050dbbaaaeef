"""`cudaKernelNodeParams p = {func, grid, block, smem, args, extra};` -> the members set by name.

CUDA declares the members of ``cudaKernelNodeParams`` as func, gridDim, blockDim,
sharedMemBytes, kernelParams, extra; ROCm 7.2.4's ``hipKernelNodeParams`` as blockDim, extra,
func, gridDim, kernelParams, sharedMemBytes.  A positional brace list then gives each value to
another member: "no viable conversion from 'void *' to 'dim3'" where the types differ, silently
wrong values where they agree (CodeSamples' GraphAPI sample, issue 23 round 26).  The list
becomes a call of a function (inserted once per file, under an ``#ifndef`` guard) that takes
CUDA's order and sets each member by name, which is right for either declaration, so HIP's
NVIDIA platform compiles it too.  Lists with designators are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.tokens import split
from ..context import Context
from ..edits import Edit
from ..frontend.directives import includes as directive_includes
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from .shims import shim_position

RULE = "kernel-node-params"
_TYPE = "cudaKernelNodeParams"
_CALL = "hipify_py_kernel_node_params"
_GUARD = "HIPIFY_PY_SHIM_KERNEL_NODE_PARAMS"
_MEMBERS = 6
_SHIM = f"""\
#ifndef {_GUARD}
#define {_GUARD}
// hipify-py shim: cudaKernelNodeParams' members in CUDA's order, set by name
// (hipKernelNodeParams declares them in another order)
static inline hipKernelNodeParams {_CALL}(void* func, dim3 gridDim = dim3(),
    dim3 blockDim = dim3(), unsigned int sharedMemBytes = 0, void** kernelParams = nullptr,
    void** extra = nullptr) {{
  hipKernelNodeParams p{{}};
  p.func = func;
  p.gridDim = gridDim;
  p.blockDim = blockDim;
  p.sharedMemBytes = sharedMemBytes;
  p.kernelParams = kernelParams;
  p.extra = extra;
  return p;
}}
#endif
"""


def positional_lists(unit: Unit) -> list[tuple[int, int, bool]]:
    """(its `{`, its `}`, whether `=` comes before it) of each positional brace list that
    initialises a ``cudaKernelNodeParams`` variable: `T p = {...};` or `T p{...};`."""
    toks = unit.tokens
    out = []
    for i in unit.identifier_positions.get(_TYPE, ()):
        k = i + 2
        if k >= len(toks) or toks[i + 1].kind is not Kind.IDENT or toks[i].in_directive:
            continue
        equals = toks[k].text == "="
        k += equals
        close = unit.lexed.brackets.get(k) if k < len(toks) and toks[k].text == "{" else None
        if close is None:
            continue
        items = [(a, b) for a, b in split(toks, k + 1, close) if a < b]
        if 0 < len(items) <= _MEMBERS and not any(toks[a].text == "." for a, _ in items):
            out.append((k, close, equals))
    return out


@rewrite_pass("kernel-node-params", order=50)
def kernel_node_params(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if _TYPE not in unit.identifiers or _GUARD in unit.identifiers:
        return
    lists = positional_lists(unit)
    if not lists:
        return
    toks = unit.tokens
    for brace, close, equals in lists:
        head = f"{_CALL}(" if equals else f" = {_CALL}("
        yield Edit(toks[brace].start, toks[brace].end, head, RULE)
        yield Edit(toks[close].start, toks[close].end, ")", RULE)
    found = directive_includes(unit.text, unit.tokens, unit.directives)
    at = shim_position(unit, found, toks[lists[0][0]].start)
    yield Edit(at, at, _SHIM.replace("\n", unit.newline), RULE)
