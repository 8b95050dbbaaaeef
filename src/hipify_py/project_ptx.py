"""PTX macros of a tree's headers that no file of the tree expands: their PTX is never compiled
(cuda_hgemm's `ptx.h` defines `LDMATRIX_X1` beside the `LDMATRIX_X2` its kernels use, round 18:
a false HZ310).  A source file's own unused macros are decided from the file alone (HZ310);
a header's need the tree, read a second time only when some header defines one.  Pure: the
texts come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .frontend.unit import SOURCE_SUFFIXES

_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_ASM = re.compile(rb"(?<![\w])(?:asm|__asm__|__asm)(?![\w])")
# words before a name that name it without expanding it
_NOT_EXPANDED = (b"define", b"ifdef", b"ifndef", b"undef", b"defined", b"defined(")


def header_ptx_macros(path: str, data: bytes) -> set[str]:
    """The macros a header ``data`` defines whose body holds inline assembly."""
    if path.endswith(SOURCE_SUFFIXES):
        return set()
    out = set()
    for m in _DEFINE.finditer(data):
        if _ASM.search(data, m.end(), _line_end(data, m.end())):
            out.add(m.group(1).decode("ascii"))
    return out


def expanded(texts: Iterable[tuple[str, bytes]], names: set[str]) -> set[str]:
    """Those of ``names`` that some text names other than in a `#define`, `#ifdef`,
    `#undef` or `defined(...)`."""
    pattern = re.compile(
        rb"(?<![\w])(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")(?![\w])"
    )
    out: set[str] = set()
    for _path, data in texts:
        for m in pattern.finditer(data):
            before = data[max(0, m.start() - 16) : m.start()].rstrip()
            if not before.endswith(_NOT_EXPANDED):
                out.add(m.group(0).decode("ascii"))
        if out == names:
            break
    return out


def _line_end(data: bytes, at: int) -> int:
    """The end of the logical line (continued by backslashes) that offset ``at`` is on."""
    end = data.find(b"\n", at)
    while end >= 0 and data[max(at, end - 2) : end].rstrip(b"\r").endswith(b"\\"):
        end = data.find(b"\n", end + 1)
    return len(data) if end < 0 else end
