"""Files whose hazards are nobody's port: a copy of a CUDA library that the conversion replaces
with its ROCm counterpart, and a TensorRT source, which no renaming makes build on ROCm.

A project may ship its own copy of CUB or Thrust (an old release, for toolkits that lacked it)
or of NVIDIA's FP8/BF16/FP16 type headers.  The conversion maps the includes of those libraries
to hipCUB, rocThrust and hip_fp*.h, so the HIP build never compiles the copy: its PTX, its
32-bit lane masks and its texture references are not code a user ports, and a hundred-file
copy would bury the project's own findings.  Such a file is recognised by what it defines, not
by where it lies: a copy of CUB or Thrust defines CUB's or Thrust's own entities in their
namespace, and that namespace holds most of its code (a project's file that merely uses
``cub::BlockReduce``, or specialises ``cub::NumericTraits`` for its own type, is neither); a
copy of a CUDA type header defines NVIDIA's include guard and declares the header's types.

TensorRT has no ROCm port (MIGraphX has another API), so a file that includes a TensorRT header
or implements a TensorRT plugin cannot be built on ROCm at all: HP001 reports the TensorRT
include once (``mappings/headers.yaml``, family ``tensorrt``), and the file's other findings
(the cuDNN context of ``attachToContext``'s signature, an SM number it prints) are moot.  So
for CUTLASS and CuTe (family ``cutlass``): a file that includes them is built on their PTX and
tensor-core templates, and the 32-thread warps of CUTLASS's layouts are its own (MNN's fused
attention, round 15: 2 false HZ107).  So for OptiX (family ``optix``), whose pipelines a port
rewrites for HIP RT, a copy of the OptiX SDK's own headers, known by their include guards, and a
header that only OptiX sources include, directly or through other headers.

A project that keeps its own HIP backend beside its CUDA one (QUDA's `include/targets/cuda`
and `include/targets/hip`, ginkgo's and stdgpu's `cuda/` and `hip/`) builds the HIP one for
AMD: the CUDA backend's files are not its port (``ProjectIndex.cuda_backends``).  Nor are the
examples and tests of a copy of CUB's whole repository (``ProjectIndex.library_copies``).

``policy.kept_in_file`` decides what the answer means for the findings.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePath

from .analysis.namespaces import namespace_bodies
from .frontend.directives import includes
from .frontend.lexer import Kind, Token
from .frontend.unit import SOURCE_SUFFIXES, Unit
from .mappings import MappingIndex
from .project_backends import not_the_projects
from .project_index import ProjectIndex
from .rewrite.headers import header_entry

# a library's namespace, spelled plainly or with its release's macros (CUB 1.13+, Thrust 1.15+)
_NAMESPACES = {"cub": "CUB", "thrust": "Thrust"}
_NAMESPACE_MACROS = {
    "CUB_NAMESPACE_BEGIN": ("CUB_NAMESPACE_END", "CUB"),
    "THRUST_NAMESPACE_BEGIN": ("THRUST_NAMESPACE_END", "Thrust"),
}
# NVIDIA's include guards of its FP8/BF16/FP16 headers, and the types those headers declare
_TYPE_HEADER_GUARDS = frozenset(
    f"__CUDA_{kind}_{ext}__" for kind in ("FP8", "BF16", "FP16") for ext in ("H", "HPP")
)
_HEADER_TYPES = frozenset(
    {"__half", "__half2", "__nv_bfloat16", "__nv_bfloat162"}
    | {f"__nv_fp8{n}_{f}" for n in ("", "x2", "x4") for f in ("e4m3", "e5m2")}
)
# what a TensorRT plugin implements or registers (with ``nvinfer1``, TensorRT's namespace)
_PLUGIN_NAMES = frozenset(
    {
        "IPluginV2",
        "IPluginV2Ext",
        "IPluginV2IOExt",
        "IPluginV2DynamicExt",
        "IPluginV3",
        "IPluginCreator",
        "IPluginCreatorV3One",
        "REGISTER_TENSORRT_PLUGIN",
    }
)
TENSORRT = "tensorrt"  # the mapping family of TensorRT's headers
CUTLASS = "cutlass"  # and of CUTLASS's and CuTe's
OPTIX = "optix"  # and of OptiX's
# the families of the libraries with no ROCm port whose includers keep only that finding
_UNPORTED_LIBRARIES = {CUTLASS: "a CUTLASS source", OPTIX: "an OptiX source"}
_OPTIX_GUARD = re.compile(r"_*optix[a-z0-9_]*_h_*")


@dataclass(frozen=True)
class NotPorted:
    """Why a file's findings are no port's business."""

    what: str  # "a copy of CUB", "a TensorRT source"
    # findings of this mapping family stay (HP001 at a TensorRT include says why); "" keeps none
    kept_family: str = ""


def not_ported(
    unit: Unit, mappings: MappingIndex, inactive: Container[int], project: ProjectIndex
) -> NotPorted | None:
    """What makes ``unit`` a file the HIP build does not compile as the project's own code
    (``inactive``: offsets in branches the HIP build skips), or None."""
    where = not_the_projects(unit.path, project)
    if where:
        return NotPorted(where)
    if _stops_every_build(unit):
        return NotPorted("a file whose unconditional #error stops every build")
    if _defines_optix_guard(unit):  # the SDK's headers include each other: no HP001 there
        return NotPorted("a copy of NVIDIA's OptiX SDK")
    families = _included_families(unit, mappings, inactive)
    if TENSORRT in families or _implements_tensorrt(unit):
        return NotPorted("a TensorRT source", TENSORRT)
    for family, what in _UNPORTED_LIBRARIES.items():
        if family in families:
            return NotPorted(what, family)
    graph = project.include_graph
    optix = graph.included(OPTIX, lambda header: _family(PurePath(header).name, mappings) == OPTIX)
    if not unit.path.endswith(SOURCE_SUFFIXES) and graph.reached_only_from(
        graph.node(unit.path), optix
    ):
        return NotPorted("a header only OptiX sources reach")
    library = _library_copy(unit) or _type_header_copy(unit)
    return NotPorted(f"a copy of {library}") if library else None


def _stops_every_build(unit: Unit) -> bool:
    """An `#error` outside every conditional but the file's include guard: no build compiles
    the file (FK20-CUDA's `fk20test_kat.cu`, "This file should not be used, use fk20test.cu
    instead", round 41: a false HZ401)."""
    if "error" not in unit.identifiers:
        return False
    depth, guard = 0, False
    for n, d in enumerate(unit.directives):
        word = unit.directive_word(d)
        if word in ("if", "ifdef", "ifndef"):
            guard = guard or (n == 0 and word == "ifndef" and _guarded(unit, n))
            depth += 1
        elif word == "endif":
            depth -= 1
            guard = guard and depth > 0  # past the guard's `#endif`, a conditional is one
        elif word == "error" and depth <= int(guard):
            return True
    return False


def _guarded(unit: Unit, n: int) -> bool:
    """The file's first directive, `#ifndef NAME`, is an include guard: `#define NAME` next."""
    toks, directives = unit.tokens, unit.directives
    if n + 1 >= len(directives) or directives[n] + 2 >= len(toks):
        return False
    nxt = directives[n + 1]
    return (
        unit.directive_word(nxt) == "define"
        and nxt + 2 < len(toks)
        and toks[nxt + 2].text == toks[directives[n] + 2].text
    )


def _implements_tensorrt(unit: Unit) -> bool:
    """A TensorRT plugin without a TensorRT include of its own: `nvinfer1` and a plugin name."""
    names = unit.identifiers
    return "nvinfer1" in names and not names.isdisjoint(_PLUGIN_NAMES)


def _included_families(unit: Unit, mappings: MappingIndex, inactive: Container[int]) -> set[str]:
    """The mapping families of the headers the HIP build includes (a sub-header as its
    umbrella: `cutlass/gemm/gemm.h` is CUTLASS's)."""
    found = {
        _family(inc.path, mappings)
        for inc in includes(unit.text, unit.tokens, unit.directives)
        if inc.start not in inactive
    }
    found.discard("")
    return found


def _family(header: str, mappings: MappingIndex) -> str:
    """The mapping family of ``header`` (an include's path or a base name; "" for none)."""
    entry = header_entry(header, mappings)
    return entry.family if entry is not None and entry.family else ""


def _defines_optix_guard(unit: Unit) -> bool:
    """The file defines an include guard of NVIDIA's OptiX SDK, lower case and named for the
    SDK's file (`__optix_optix_7_types_h__`, `__optixu_optixu_math_h__`,
    `optix_denoiser_tiling_h`): a copy of the SDK's headers, whose PTX and CUDA typedefs are
    OptiX's (lighthouse2's `lib/OptiX7/include`, round 34: 2 false findings)."""
    toks = unit.tokens
    return any(
        toks[d + 1].text == "define" and _OPTIX_GUARD.fullmatch(toks[d + 2].text) is not None
        for d in unit.directives
        if d + 2 < len(toks)
    )


def _library_copy(unit: Unit) -> str | None:
    """CUB or Thrust, when the file defines entities of its own in that library's namespace
    and has no more code outside it than inside (its preprocessor lines outside not counted:
    a copy includes its siblings and guards itself; a project's file has code of its own)."""
    toks = unit.tokens
    code = [0, *accumulate(not t.in_directive for t in toks)]  # code tokens before each index
    inside, outside = 0, code[-1]
    library = None
    for first, end, name in _namespace_bodies(unit):
        inside += end - first  # a #define in the library's namespace is the library's too
        opener = first - (3 if toks[first - 1].text == "{" else 1)
        outside -= code[min(end + 1, len(toks))] - code[opener]
        if library is None and _defines_own(unit, first, end, f"{name.upper()}_"):
            library = name
    return library if library and outside <= inside else None


def _namespace_bodies(unit: Unit) -> Iterator[tuple[int, int, str]]:
    """(first, end, library) token ranges of the bodies of CUB's and Thrust's namespaces; the
    token at ``end`` closes the body (``}``, ``CUB_NAMESPACE_END``) or is past the file."""
    toks = unit.tokens
    positions = unit.identifier_positions
    for body in namespace_bodies(unit):
        # `namespace cub {` itself, in code (not `namespace cub::detail {`, nor a macro's body)
        plain = body.open == body.keyword + 2 and not toks[body.keyword].in_directive
        if plain and body.name in _NAMESPACES:
            yield body.open + 1, body.close, _NAMESPACES[body.name]
    for begin, (end_macro, name) in _NAMESPACE_MACROS.items():
        ends = positions.get(end_macro, [])
        for i in positions.get(begin, ()):
            if not toks[i].in_directive:
                after = bisect.bisect_right(ends, i)
                yield i + 1, ends[after] if after < len(ends) else len(toks), name


def _defines_own(unit: Unit, start: int, end: int, macros: str) -> bool:
    """Whether tokens[start:end] define the library's own entities: a declaration at their top
    that is not an explicit specialisation (``template <>``) nor a using-declaration (the
    project's traits for its own types are), or a macro named with the library's prefix
    (``macros``: a copy of CUB's util_arch.cuh defines only ``CUB_*`` macros in its namespace)."""
    toks = unit.tokens
    brackets = unit.lexed.brackets
    at_start = True
    k = start
    while k < end:
        tok = toks[k]
        if tok.in_directive or tok.kind is Kind.DIRECTIVE:
            if tok.text == "define" and k + 1 < end and toks[k + 1].text.startswith(macros):
                return True
            k += 1
            continue
        if at_start and tok.text != ";":
            if not (_specialisation(toks, k) or tok.text == "using"):
                return True
            at_start = False
        if tok.text in ("(", "[", "{"):
            close = brackets.get(k, k)
            at_start = tok.text == "{" and (close + 1 >= end or toks[close + 1].text != ";")
            k = close
        elif tok.text == ";":
            at_start = True
        k += 1
    return False


def _specialisation(toks: Sequence[Token], k: int) -> bool:
    return (
        toks[k].text == "template"
        and k + 2 < len(toks)
        and toks[k + 1].text == "<"
        and toks[k + 2].text == ">"
    )


def _type_header_copy(unit: Unit) -> str | None:
    """NVIDIA's FP8/BF16/FP16 header: it defines the header's include guard and declares (or
    defines) the header's types as structs."""
    toks = unit.tokens
    positions = unit.identifier_positions
    guard = next((g for g in _TYPE_HEADER_GUARDS if _defined(unit, g)), None)
    if guard is None:
        return None
    for name in _HEADER_TYPES & unit.identifiers:
        for i in positions[name]:
            declared = i + 1 < len(toks) and toks[i + 1].text in ("{", ";", ":")
            if declared and any(t.text in ("struct", "class") for t in toks[max(0, i - 6) : i]):
                return f"NVIDIA's cuda_{guard.split('_')[3].lower()} header"
    return None


def _defined(unit: Unit, macro: str) -> bool:
    toks = unit.tokens
    return any(
        toks[i].in_directive and i > 0 and toks[i - 1].text == "define"
        for i in unit.identifier_positions.get(macro, ())
    )
