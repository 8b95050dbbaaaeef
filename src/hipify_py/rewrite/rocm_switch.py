"""Define ``USE_ROCM`` (and a project's own HIP switch) in an AMD build of a file that tests it,
as the analysis assumes.

Code shared with ROCm projects (vLLM's ``cuda_compat.h``, PyTorch extensions) keeps its CUDA
variant behind ``#ifndef USE_ROCM`` and its ROCm variant in the ``#else``.  hipify-py's rules
take the HIP build to define ``USE_ROCM`` (``frontend/conditions.py``: PyTorch's ROCm build
does), so they leave the CUDA variant alone: its 32-bit warp masks, ``__ldg``...  A plain build
of the converted tree defines nothing, compiled that CUDA variant, and failed with no finding
(issue 23: HeCBench ``attention-paged``, ``static_assert`` on the 32-bit mask).  The converted
file now defines ``USE_ROCM`` where clang compiles HIP (``__HIP__``, before any header: HIP's
headers define ``__HIP_PLATFORM_AMD__``) and nothing defined it, as ``convert --portable``'s
compat header does: the build then compiles the variant the authors wrote for ROCm, the one
hipify-py checked.  The same holds for every switch of a project's own (``frontend.hip_build.
hip_switch``: ggml's ``GGML_USE_HIP``, bitsandbytes' ``BNB_HIP``): the rules take the HIP build
to define it, and ggml's converted tree, built without it, compiled the CUDA side of its switch
and failed in 19 of 20 TUs (issue 23, held out).  The project's CUDA switch, which the rules
take as off there (deepmd-kit's `GOOGLE_CUDA` before its `#elif TENSORFLOW_USE_ROCM`), is
undefined the same way (``UNDEFINE``).
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from ..analysis.insertion import insertion_point
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import cuda_switches_of
from ..frontend.directives import includes as directive_includes
from ..frontend.directives import lines
from ..frontend.hip_build import hip_switch
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "rocm-switch"
DEFINE = (
    "#if (defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)) && !defined({name})  // hipify-py\n"
    "#define {name} 1\n"
    "#endif\n"
)
# the project's CUDA switch (``conditions.cuda_switches_of``: deepmd-kit's `GOOGLE_CUDA`, tested
# right before its `#elif TENSORFLOW_USE_ROCM`), which the rules take as off in the HIP build: a
# build that still passes the CUDA build's -DGOOGLE_CUDA compiled both sides (rw27: deepmd-kit's
# device.h then included gpu_cuda.h and gpu_rocm.h, 3 TUs failed silently)
UNDEFINE = (
    "#if (defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)) && defined({name})  // hipify-py\n"
    "#undef {name}\n"
    "#endif\n"
)
_TESTS = frozenset({"if", "ifdef", "ifndef", "elif"})


def _tested_switches(unit: Unit, cuda: AbstractSet[str]) -> dict[str, int]:
    """The project HIP switches, and CUDA switches (``cuda``: the tree's), that the file's
    ``#if``/``#ifdef``/``#ifndef``/``#elif`` lines test and never ``#define``, each with the
    offset of its first test."""
    found: dict[str, int] = {}
    defined: set[str] = set()
    found_lines = lines(unit.tokens, unit.directives)
    cuda = cuda | cuda_switches_of(found_lines)
    for line in found_lines:
        if line.word in ("define", "undef") and line.body:  # undef: converted before
            defined.add(line.body[0].text)
        elif line.word in _TESTS:
            for t in line.body:
                if t.kind is Kind.IDENT and (_project_switch(t.text) or t.text in cuda):
                    found.setdefault(t.text, line.start)
    return {name: at for name, at in found.items() if name not in defined}


def _project_switch(name: str) -> bool:
    """A project's own switch (``USE_ROCM``, ``GGML_USE_HIP``), not the compiler's
    (``__HIP__``) nor a bare word."""
    return not name.startswith("__") and "_" in name.strip("_") and hip_switch(name)


@rewrite_pass("rocm-switch", order=4)  # its lines go above the includes
def rocm_switch(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if ctx.options.portable or not unit.directives:
        return  # --portable: its compat header defines USE_ROCM
    switches = _tested_switches(unit, ctx.project.cuda_switches)
    if not switches:
        return
    toks = unit.tokens
    first = min(switches.values())
    at = min(insertion_point(unit, directive_includes(unit.text, toks, unit.directives)), first)
    text = "".join(
        (DEFINE if _project_switch(name) else UNDEFINE).format(name=name)
        for name in sorted(switches)
    )
    yield Edit(at, at, text.replace("\n", unit.newline), RULE)
