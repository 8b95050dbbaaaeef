"""Keep ``#include <mma.h>`` for HIP's NVIDIA platform only where the file uses no WMMA.

A file that uses WMMA gets ``<rocwmma/rocwmma.hpp>`` instead (the header table, and
``wmma_names.py`` for a file that uses it through another file's include).

Projects put ``#include "mma.h"`` into the common header every source includes (issue 23:
cuda_hgemm's ``common.h``); ROCm 7.2.4 has no such header (``nvcuda::wmma`` has no HIP
counterpart), so every file failed at that include, also the plain SIMT kernels and the cuBLAS
calls that need nothing from it.  ``mma.h`` declares only ``nvcuda::wmma`` (and the ``mma``
device functions under it), so a file that names neither ``nvcuda`` nor ``wmma`` needs it for
nothing but its includers: the include is kept, inside ``#if defined(__HIP_PLATFORM_NVIDIA__)``,
with HIP's half and bfloat16 headers in its ``#else`` (what ``mma.h`` includes for them), and
HP001 says so as a warning.  Mapping it to rocWMMA there instead would make every includer
(the plain SIMT kernels, the cuBLAS calls) compile rocWMMA's templates for nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.insertion import guard_branch
from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..frontend.directives import Include
from ..frontend.directives import includes as directive_includes
from ..frontend.unit import Unit
from ..rules import RULES, rewrite_pass

RULE = "wmma-include"
WMMA_HEADERS = frozenset({"mma.h", "crt/mma.h"})
_WMMA_NAMES = frozenset({"nvcuda", "wmma"})
_NVIDIA_ONLY = "#if defined(__HIP_PLATFORM_NVIDIA__)  // hipify-py: ROCm has no {path}"
# what mma.h includes for its includers (cuda_fp16.h, cuda_bf16.h): CodeSamples' utility.h
# names `half` through it alone (issue 23 round 26: 10 translation units failed in silence)
_ITS_INCLUDES = (
    "#else{nl}#include <hip/hip_fp16.h>  // hipify-py: what {path} includes: its half and "
    "bfloat16 types{nl}#include <hip/hip_bf16.h>{nl}"
)


def kept_wmma_include(unit: Unit, inc: Include) -> bool:
    """An include of ``mma.h`` in a file that uses no WMMA name: not mapped to rocWMMA (the
    headers pass leaves it to this pass; inside an ``#if`` it stays as it is)."""
    return inc.path in WMMA_HEADERS and not _WMMA_NAMES & unit.identifiers


def unused_wmma_include(unit: Unit, inc: Include) -> bool:
    """A kept include of ``mma.h`` outside any ``#if``: this pass guards it."""
    return kept_wmma_include(unit, inc) and inc.alone and inc.branch in ((), guard_branch(unit))


@rewrite_pass("wmma-include", order=6)
def wmma_include(unit: Unit, ctx: Context) -> Iterator[Edit | Finding]:
    if "mma.h" not in unit.text:
        return
    nl = unit.newline
    for inc in directive_includes(unit.text, unit.tokens, unit.directives):
        if not unused_wmma_include(unit, inc):
            continue
        line = unit.text[inc.start : inc.line_end]
        if not line.endswith(("\n", "\r")):
            line += nl
        guarded = (
            f"{_NVIDIA_ONLY.format(path=inc.path)}{nl}{line}"
            f"{_ITS_INCLUDES.format(nl=nl, path=inc.path)}#endif{nl}"
        )
        yield Edit(inc.start, inc.line_end, guarded, RULE)
        yield RULES["HP001"].report(  # headers.py declares it and leaves this include to us
            inc.path_start,
            inc.path_end,
            f"'{inc.path}' declares nvcuda::wmma, which this file does not use, so the include "
            "is kept for HIP's NVIDIA platform only: a file that uses WMMA through it includes "
            "<rocwmma/rocwmma.hpp> itself",
            severity=Severity.WARNING,
            extra={"api": inc.path, "family": "headers"},
        )
