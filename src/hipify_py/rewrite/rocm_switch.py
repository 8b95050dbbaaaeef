"""Define ``USE_ROCM`` in an AMD build of a file that tests it, as the analysis assumes.

Code shared with ROCm projects (vLLM's ``cuda_compat.h``, PyTorch extensions) keeps its CUDA
variant behind ``#ifndef USE_ROCM`` and its ROCm variant in the ``#else``.  hipify-py's rules
take the HIP build to define ``USE_ROCM`` (``frontend/conditions.py``: PyTorch's ROCm build
does), so they leave the CUDA variant alone: its 32-bit warp masks, ``__ldg``...  A plain build
of the converted tree defines nothing, compiled that CUDA variant, and failed with no finding
(issue 23: HeCBench ``attention-paged``, ``static_assert`` on the 32-bit mask).  The converted
file now defines ``USE_ROCM`` where clang compiles HIP (``__HIP__``, before any header: HIP's
headers define ``__HIP_PLATFORM_AMD__``) and nothing defined it, as ``convert --portable``'s
compat header does: the build then compiles the variant the authors wrote for ROCm, the one
hipify-py checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.insertion import insertion_point
from ..context import Context
from ..edits import Edit
from ..frontend.directives import includes as directive_includes
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "rocm-switch"
DEFINE = (
    "#if (defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)) && !defined(USE_ROCM)  // hipify-py\n"
    "#define USE_ROCM 1\n"
    "#endif\n"
)


def _first_test(unit: Unit) -> int | None:
    """Offset of the first ``#if``/``#ifdef``/``#ifndef``/``#elif`` line naming USE_ROCM."""
    toks = unit.tokens
    for i in unit.identifier_positions.get("USE_ROCM", ()):
        k = i
        while k > 0 and toks[k].kind is not Kind.DIRECTIVE:
            k -= 1
        if k + 1 < len(toks) and toks[k + 1].text in ("if", "ifdef", "ifndef", "elif"):
            return toks[k].start
    return None


@rewrite_pass("rocm-switch", order=4)  # its lines go above the includes
def rocm_switch(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if ctx.options.portable or "USE_ROCM" not in unit.identifiers:
        return  # --portable: its compat header defines it
    toks = unit.tokens
    if any(i > 0 and toks[i - 1].text == "define" for i in unit.identifier_positions["USE_ROCM"]):
        return  # the file defines it (or was converted before)
    first = _first_test(unit)
    if first is None:
        return
    at = min(insertion_point(unit, directive_includes(unit.text, toks, unit.directives)), first)
    yield Edit(at, at, DEFINE.replace("\n", unit.newline), RULE)
