"""Map CUDA headers to HIP headers, never duplicate an include, add hip_runtime.h when needed.

An include of a CUDA or library header that maps to a header already included earlier on
every path that reaches it is removed; includes in different ``#if`` branches are kept, because
only one of them is active, and so is a project file included again (on purpose: once per
setting of a macro).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ..analysis.insertion import guard_branch, insertion_point
from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..frontend.conditions import inactive_in
from ..frontend.directives import Include
from ..frontend.directives import includes as directive_includes
from ..frontend.unit import Unit
from ..mappings import Entry, MappingIndex, hip_name, is_convertible, no_hip_library
from ..rules import Tally, declare_rule, rewrite_pass
from ._shim_texts import NVTX_SHIM
from .implicit_includes import implicit_headers
from .wmma_include import kept_wmma_include

RUNTIME_HEADER = "hip/hip_runtime.h"
RUNTIME_API_HEADER = "hip/hip_runtime_api.h"
# ROCm 5.2 moved these libraries' headers from the top of the include directory into
# <component>/ subdirectories (ROCm 5.3 release notes, "Linux Filesystem Hierarchy Standard");
# for --target-rocm 5.1 and older the top-level name is the one that exists.
FIRST_SUBDIR_LAYOUT = (5, 2)
MOVED_IN_5_2 = frozenset({"hipblas", "rocblas", "hipsparse", "rocsparse", "hipsolver", "hipblaslt"})
_DEVICE_WORDS = frozenset(
    {
        "__global__",
        "__device__",
        "__shared__",
        "__constant__",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "__syncthreads",
    }
)
_CUDA_RUNTIME_SPELLINGS = frozenset({"cuda.h", "cuda_runtime.h", "cuda_runtime_api.h"})
# Include paths of the CUDA toolkit and its libraries (angle-bracket includes only: a project's
# own "cuda_utils.h" is not one).  Those without a table entry are reported by HP001.
_CUDA_SDK_HEADER = re.compile(
    r"(cuda\w*|cu(blas|sparse|solver|rand|fft|dnn|tensor|file|pti)\w*|nv\w+|sm_\d+\w*|"
    r"device_\w+|mma|texture_\w+|surface_\w+|vector_\w+)\.h|"
    r"(cub|cuda|cooperative_groups|crt|nvtx3|cuda/std)/.+"
)
# cuBLAS takes __half for its half-precision calls (cublasHgemm...); hipblas.h of ROCm 7.2.4
# makes hipblasHalf a uint16_t unless HIPBLAS_USE_HIP_HALF is defined before it, so converted
# calls would find no matching hipblasHgemm.  The library's symbols are extern "C": the same.
HIP_HALF = "#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"
# What a HIP header needs before it that its CUDA counterpart did itself: HIP_HALF for hipblas.h;
# cuda_gl_interop.h includes <GL/gl.h> and the runtime API, ROCm 7.2.4's hip_gl_interop.h uses
# GLuint/GLenum and hipError_t without declaring them.
PRELUDES = {
    "hipblas.h": HIP_HALF,
    "hip_gl_interop.h": "#include <GL/gl.h>\n#include <hip/hip_runtime_api.h>\n",
}
# What replaces a CUDA header that has no HIP counterpart but a shim: its include becomes the
# table's HIP header (<stdint.h> for NVTX) after the shim; and what a CUDA header includes
# that its HIP counterpart does not: cusolverSp.h declares its calls with cuSPARSE's types and
# includes cusparse.h, hipsolver.h does not include hipsparse.h (Soft-Body-Simulation-CUDA's
# `cusparseHandle_t` member beside `cusolverSpHandle_t`, compile round 41: 2 silent TUs)
SHIMMED_HEADERS = {
    "nvToolsExt.h": NVTX_SHIM,
    "nvtx3/nvToolsExt.h": NVTX_SHIM,
    "cusolverSp.h": "#include <hipsparse/hipsparse.h>\n",
}
# an unlisted sub-header maps as its library's umbrella
UMBRELLA = {"cub/": "cub/cub.cuh", "cutlass/": "cutlass/cutlass.h", "cute/": "cute/tensor.hpp"}

UNSUPPORTED_HEADER = declare_rule(
    "HP001",
    "unsupported-header",
    Severity.ERROR,  # the include is not found: the converted file cannot compile
    "A CUDA header with no HIP counterpart is included.",
    """
    ## What it detects
    An `#include` of a CUDA header that the mapping tables list with no HIP equivalent, or a
    CUDA toolkit header (`<cuda_*.h>`, `<cu*.h>`, `<nv*.h>`, `<cooperative_groups/...>`) the
    tables do not know: every CUDA header either maps to one the target ROCm has, or is
    reported.

    ## Why it breaks on AMD
    The header does not exist in ROCm, so the converted file does not compile until the code
    that needs it is ported by hand.

    ## Example
    ```cpp
    #include <cuda_profiler_api.h>
    ```

    ## How to fix
    Remove the include and port the APIs it provided (see `hipify-py mappings search`), or
    guard it with `#ifndef __HIP_PLATFORM_AMD__`.
    """,
)


def header_entry(path: str, mappings: MappingIndex) -> Entry | None:
    """The mapping-table entry of an included CUDA header (an unlisted sub-header of an
    umbrella library as its umbrella), None for a header the tables do not list."""
    entry = mappings.header(path)
    for prefix, umbrella in UMBRELLA.items():
        if entry is None and path.startswith(prefix):
            entry = mappings.header(umbrella)
    return entry


def is_cuda_header(path: str, mappings: MappingIndex) -> bool:
    """Whether ``#include <path>`` names a header of the CUDA toolkit or its libraries."""
    return header_entry(path, mappings) is not None or bool(_CUDA_SDK_HEADER.fullmatch(path))


