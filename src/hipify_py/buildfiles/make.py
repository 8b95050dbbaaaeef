"""Makefiles: nvcc -> hipcc, nvcc flags -> hipcc flags, CUDA libraries and paths -> ROCm,
and ``.cu`` names, suffix and pattern rules -> ``.hip``.

Edits follow Make's own structure so that a converted Makefile parses whenever the original
did: flags are read per logical line (physical lines joined by ``\\``), a flag word never takes
the ``)``/``}`` that closes an enclosing ``$(...)``/``${...}`` (``$(eval F += -gencode
arch=compute_$(sm),code=sm_$(sm)))``), and a removal never leaves a continuation ``\\`` that
would swallow the next line (``else ifeq``, ``endif``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .include_dirs import make_include_dirs
from .libraries import NO_ROCM_LIBRARY, is_cuda_library, rocm_library
from .names import rename_edits
from .nvcc_flags import CUDA_ARCH_VALUE, Word, convert_flags
from .registry import build_system
from .unit import BUILD_EDITS, BuildFile, cut_span, outside

RULE = "build/make"
build_system(
    "make",
    names=("Makefile", "makefile", "GNUmakefile"),
    patterns=("*.mk", "Makefile.*"),
    include_dirs=make_include_dirs,
)

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
_CLOSER = {"(": ")", "{": "}"}
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
        for word_start, word_end in _words(text, start, end):
            if unit.in_comment(word_start):
                break
            cut = cut_span(text, word_start, word_end, start)
            words.append(Word(text[word_start:word_end], word_start, word_end, *cut))
            yield from _library(words[-1], ctx)
        yield from _tidy(text, start, end, list(convert_flags(words, ctx, RULE)))


def _words(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Blank-separated words of a logical line, each cut before a ``)``/``}`` that closes a
    reference opened before it, and without the continuation backslash."""
    for m in _WORD.finditer(text, start, end):
        stack: list[str] = []
        stop = m.end()
        for k in range(m.start(), m.end()):
            c = text[k]
            if c in _CLOSER:
                stack.append(_CLOSER[c])
            elif c in ")}":
                if not stack:
                    stop = k
                    break
                if stack[-1] == c:
                    stack.pop()
        if stop == m.end() and text[stop - 1] == "\\" and text.startswith("\n", stop):
            stop -= 1  # the continuation backslash written against the word: `-arch=sm_80\`
        if stop > m.start():
            yield m.start(), stop


def _tidy(text: str, start: int, end: int, proposals: list) -> list:
    """The proposals of one logical line, with its removals shaped so the line stays one line
    to Make: a physical line left blank goes with its ``\\``, and when the last ones go, the
    line before them loses its ``\\`` (else it would continue into ``else``/``endif``)."""
    removed: set[int] = set()
    for p in proposals:
        if isinstance(p, Edit) and not p.text:
            removed.update(range(p.start, p.end))
    if not removed:
        return proposals
    out = [p for p in proposals if not (isinstance(p, Edit) and not p.text)]
    physical = []  # (line start, body end: before a continuation backslash, line end)
    k = start
    while True:
        nl = text.find("\n", k, end)
        line_end = end if nl < 0 else nl
        physical.append((k, line_end - 1 if nl >= 0 else line_end, line_end))
        if nl < 0:
            break
        k = nl + 1
    kept = [i for i, (s, b, _) in enumerate(physical) if _left(text, s, b, removed).strip()]
    if not kept:  # nothing but removed flags on the line
        return [*out, Edit(start, min(end + 1, len(text)), "", RULE)]
    last = kept[-1]
    for i, (s, b, e) in enumerate(physical):
        if i < last and i not in kept:
            out.append(Edit(s, e + 1, "", RULE))
        elif i < last or i == len(physical) - 1:
            out.extend(_runs(text, removed, s, b))
        else:  # the last line with content: what follows it goes, its backslash too
            content_end = max(k for k in range(s, b) if k not in removed and not text[k].isspace())
            out.extend(_runs(text, removed, s, content_end + 1))
            out.append(Edit(content_end + 1, end, "", RULE))
            break
    return out


def _left(text: str, start: int, end: int, removed: set[int]) -> str:
    return "".join(text[k] for k in range(start, end) if k not in removed)


def _runs(text: str, removed: set[int], start: int, end: int) -> Iterator[Edit]:
    """Deletions for the removed offsets in [start, end), as contiguous runs; a run first on
    its line also takes the blanks after it (the line keeps its indentation)."""
    k = start
    while k < end:
        if k in removed:
            j = k
            while j < end and j in removed:
                j += 1
            if not text[start:k].strip():
                while j < end and text[j] in " \t":
                    j += 1
            yield Edit(k, j, "", RULE)
            k = j
        else:
            k += 1


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


def _library(word: Word, ctx: Context) -> Iterator[Edit | Finding]:
    lib = _LIB_FLAG.fullmatch(word.text)
    if lib is None or not is_cuda_library(lib.group("lib")):
        return
    rocm = rocm_library(lib.group("lib"), ctx.options)
    if rocm is None:
        message = f"-l{lib.group('lib')} has no ROCm counterpart"
        yield NO_ROCM_LIBRARY.report(word.start, word.end, message)
    else:
        yield Edit(word.start + 2, word.end, rocm.link, RULE)
