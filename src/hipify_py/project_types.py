"""The type names a tree's texts declare, read with patterns as the project index reads the
tree (``project_index.index_of``): the project's own copies of API types (TensorRT's
`cudnnStatus_t`), the handles of opaque structs, and the members of specializations it names
that are types (NanoVDB's `sizeof(NanoRoot<BuildT>::Tile)`, compile round 33).  Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .project_calls import WORD_BYTES

# the type names a file declares: `using NAME =`, `struct|class|union|enum [class] NAME {` (or
# `:` before a base or an enum's type), `typedef ... NAME;`; and handles of opaque structs.  Each
# pattern starts with its keyword, a literal the search skips to (a leading `\b` or an
# alternative of keywords made the search try every byte: 20 s over FasterTransformer)
_USING = re.compile(rb"using[ \t]+(\w+)[ \t]*=(?!=)")
_TAGGED = [
    re.compile(word + rb"[ \t]+(?:class[ \t]+|struct[ \t]+)?(\w+)[ \t\r\n]*(?:[{]|:(?!:))")
    for word in (b"struct", b"class", b"union", b"enum")
]
_USING_STRUCT = re.compile(rb"using[ \t]+(\w+)[ \t]*=[ \t]*struct[ \t]+(\w+)")
_TYPEDEF_STRUCT = re.compile(rb"typedef[ \t]+struct[ \t]+(\w+)[ \t]*\*[ \t]*(\w+)[ \t]*;")
_TYPEDEF = re.compile(rb"typedef\b[^;{}()]*?(\w+)[ \t]*;")
_ENUM_BODY = re.compile(rb"enum\b[^{};()]*\{([^{}]*)\}")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_FIRST_WORD = re.compile(rb"\s*([A-Za-z_]\w*)")


# `NanoRoot<BuildT>::Tile)` (a `sizeof` operand), `NanoRoot<BuildT>::ValueType(0)`: a member of
# a template's specialization, by name, before a parenthesis (from the `>`, a literal)
_MEMBER_BEFORE_PAREN = re.compile(rb">[ \t]*::[ \t]*(\w+)[ \t]*[()]")


def record_types(data: bytes, names: set[str], types: set[str], members: set[str]) -> set[str]:
    """Add the type names and enumerators ``data`` declares to ``names`` (TensorRT's plugin
    headers declare their own `cudnnStatus_t` and its `CUDNN_STATUS_SUCCESS` to load cuDNN at
    run time: no use of cuDNN's, round 19), the type names to ``types``, and the members of
    specializations it names before a parenthesis (`A<T>::NAME(`, `A<T>::NAME)`) to
    ``members``; the type names, which it returns."""
    declared = set(_type_names(data))
    types |= declared
    names |= declared
    names.update(_enumerators(data))
    members.update(m.group(1).decode("ascii") for m in _MEMBER_BEFORE_PAREN.finditer(data))
    return declared


def _type_names(data: bytes) -> Iterator[str]:
    for pattern in (_USING, *_TAGGED, _TYPEDEF):
        for m in pattern.finditer(data):
            if _word_starts(data, m.start()):
                yield m.group(1).decode("ascii")


def _enumerators(data: bytes) -> Iterator[str]:
    for m in _ENUM_BODY.finditer(data):
        if not _word_starts(data, m.start()):
            continue
        for item in _COMMENT.sub(b"", m.group(1)).split(b","):
            word = _FIRST_WORD.match(item)
            if word:
                yield word.group(1).decode("ascii")


# `} CUctx_flags;`: the name a `typedef enum {...}` (or struct) body declares
_AFTER_BODY = re.compile(rb"\}[ \t]*(\w+)[ \t]*;")


def declared_after_bodies(data: bytes) -> Iterator[str]:
    """The names ``data`` declares after a body: the CUDA samples' dynlink headers copy the
    driver API, each enum a typedef of its own (`typedef enum CUctx_flags_enum {...}
    CUctx_flags;`), the project's names (round 21; HZ321 reports the copy once)."""
    for m in _AFTER_BODY.finditer(data):
        yield m.group(1).decode("ascii")


def opaque_handles(data: bytes) -> Iterator[tuple[str, str]]:
    """(struct, handle) of each handle type ``data`` defines as a pointer to an opaque struct:
    TensorRT's `using cublasHandle_t = struct cublasContext*;`, arrayfire's `typedef struct
    cusparseContext* SparseHandle;`.  The struct is the project's own only where the handle
    is a CUDA name too (its copy of the library's API); arrayfire's names the library's own
    handle, which the port must retype (round 13, a true HZ300)."""
    for m in _USING_STRUCT.finditer(data):
        if _word_starts(data, m.start()):
            yield m.group(2).decode("ascii"), m.group(1).decode("ascii")
    for m in _TYPEDEF_STRUCT.finditer(data):
        if _word_starts(data, m.start()):
            yield m.group(1).decode("ascii"), m.group(2).decode("ascii")


def _word_starts(data: bytes, at: int) -> bool:
    """A word starts at offset ``at`` (the byte before it is no identifier character)."""
    return at == 0 or data[at - 1] not in WORD_BYTES
