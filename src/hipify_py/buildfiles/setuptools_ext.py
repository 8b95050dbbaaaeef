"""setup.py with ``torch.utils.cpp_extension``: sources follow the ``.cu`` -> ``.hip`` renames,
nvcc flags in ``extra_compile_args`` become hipcc flags, CUDA libraries become ROCm ones.  A
Python file that builds its extension just in time (``load(sources=[...],
extra_cuda_cflags=[...])``) is converted the same way: on ROCm, ``cpp_extension`` compiles
``.hip`` sources with hipcc (``_is_cuda_file``).

The extension stays a ``CUDAExtension``: on a ROCm build of PyTorch that class builds HIP
extensions with hipcc and passes ``extra_compile_args["nvcc"]`` to hipcc. It also runs
PyTorch's own hipify over the sources; on hipify-py's output (already HIP, launches written as
``hipLaunchKernelGGL``) that pass finds nothing to rewrite and the files compile as written.
Architecture flags are removed, not translated: PyTorch honours ``PYTORCH_ROCM_ARCH`` only
when the arguments carry no ``--offload-arch``.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .libraries import NO_ROCM_LIBRARY, is_cuda_library, rocm_library
from .names import rename_edits
from .nvcc_flags import Word, convert_flags
from .registry import build_system
from .unit import BUILD_EDITS, BuildFile, outside, tidy_cuts

RULE = "build/setup.py"
# setup.py, and any Python file that builds an extension just in time (``cpp_extension.load``
# with ``sources=[...]``, ``load_inline``): its source names follow the renames the same way
build_system("setuptools", names=("setup.py",), patterns=("*.py",), marker=b"cpp_extension")
_STRING = re.compile(r"(?P<prefix>[rRuU]?)(?P<quote>'''|\"\"\"|'|\")(?P<body>.*)(?P=quote)", re.S)


@build_pass("setuptools", "setuptools", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(unit.text).readline))
    except (tokenize.TokenError, SyntaxError):
        return  # not Python we can read: left as it is (the summary shows it unchanged)
    words: list[Word] = []
    strings: list[Word] = []
    in_libraries = 0  # bracket depth inside a `libraries=[...]` argument
    prev: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and tok.string == "CUDA_HOME":
            start = unit.lines.offset(tok.start[0], tok.start[1] + 1)
            yield Edit(start, start + len(tok.string), "ROCM_HOME", RULE)
        elif tok.type == tokenize.OP and tok.string in "[(" and prev[-2:] == ["libraries", "="]:
            in_libraries = 1
        elif tok.type == tokenize.OP and in_libraries and tok.string in "[(":
            in_libraries += 1
        elif tok.type == tokenize.OP and in_libraries and tok.string in "])":
            in_libraries -= 1
        elif tok.type == tokenize.STRING:
            word = _word(unit, tokens, i)
            if word is not None:
                strings.append(word)
                words.append(word)
                if in_libraries and is_cuda_library(word.text):
                    yield from _library(word, ctx)
        prev.append(tok.string)
    flags = tidy_cuts(unit.text, list(convert_flags(words, ctx, RULE, arch=False)), RULE)
    flags = [_with_comma(unit.text, p) for p in flags]
    yield from flags
    for word in strings:
        yield from outside(flags, rename_edits(unit, ctx, RULE, word.start, word.end))


def _with_comma(text: str, p: Edit | Finding) -> Edit | Finding:
    """A removal that ends a list (``["-O3", "-arch=sm_90"]``) also takes the comma before it."""
    if not isinstance(p, Edit) or p.text or not text[p.end :].lstrip(" \t").startswith(("]", ")")):
        return p
    start = len(text[: p.start].rstrip(" \t"))
    return Edit(start - 1, p.end, "", RULE) if text[start - 1 : start] == "," else p


def _word(unit: BuildFile, tokens: list[tokenize.TokenInfo], i: int) -> Word | None:
    """A plain string literal as a flag word; removing it also removes the comma after it."""
    tok = tokens[i]
    m = _STRING.fullmatch(tok.string)
    if m is None:  # f-strings, bytes: not file names or flags we rewrite
        return None
    start = unit.lines.offset(tok.start[0], tok.start[1] + 1)
    end = unit.lines.offset(tok.end[0], tok.end[1] + 1)
    body = start + m.start("body")
    cut_end = end
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is not None and nxt.string == ",":
        after = tokens[i + 2] if i + 2 < len(tokens) else nxt
        cut_end = unit.lines.offset(after.start[0], after.start[1] + 1)
        if after.start[0] != nxt.start[0]:  # the next item is on its own line: keep its indent
            cut_end = unit.lines.offset(nxt.end[0], nxt.end[1] + 1)
    return Word(m.group("body"), body, body + len(m.group("body")), start, cut_end, m["quote"])


def _library(word: Word, ctx: Context) -> Iterator[Edit | Finding]:
    rocm = rocm_library(word.text, ctx.options)
    if rocm is None:
        message = f"library {word.text!r} has no ROCm counterpart"
        yield NO_ROCM_LIBRARY.report(word.start, word.end, message)
    else:
        yield Edit(word.start, word.end, rocm.link, RULE)