def includes(unit: Unit) -> list[Include]:
    return directive_includes(unit.text, unit.tokens, unit.directives)


def _covers(earlier: tuple[int, ...], later: tuple[int, ...]) -> bool:
    return later[: len(earlier)] == earlier


@rewrite_pass(
    "headers", order=5, tallies=(Tally("header", "headers_rewritten", "#include lines rewritten"),)
)
def headers(unit: Unit, ctx: Context) -> Iterator[Edit | Finding]:
    found = includes(unit)
    emitted: list[tuple[str, tuple[int, ...]]] = []
    has_runtime = has_runtime_api = False
    top = ((), guard_branch(unit))
    for inc in _cuda_includes(unit, found, ctx):
        entry = header_entry(inc.path, ctx.mappings)
        if kept_wmma_include(unit, inc):
            continue  # an <mma.h> in a file without WMMA: wmma_include.py's
        unsupported = _no_counterpart(inc, entry, ctx)
        if unsupported is not None:
            yield unsupported
        target = _include_target(inc, entry, ctx)
        duplicate = any(t == target and _covers(b, inc.branch) for t, b in emitted)
        if duplicate and inc.alone and entry is not None:
            # only an API header the mapping folds into one already there: a file of the
            # project included again is meant (mfaktc includes `tf_barrett96_div.cu` twice,
            # once per `#define INV_160_96`, compile round 34)
            yield Edit(inc.start, inc.line_end, "", "header")
            continue
        emitted.append((target, inc.branch))
        if target in (RUNTIME_HEADER, RUNTIME_API_HEADER) and inc.branch in top:
            has_runtime_api = True
            has_runtime = has_runtime or target == RUNTIME_HEADER
        if target != inc.path:
            yield _retargeted(unit, inc, entry, target)
    inserted = _inserted_includes(unit, ctx, found, has_runtime, has_runtime_api)
    if inserted:
        at = insertion_point(unit, found)
        if at == len(unit.text) and unit.text[-1:] not in ("\r", "\n", ""):  # no final newline
            inserted = unit.newline + inserted
        yield Edit(at, at, inserted, "header")


def _cuda_includes(unit: Unit, found: list[Include], ctx: Context) -> list[Include]:
    """``found`` but the project's own headers named as CUDA's (``_own_header``)."""
    return [inc for inc in found if not _own_header(unit, inc, ctx)]


def _own_header(unit: Unit, inc: Include, ctx: Context) -> bool:
    """A quoted include that finds a file of the tree beside the including file, named as a
    CUDA header (``ProjectIndex.own_cuda_named``): the compiler reads that file, not CUDA's."""
    if inc.angled or not ctx.project.own_cuda_named:
        return False
    beside = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(unit.path)), inc.path))
    return beside in ctx.project.own_cuda_named


