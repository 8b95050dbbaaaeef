"""HZ321 cuda-api-declared

## What it detects
A file that declares the CUDA API's own types itself: `typedef ... CUdeviceptr;`,
`typedef struct CUctx_st *CUcontext;`. Such a header is a copy of `cuda.h` made to load
`libcuda` at run time (cuda-samples' `cuda_drvapi_dynlink_cuda.h`, loaders that `dlopen` the
driver). Reported once per file, at the first such declaration; only for names the conversion
renames (a library's own `ncclResult_t` keeps its name, and a type the targeted ROCm lacks,
`CUmemFabricHandle` on 7.2.4, stays CUDA's), and only where the converted declaration differs
from HIP's own: `typedef void* cublasHandle_t;` becomes `typedef void* hipblasHandle_t;`, the
very typedef hipblas.h has, and C++ allows a typedef to be redeclared as the same type (so
does `typedef struct cudaDeviceProp cudaDeviceProp;`, a C idiom naming a type after itself).

Not reported inside a namespace of the project's (cuCIM's `typedef void* cudaStream_t;`
placeholder in `namespace cuslide2::nvimgcodec` declares that namespace's own name, no
redeclaration of HIP's global one), nor in another platform's port layer: a file whose
`#define`s map CUDA's names onto a third vendor's (`#define cublasCreate mublasCreate`, ggml's
and ktransformers' MUSA and MACA headers, included only where that platform builds) declares
that vendor's types under CUDA's names, and the HIP build never includes it.

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
from pathlib import Path

from ..context import Context
from ..findings import Severity
from ..frontend.directives import includes, lines
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rewrite.api_copies import api_copy_declarations
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ321",
    "cuda-api-declared",
    Severity.ERROR,
    "file declares the CUDA API's own types (a copy of cuda.h): renamed, it redeclares HIP's",
    cuda_premise=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    declared = api_copy_declarations(unit, ctx)
    if not declared or _port_layer(unit) or not _meets_hip_headers(unit, ctx):
        return
    name = unit.tokens[declared[0]]
    yield report(
        name.start,
        name.end,
        f"`{name.text}` is declared here, as in CUDA's own headers: converted, this "
        "redeclares HIP's type, which a file of its translation unit includes; include "
        "<hip/hip_runtime.h> instead of a copy of the CUDA API",
    )


_HIP = ("hip/", "hip_")  # HIP's own headers, by path or base name


def _meets_hip_headers(unit: Unit, ctx: Context) -> bool:
    """HIP's headers are in the file's translation unit once converted: the file includes a
    CUDA header, or (in a tree) a file that includes it, directly or through others, is a
    `.cu` file or includes a CUDA header; converted, those include HIP's."""
    mappings = ctx.mappings

    def cuda(name: str) -> bool:
        return name.endswith(".cu") or name.startswith(_HIP) or mappings.header(name) is not None

    own = (i.path for i in includes(unit.text, unit.tokens, unit.directives))
    return any(cuda(Path(p).name) or cuda(p) for p in own) or ctx.project.tu_includes(
        unit.path, cuda
    )


# a name neither CUDA's nor HIP's spells another platform's API (`mublasCreate`, `mcGraphLaunch`)
_OWN_PREFIXES = ("cu", "CU", "nv", "NV", "__nv", "hip", "HIP", "__hip", "roc")


def _port_layer(unit: Unit) -> bool:
    """The file maps CUDA names onto a third platform's: at least three object-like
    `#define CUDA_NAME OTHER` whose replacement is a name of neither CUDA nor HIP."""
    if "define" not in unit.identifiers:
        return False
    toks = unit.tokens
    mapped = 0
    for line in lines(toks, unit.directives):
        body = line.body
        if line.word != "define" or len(body) != 2 or body[1].kind is not Kind.IDENT:
            continue
        name, target = body[0].text, body[1].text
        if name in unit.mapped and not target.startswith(_OWN_PREFIXES):
            mapped += 1
            if mapped == 3:
                return True
    return False
