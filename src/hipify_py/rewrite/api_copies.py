"""Declarations of the CUDA API's own types in a project file (a copy of `cuda.h` for a
driver it loads itself: cuda-samples' `cuda_drvapi_dynlink_cuda.h`, gdrcopy's
`cuda_wrapper.h`): renamed like every other use, each declares a HIP name.  Beside HIP's
headers that is a redeclaration with CUDA's definition (HZ321 reports it); on its own, for
files that include no HIP header, it declares the names the file needs, so the ``headers``
pass adds no HIP runtime header to such a file."""

from __future__ import annotations

from ..analysis.declared_types import Alias, aliases
from ..analysis.namespaces import qualified_namespace
from ..analysis.tokens import cached
from ..context import Context
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from .identifiers import kept_aliases


def api_copy_declarations(unit: Unit, ctx: Context) -> list[int]:
    """The tokens of the names the file's typedefs declare that are CUDA API types the
    conversion renames to a HIP name, other than as HIP declares it (computed once)."""

    def make() -> list[int]:
        if "typedef" not in unit.identifiers:
            return []
        toks = unit.tokens
        kept = kept_aliases(unit)  # a HIP compat header's aliases keep their names: no clash
        out = []
        for alias in aliases(unit):
            name = toks[alias.name].text
            e = unit.mapped.get(name)
            # only a name the conversion renames (ncclResult_t stays ncclResult_t; a type the
            # target ROCm lacks stays CUDA's) ends up declaring a HIP type
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
                out.append(alias.name)
        return out

    return cached(unit, "_api_copy_declarations", make)


# HIP's own definitions of the types a copied header most often declares, as ROCm 7.2.4's
# headers write them (test_hazard_premises redeclares each against those headers): a copy that
# says the same once converted redeclares nothing (round 13: arrayfire, NVIDIA warp)
HIP_TYPEDEFS = {
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
    (``HIP_TYPEDEFS``) or as itself (`typedef struct X X;`, `typedef __hip_bfloat16
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
    return target in (HIP_TYPEDEFS.get(declared), declared, f"struct {declared}")
