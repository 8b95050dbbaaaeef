"""What the tree's headers declare of their functions.  The function templates they declare
without `static` (``ProjectIndex.template_declarations``): stylegan3's `filtered_lrelu.h` declares
`template <bool, bool> cudaError_t copy_filters(cudaStream_t);` and `filtered_lrelu.cu`
defines it `static`.  nvcc's host compiler takes the first declaration's linkage; clang
rejects the `static` ("static declaration follows non-static declaration", issue 23 round 29:
4 silent TUs), so ``rewrite/static_after_declaration`` drops it.  And the functions they
declare `__host__ __device__` (``ProjectIndex.both_declarations``): simple-cuda-voxel-engine's
`vector3.cuh` declares `__device__ __host__ float len(Vector3 v);` and `vector3.cu` defines
`float len(Vector3 v) {...}`; nvcc takes the declaration's targets, clang calls the definition
a host function that cannot overload it (compile round 43), so
``rewrite/definition_targets`` gives the definition both.  Pure: texts come from the caller;
one pass over each header's statements, each looked at once."""

from __future__ import annotations

import re
from pathlib import PurePath

from .frontend.unit import SOURCE_SUFFIXES

# each statement up to its `;` (or the brace that ends it, or the end of the text): a match
# starts where the last one ended, so the scan is linear
_STATEMENT = re.compile(rb"[^;{}]*(?:[;{}]|$)")
_TEMPLATE = re.compile(rb"\btemplate\s*<")
_WORD = re.compile(rb"[A-Za-z_]\w*")
_NOT_NAMESPACE_SCOPE = frozenset({b"static", b"friend", b"typedef", b"using", b"operator"})
_LONGEST = 4096  # a declaration longer than this is no one the index needs


def template_declarations(path: str, data: bytes) -> set[tuple[str, str]]:
    """(the header's file name, function name) for each function template header ``data``
    declares without a body and without `static` (or `friend`: a class's, not the
    namespace's)."""
    if path.endswith(SOURCE_SUFFIXES) or b"template" not in data:
        return set()
    name = PurePath(path).name
    out = set()
    for m in _STATEMENT.finditer(data):
        text = m.group()
        if text.endswith(b";") and len(text) <= _LONGEST and b"template" in text:
            declared = _declared(text[:-1])
            if declared:
                out.add((name, declared))
    return out


def _declared(text: bytes) -> str | None:
    """The function a `template <...> RESULT NAME(PARAMETERS)` statement declares."""
    start = _TEMPLATE.search(text)
    if start is None:
        return None
    depth, k = 0, start.end() - 1
    for k in range(start.end() - 1, len(text)):  # the template parameters' closing `>`
        depth += (text[k : k + 1] == b"<") - (text[k : k + 1] == b">")
        if depth == 0:
            break
    rest = text[k + 1 :].rstrip()
    paren = rest.find(b"(")
    if depth or paren < 0 or not rest.endswith(b")"):
        return None
    words = _WORD.findall(rest[:paren])
    if len(words) < 2 or _NOT_NAMESPACE_SCOPE & set(words):
        return None  # a result type and a name, at namespace scope
    return words[-1].decode("ascii")


_BOTH = (b"__host__", b"__device__")


def both_declarations(path: str, data: bytes) -> set[tuple[str, str]]:
    """(the header's path, function name) for each function header ``data`` declares
    `__host__ __device__` without a body, outside a template."""
    if path.endswith(SOURCE_SUFFIXES) or b"__host__" not in data or b"__device__" not in data:
        return set()
    out = set()
    for m in _STATEMENT.finditer(data):
        text = m.group()
        if not text.endswith(b";") or len(text) > _LONGEST or b"template" in text:
            continue
        rest = text[:-1].rstrip()
        paren = rest.find(b"(")
        if paren < 0 or not rest.endswith(b")"):
            continue
        words = _WORD.findall(rest[:paren])
        if len(words) >= 3 and set(_BOTH) <= set(words) and not _NOT_NAMESPACE_SCOPE & set(words):
            out.add((path, words[-1].decode("ascii")))
    return out


# a member or variable declared with one of CUDA's vector types: `float3 coordinates;`
_VECTOR_DECLARATION = re.compile(
    rb"\b(?:u?char|u?short|u?int|u?long|u?longlong|float|double)([234])\s+([A-Za-z_]\w*)\s*;"
)


def vector_members(data: bytes) -> set[tuple[str, int]]:
    """(name, rank) of each member or variable ``data`` declares with one of CUDA's vector
    types (CUDA_3D's `struct point_t { float3 coordinates; ... }`): a designated list that
    initialises it (`.coordinates{.x = a, .y = b, .z = c}`) initialises a vector, which HIP's
    types do not take designated (``rewrite/vector_designators``)."""
    if b";" not in data:
        return set()
    return {
        (m.group(2).decode("ascii"), int(m.group(1))) for m in _VECTOR_DECLARATION.finditer(data)
    }
