"""``nvcuda::wmma`` -> ``rocwmma``: CUDA's WMMA names to rocWMMA's (``mappings/wmma.yaml``).

rocWMMA keeps WMMA's API (``fragment<matrix_a, M, N, K, T, row_major>``, ``fill_fragment``,
``load_matrix_sync``, ``mma_sync``, ``store_matrix_sync``, ``mem_row_major``) in namespace
``rocwmma``, so each supported name is renamed where it is written: ``nvcuda::wmma::X`` and
``wmma::X`` (after ``using namespace nvcuda;``) become ``rocwmma::X``, ``nvcuda::wmma`` alone
(``using namespace nvcuda::wmma;``) becomes ``rocwmma``, and ``using namespace nvcuda;``
becomes ``namespace wmma = rocwmma;``.  A name rocWMMA lacks (tf32, sub-byte and bit
fragments) is left as it is: HZ313 reports it as an error at its line.  A file that uses WMMA
through a header's ``<mma.h>`` (which ``wmma_include.py`` keeps for HIP's NVIDIA platform
only, since that header uses none of it) includes ``<rocwmma/rocwmma.hpp>`` itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.insertion import insertion_point
from ..analysis.wmma import wmma_uses
from ..context import Context
from ..edits import Edit
from ..frontend.directives import includes
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass
from .wmma_include import WMMA_HEADERS

RULE = "wmma"
ROCWMMA_HEADER = "rocwmma/rocwmma.hpp"


@rewrite_pass("wmma", order=12, tallies=(Tally(RULE, "wmma_names", "WMMA names to rocWMMA"),))
def wmma_names(unit: Unit, ctx: Context) -> Iterator[Edit]:
    renamed = False
    for use in wmma_uses(unit):
        if use.supported:
            renamed = True
            yield Edit(use.start, use.end, use.replacement, RULE)
    if not renamed:
        return
    found = includes(unit.text, unit.tokens, unit.directives)
    if any(inc.path in WMMA_HEADERS or inc.path == ROCWMMA_HEADER for inc in found):
        return  # the headers pass maps the file's own <mma.h>
    at = insertion_point(unit, found)
    yield Edit(at, at, f"#include <{ROCWMMA_HEADER}>{unit.newline}", RULE)