def _no_counterpart(inc: Include, entry: Entry | None, ctx: Context) -> Finding | None:
    """The finding for a CUDA header that HIP (or the chosen HIP libraries) cannot replace:
    a table entry without a convertible HIP name, or an unlisted CUDA SDK header."""
    if entry is not None:
        if is_convertible(entry, ctx.options):
            return None
        if entry.status == "unsupported" or no_hip_library(entry, ctx.options):
            why = no_hip_library(entry, ctx.options) or entry.note
            return UNSUPPORTED_HEADER.report(
                inc.path_start,
                inc.path_end,
                f"'{inc.path}' has no HIP counterpart" + (f": {why}" if why else ""),
                # the headers of one library, with one reason, are one finding (root_causes)
                extra={"api": inc.path, "family": entry.family, "root_cause": why or inc.path},
            )
        return None
    if inc.angled and _CUDA_SDK_HEADER.fullmatch(inc.path):
        return UNSUPPORTED_HEADER.report(
            inc.path_start,
            inc.path_end,
            f"'{inc.path}' is a CUDA header with no known HIP counterpart",
            extra={"api": inc.path, "family": "headers"},
        )
    return None


def _include_target(inc: Include, entry: Entry | None, ctx: Context) -> str:
    """What the include names after conversion: the HIP header for a convertible CUDA one,
    ``x.hip`` for a quoted ``x.cu`` (the file is renamed unless names are kept), else itself."""
    if entry is not None:
        if is_convertible(entry, ctx.options):
            return _layout(hip_name(entry, ctx.options) or inc.path, ctx)
        return inc.path
    if not inc.angled and inc.path.endswith(".cu") and not ctx.options.keep_names:
        return inc.path[:-3] + ".hip"
    return inc.path


def _retargeted(unit: Unit, inc: Include, entry: Entry | None, target: str) -> Edit:
    """The include rewritten to ``target``, spelled as it was (``<>`` or quotes); a HIP
    header with a prelude (a macro it must see first) gets the prelude before it."""
    spelled = f"<{target}>" if inc.angled else f'"{target}"'
    prelude = SHIMMED_HEADERS.get(inc.path) or next(
        (t for h, t in PRELUDES.items() if target.endswith(h)), ""
    )
    if entry is not None and prelude:
        prelude = prelude.replace("\n", unit.newline)
        return Edit(inc.start, inc.path_end, f"{prelude}#include {spelled}", "header")
    return Edit(inc.path_start, inc.path_end, spelled, "header")


def _inserted_includes(
    unit: Unit, ctx: Context, found: list[Include], has_runtime: bool, has_runtime_api: bool
) -> str:
    """The ``#include`` lines to add: hip_runtime.h where the code needs it and no include
    gives it, then, in CUDA code (it includes a HIP runtime header), nvcc's implicit C headers
    that HIP does not include."""
    inserted = ""
    if not has_runtime and _needs_runtime(unit, ctx, has_runtime_api):
        quoted = any(not inc.angled and inc.path in _CUDA_RUNTIME_SPELLINGS for inc in found)
        spelled = f'"{RUNTIME_HEADER}"' if quoted else f"<{RUNTIME_HEADER}>"
        inserted = f"#include {spelled}{unit.newline}"
        has_runtime = True
    # CUDA code: a .cu file, or a header for .cu files that includes the runtime API itself
    # (GenomeWorks' `cudapoa_batch.cuh` calls memcpy by the TU's implicit <string.h>, rw30)
    if has_runtime or has_runtime_api:  # the HIP build's includes, not a CUDA-only branch's
        skipped = inactive_in(unit)
        active = {inc.path for inc in found if inc.start not in skipped}
        extra = implicit_headers(unit, active, not ctx.options.portable)
        inserted += "".join(f"#include <{h}>{unit.newline}" for h in extra)
    return inserted


def _layout(path: str, ctx: Context) -> str:
    """The include path as the targeted ROCm lays it out."""
    component, _, name = path.partition("/")
    if ctx.options.target_rocm < FIRST_SUBDIR_LAYOUT and component in MOVED_IN_5_2:
        return name
    return path


def _needs_runtime(unit: Unit, ctx: Context, has_runtime_api: bool) -> bool:
    """A .cu file (nvcc includes cuda_runtime.h into every one implicitly), device code or a
    launch needs hip_runtime.h; so does a runtime/driver API call in a file that includes no
    HIP runtime header at all."""
    if unit.path.endswith(".cu"):
        return True
    if unit.identifiers & _DEVICE_WORDS or "<<<" in unit.text:
        return True
    if has_runtime_api:
        return False
    return any(e.family in ("runtime", "driver") and e.hip for e in unit.mapped.values())
