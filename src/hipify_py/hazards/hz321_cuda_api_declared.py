"""HZ321 cuda-api-declared

## What it detects
A file that declares the CUDA API's own types itself: `typedef ... CUdeviceptr;`,
`typedef struct CUctx_st *CUcontext;`. Such a header is a copy of `cuda.h` made to load
`libcuda` at run time (cuda-samples' `cuda_drvapi_dynlink_cuda.h`, loaders that `dlopen` the
driver). Reported once per file, at the first such declaration; only for names the conversion
renames (a library's own `ncclResult_t` keeps its name, and a type the targeted ROCm lacks,
`CUmemFabricHandle` on 7.2.4, stays CUDA's).

## Why it breaks on AMD
The conversion renames the declared names like every other use, so the copy now redeclares
HIP's own types, with CUDA's definitions: `typedef unsigned long long hipDeviceptr_t` against
HIP's `void*` is a redefinition error. A HIP program does not load a driver library itself,
and what such programs then load (PTX, cubins) has no meaning on AMD either.

## Example
```cpp
typedef unsigned long long CUdeviceptr;   // HZ321
```

## How to fix
Drop the copied declarations and the loader, include `<hip/hip_runtime.h>` and call the HIP
API directly; replace embedded PTX with HIP source compiled by hipcc or hipRTC.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..mappings import is_convertible
from ..rewrite.identifiers import kept_aliases
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ321",
    "cuda-api-declared",
    Severity.ERROR,
    "file declares the CUDA API's own types (a copy of cuda.h): renamed, it redeclares HIP's",
    cuda_premise=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if "typedef" not in unit.identifiers:
        return
    toks, positions = unit.tokens, unit.identifier_positions
    kept = kept_aliases(unit)  # a HIP compat header's aliases keep their names: no clash
    declared = sorted(
        i
        for name, e in unit.mapped.items()
        # only a name the conversion renames (ncclResult_t stays ncclResult_t; a type the
        # target ROCm lacks stays CUDA's) ends up redeclaring a HIP type
        if e.kind == "type" and e.hip and e.hip != name and is_convertible(e, ctx.options)
        for i in positions[name]
        if i + 1 < len(toks) and toks[i + 1].text == ";" and i not in kept
    )
    for i in declared:
        first = i
        while first > 0 and toks[first - 1].text not in (";", "{", "}"):
            if toks[first - 1].in_directive or toks[first - 1].kind is Kind.DIRECTIVE:
                break
            first -= 1
        if toks[first].text == "typedef":
            yield report(
                toks[i].start,
                toks[i].end,
                f"`{toks[i].text}` is declared here, as in CUDA's own headers: converted, this "
                "redeclares HIP's type; include <hip/hip_runtime.h> instead of a copy of the "
                "CUDA API",
            )
            return
