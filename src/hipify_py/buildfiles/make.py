"""Makefiles: nvcc -> hipcc, nvcc flags -> hipcc flags, CUDA libraries and paths -> ROCm,
and ``.cu`` names, suffix and pattern rules -> ``.hip``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .libraries import NO_ROCM_LIBRARY, is_cuda_library, rocm_library
from .names import rename_edits
from .nvcc_flags import CUDA_ARCH_VALUE, Word, convert_flags
from .unit import BUILD_EDITS, BuildFile, cut_span, outside, tidy_cuts

RULE = "build/make"

_CUDA_PATH_VARS = r"CUDA_HOME|CUDA_PATH|CUDA_ROOT|CUDA_DIR|CUDA_TOOLKIT_ROOT_DIR|CUDA_INSTALL_PATH"
_CUDA_PATH_VARS += r"|CUDA_TOOLKIT_PATH|CUDADIR"
_PATTERNS = re.compile(
    rf"(?<![\w-])(?P<nvcc>nvcc)(?![\w-])"
    rf"|(?<![\w])(?P<var>{_CUDA_PATH_VARS})(?![\w])"
    rf"|(?P<dir>/usr/local/cuda(?:-[\d.]+)?)(?![\w.-])"
)
# lib64 below a CUDA installation: ROCm keeps its libraries in lib/
_LIB64 = re.compile(rf"(?:\$[({{](?:{_CUDA_PATH_VARS})[)}}]|/usr/local/cuda(?:-[\d.]+)?)/(lib64)\b")
_WORD = re.compile(r"\S+")
_LIB_FLAG = re.compile(r"-l(?P<lib>[\w.+-]+)")


def _lines(unit: BuildFile) -> Iterator[tuple[int, int]]:
    """(start, end) of each logical line: backslash-continued lines are one line."""
    text = unit.text
    start = 0
    i = 0
    n = len(text)
    while i < n:
        j = text.find("\n", i)
        j = n if j < 0 else j
        if j > 0 and text[j - 1] == "\\" and j < n:
            i = j + 1
            continue
        yield start, j
        start = i = j + 1
    if start < n:
        yield start, n


@build_pass("make", "make", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    flags = list(_flags(unit, ctx))
    yield from flags
    yield from outside(flags, _names(unit, ctx))


def _flags(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    text = unit.text
    for start, end in _lines(unit):
        words = []
        for m in _WORD.finditer(text, start, end):
            if unit.in_comment(m.start()):
                break
            cut = cut_span(text, m.start(), m.end(), start)
            words.append(Word(m.group(), m.start(), m.end(), *cut))
            yield from _library(m, ctx)
        yield from tidy_cuts(text, list(convert_flags(words, ctx, RULE)), RULE)


def _names(unit: BuildFile, ctx: Context) -> Iterator[Edit]:
    text = unit.text
    for m in _PATTERNS.finditer(text):
        if unit.in_comment(m.start()):
            continue
        if m.group("nvcc"):
            yield Edit(m.start(), m.end(), "hipcc", RULE)
        elif m.group("var"):
            yield Edit(m.start(), m.end(), "ROCM_PATH", RULE)
        else:
            yield Edit(m.start(), m.end(), "/opt/rocm", RULE)
    for m in _LIB64.finditer(text):
        if not unit.in_comment(m.start()):
            yield Edit(m.start(1), m.end(1), "lib", RULE)
    for m in CUDA_ARCH_VALUE.finditer(text):
        if not unit.in_comment(m.start()):
            yield Edit(m.start(), m.end(), ctx.options.offload_arch[0], RULE)
    yield from rename_edits(unit, ctx, RULE)


def _library(m: re.Match, ctx: Context) -> Iterator[Edit | Finding]:
    lib = _LIB_FLAG.fullmatch(m.group())
    if lib is None or not is_cuda_library(lib.group("lib")):
        return
    rocm = rocm_library(lib.group("lib"), ctx.options)
    if rocm is None:
        message = f"-l{lib.group('lib')} has no ROCm counterpart"
        yield NO_ROCM_LIBRARY.report(m.start(), m.end(), message)
    else:
        yield Edit(m.start() + 2, m.end(), rocm.link, RULE)
