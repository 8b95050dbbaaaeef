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
that vendor's types under CUDA's names, and the HIP build never includes it. Nor in a tree
that implements the CUDA API itself, defining ten or more of its functions with a body
(cuda-metal's runtime over Apple's Metal, round 39: 7 false findings): its headers are the
API's declarations for that implementation, no program that a port to HIP would build.

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

from ..analysis.declared_types import Alias, aliases
from ..analysis.namespaces import qualified_namespace
from ..context import Context
from ..findings import Severity
from ..frontend.directives import lines
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from ..rewrite.identifiers import kept_aliases
from ..rules import Proposal, Report, hazard_rule

# the CUDA API functions a tree defines with a body, at least, to be an implementation of the
# API (a wrapper or two of its own is a program's)
_AN_IMPLEMENTATION = 10


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
    if _port_layer(unit) or len(ctx.project.implemented) >= _AN_IMPLEMENTATION:
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
            and not qualified_namespace(unit, alias.name)
            and e is not None
            and e.kind == "type"
            and e.hip
            and e.hip != name
            and is_convertible(e, ctx.options)
            and not _same_as_hips(unit, ctx, alias, e.hip)
        ):
            yield report(
                toks[alias.name].start,
                toks[alias.name].end,
                f"`{name}` is declared here, as in CUDA's own headers: converted, this "
                "redeclares HIP's type; include <hip/hip_runtime.h> instead of a copy of the "
                "CUDA API",
            )
            return


# HIP's own definitions of the types a copied header most often declares, as ROCm 7.2.4's
# headers write them (test_hazard_premises redeclares each against those headers): a copy that
# says the same once converted redeclares nothing (round 13: arrayfire, NVIDIA warp)
_HIP_TYPEDEFS = {
    "hipStream_t": "struct ihipStream_t*",
    "hipEvent_t": "struct ihipEvent_t*",
    "hipCtx_t": "struct ihipCtx_t*",
    "hipModule_t": "struct ihipModule_t*",
    "hipFunction_t": "struct ihipModuleSymbol_t*",
    "hipDevice_t": "int",
    "hipDeviceptr_t": "void*",
    "hipGraph_t": "struct ihipGraph*",
    "hipGraphExec_t": "struct hipGraphExec*",
    "hipMemPool_t": "struct ihipMemPoolHandle_t*",
    "hipArray_t": "struct hipArray*",
    "hipTextureObject_t": "struct __hip_texture*",
    "hipSurfaceObject_t": "struct __hip_surface*",
    "hipblasHandle_t": "void*",
    "hipblasLtHandle_t": "void*",
    "hipsparseHandle_t": "void*",
    "hipsolverHandle_t": "void*",
    "hipFloatComplex": "float2",
    "hipDoubleComplex": "double2",
    "hipComplex": "hipFloatComplex",
}


def _same_as_hips(unit: Unit, ctx: Context, alias: Alias, declared: str) -> bool:
    """The typedef, converted, declares ``declared`` (its HIP name) as HIP does
    (``_HIP_TYPEDEFS``) or as itself (`typedef struct X X;`, `typedef __hip_bfloat16
    __hip_bfloat16;`): a legal redeclaration, no clash.  Its words are converted as convert
    writes them (``hip_name``: the roc* name under --roc)."""
    words = []
    for t in unit.tokens[alias.keyword + 1 : alias.name]:
        e = unit.mapped.get(t.text)
        renamed = (
            hip_name(e, ctx.options) if e is not None and is_convertible(e, ctx.options) else None
        )
        words.append(renamed or t.text)
    target = " ".join(words).replace(" *", "*")
    return target in (_HIP_TYPEDEFS.get(declared), declared, f"struct {declared}")


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
