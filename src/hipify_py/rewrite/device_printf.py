"""Call device ``printf`` by its unqualified name: ``std::printf`` in device code.

CUDA lets a kernel call ``std::printf``; HIP declares its device ``printf`` in the global
namespace only (``extern "C" __device__ int printf`` in amd_detail/amd_device_functions.h of
ROCm 7.2.4), so in device code ``std::printf`` names the host function and clang rejects it
("reference to __host__ function 'printf' in __global__ function"; nccl-tests' verifiable
kernels, held out).  ``std::`` is dropped in device functions and in macro bodies, which may
expand in one (``::std::printf`` becomes ``::printf``); host functions keep it, since both
names reach the same host function there.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import function_at
from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "device-printf"


@rewrite_pass("device-printf", order=12)
def device_printf(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "printf" not in unit.identifiers or "std" not in unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions["printf"]:
        if i < 2 or toks[i - 1].text != "::" or toks[i - 2].text != "std":
            continue
        func = function_at(unit, i)
        if toks[i].in_directive or (func is not None and func.is_device):
            yield Edit(toks[i - 2].start, toks[i].start, "", RULE)
