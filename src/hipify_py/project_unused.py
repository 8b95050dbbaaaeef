"""Definitions of a tree's headers that no file of the tree names: a PTX macro no code expands
holds no PTX (cuda_hgemm's `ptx.h` defines `LDMATRIX_X1` beside the `LDMATRIX_X2` its kernels
use, round 18: a false HZ310), and an FP8 range constant no code reads scales nothing
(omniserve's `FP8_E4M3_MAX = 448.0f`, round 20: 2 false HZ319).  A source file's own are
decided from the file alone (the rules); a header's need the tree, read a second time only
when some header defines one.  Pure: the texts come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .frontend.directives import DEFINED_NAME
from .frontend.unit import SOURCE_SUFFIXES

_ASM = re.compile(rb"(?<![\w])(?:asm|__asm__|__asm)(?![\w])")
# `NAME = 448.0f;`, `NAME{448}`, `#define NAME 448.f`: found from the literal back to the name
_AS_448 = re.compile(rb"(?<![\w.])448(?:\.0*)?[fF]?(?![\w.])")
# words before a name that name it without expanding it
_NOT_EXPANDED = (b"define", b"ifdef", b"ifndef", b"undef", b"defined", b"defined(")


def header_definitions(path: str, data: bytes) -> set[str]:
    """The macros a header ``data`` defines whose body holds inline assembly, and the names
    it defines as 448 (`constexpr float FP8_E4M3_MAX = 448.0f;`, OCP e4m3's largest value)."""
    if path.endswith(SOURCE_SUFFIXES):
        return set()
    out = set()
    for m in DEFINED_NAME.finditer(data):
        if _ASM.search(data, m.end(), _line_end(data, m.end())):
            out.add(m.group(1).decode("ascii"))
    for m in _AS_448.finditer(data):
        name = _name_before(data, m.start())
        if name:
            out.add(name)
    return out


def _name_before(data: bytes, at: int) -> str:
    """The name a value at offset ``at`` is given: `NAME = `, `NAME{`, `#define NAME `."""
    k = len(data[:at].rstrip())
    if k and data[k - 1 : k] in (b"=", b"{"):
        k = len(data[: k - 1].rstrip())
    end = k
    while k and (data[k - 1 : k].isalnum() or data[k - 1 : k] == b"_"):
        k -= 1
    return data[k:end].decode("ascii") if k < end and not data[k : k + 1].isdigit() else ""


def expanded(texts: Iterable[tuple[str, bytes]], names: set[str]) -> set[str]:
    """Those of ``names`` that some text names other than in a `#define`, `#ifdef`,
    `#undef`, `defined(...)` or a definition (`NAME = `, `NAME{`)."""
    pattern = re.compile(
        rb"(?<![\w])(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")(?![\w])"
    )
    out: set[str] = set()
    for _path, data in texts:
        for m in pattern.finditer(data):
            before = data[max(0, m.start() - 16) : m.start()].rstrip()
            after = data[m.end() : m.end() + 16].lstrip()
            defined = after[:1] == b"{" or (after[:1] == b"=" and after[:2] != b"==")
            if not before.endswith(_NOT_EXPANDED) and not defined:
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
