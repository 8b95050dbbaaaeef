"""Rename Thrust's CUDA backend namespaces to rocThrust's HIP backend.

``thrust::cuda::par`` (and ``thrust::system::cuda``, ``thrust::cuda_cub``) name the CUDA
backend; rocThrust keeps namespace ``thrust`` but calls its backend ``thrust::hip``,
``thrust::system::hip`` and ``thrust::hip_rocprim`` (thrust/system/hip/detail/par.h of ROCm
7.2.4).  The word ``cuda`` alone is too common to be a table entry, so the rename applies only
where it is qualified by ``thrust::`` or ``thrust::system::``.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "thrust-namespace"
RENAMES = {"cuda": "hip", "cuda_cub": "hip_rocprim"}


@rewrite_pass("thrust-namespace", order=11)
def thrust_namespace(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "thrust" not in unit.identifiers:
        return
    toks = unit.tokens
    for name, hip in RENAMES.items():
        for i in unit.identifier_positions.get(name, ()):
            if i < 2 or toks[i - 1].text != "::":
                continue
            owner = toks[i - 2].text
            if owner == "system" and i >= 4 and toks[i - 3].text == "::":
                owner = toks[i - 4].text
            if owner == "thrust":
                yield Edit(toks[i].start, toks[i].end, hip, RULE)
