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

from ..analysis.values import aliases
from ..context import Context
from ..findings import Severity
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
    toks = unit.tokens
    kept = kept_aliases(unit)  # a HIP compat header's aliases keep their names: no clash
    for alias in aliases(unit):
        name = toks[alias.name].text
        e = unit.mapped.get(name)
        # only a name the conversion renames (ncclResult_t stays ncclResult_t; a type the
        # target ROCm lacks stays CUDA's) ends up redeclaring a HIP type
        if (
            toks[alias.keyword].text == "typedef"
            and alias.name not in kept
            and e is not None
            and e.kind == "type"
            and e.hip
            and e.hip != name
            and is_convertible(e, ctx.options)
        ):
            yield report(
                toks[alias.name].start,
                toks[alias.name].end,
                f"`{name}` is declared here, as in CUDA's own headers: converted, this "
                "redeclares HIP's type; include <hip/hip_runtime.h> instead of a copy of the "
                "CUDA API",
            )
            return
