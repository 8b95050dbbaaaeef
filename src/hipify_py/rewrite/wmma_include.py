"""Keep ``#include <mma.h>`` for HIP's NVIDIA platform only where the file uses no WMMA.

Projects put ``#include "mma.h"`` into the common header every source includes (issue 23:
cuda_hgemm's ``common.h``); ROCm 7.2.4 has no such header (``nvcuda::wmma`` has no HIP
counterpart), so every file failed at that include, also the plain SIMT kernels and the cuBLAS
calls that need nothing from it.  ``mma.h`` declares only ``nvcuda::wmma`` (and the ``mma``
device functions under it), so a file that names neither ``nvcuda`` nor ``wmma`` needs it for
nothing but its includers: the include is kept, inside ``#if defined(__HIP_PLATFORM_NVIDIA__)``,
and HP001 says so as a warning.  A file that uses WMMA itself keeps the include as it was, and
HZ313 reports it (an error, at the include and at the first use); so does every includer that
uses WMMA through this header, which then stops at its own first ``wmma::`` line.
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


def unused_wmma_include(unit: Unit, inc: Include) -> bool:
    """An include of ``mma.h``, outside any ``#if``, in a file that uses no WMMA name."""
    return (
        inc.path in WMMA_HEADERS
        and inc.alone
        and inc.branch in ((), guard_branch(unit))
        and not _WMMA_NAMES & unit.identifiers
    )


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
        guarded = f"{_NVIDIA_ONLY.format(path=inc.path)}{nl}{line}#endif{nl}"
        yield Edit(inc.start, inc.line_end, guarded, RULE)
        yield RULES["HP001"].report(  # headers.py declares it and leaves this include to us
            inc.path_start,
            inc.path_end,
            f"'{inc.path}' has no HIP counterpart (nvcuda::wmma); this file uses none of it, so "
            "the include is kept for HIP's NVIDIA platform only: a file that uses WMMA through "
            "it is reported there (HZ313)",
            severity=Severity.WARNING,
            extra={"api": inc.path, "family": "headers"},
        )
