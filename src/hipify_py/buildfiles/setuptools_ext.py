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
# a setup.py that already builds for ROCm itself (branches on torch.version.hip, uses
# ROCM_HOME/HIP_HOME or IS_HIP_EXTENSION): its flags are per vendor already
_ROCM_AWARE = re.compile(r"torch\.version\.hip|\bIS_HIP_EXTENSION\b|\bROCM_HOME\b|\bHIP_HOME\b")
_STRING = re.compile(r"(?P<prefix>[rRuU]?)(?P<quote>'''|\"\"\"|'|\")(?P<body>.*)(?P=quote)", re.S)


@build_pass("setuptools", "setuptools", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(unit.text).readline))
    except (tokenize.TokenError, SyntaxError):
        return  # not Python we can read: left as it is (the summary shows it unchanged)
    words = [_word(unit, tokens, i) for i, t in enumerate(tokens) if t.type == tokenize.STRING]
    strings = [w for w in words if w is not None]
    flags: list[Edit | Finding] = []
    # a ROCm-aware setup.py keeps its CUDA branch CUDA: only its source names follow the renames
    if _ROCM_AWARE.search(unit.text) is None:
        yield from _home_and_libraries(unit, ctx, tokens)
        flags = tidy_cuts(unit.text, list(convert_flags(strings, ctx, RULE, arch=False)), RULE)
        lone = _lone_arguments(unit, tokens)
        flags = [_statement_kept(unit.text, _with_comma(unit.text, p), lone) for p in flags]
        yield from flags
    for word in strings:
        yield from outside(flags, rename_edits(unit, ctx, RULE, word.start, word.end))


def _home_and_libraries(
    unit: BuildFile, ctx: Context, tokens: list[tokenize.TokenInfo]
) -> Iterator[Edit | Finding]:
    """``CUDA_HOME`` -> ``ROCM_HOME``, and the CUDA libraries a ``libraries=[...]`` argument
    lists -> their ROCm libraries, in the order they appear."""
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
        elif tok.type == tokenize.STRING and in_libraries:
            word = _word(unit, tokens, i)
            if word is not None and is_cuda_library(word.text):
                yield from _library(word, ctx)
        prev.append(tok.string)


def _with_comma(text: str, p: Edit | Finding) -> Edit | Finding:
    """A removal that ends a list (``["-O3", "-arch=sm_90"]``) also takes the comma before it."""
    if not isinstance(p, Edit) or p.text or not text[p.end :].lstrip(" \t").startswith(("]", ")")):
        return p
    start = len(text[: p.start].rstrip(" \t"))
    return Edit(start - 1, p.end, "", RULE) if text[start - 1 : start] == "," else p


def _lone_arguments(unit: BuildFile, tokens: list[tokenize.TokenInfo]) -> dict[int, range]:
    """String start offset -> the span of its statement, for each string that is the only
    argument of a call making up a whole line (``cc_flag.append("-gencode")``)."""
    out: dict[int, range] = {}
    for i in range(2, len(tokens) - 2):
        tok = tokens[i]
        if tok.type != tokenize.STRING or tokens[i - 1].string != "(":
            continue
        if tokens[i + 1].string != ")" or tokens[i + 2].type != tokenize.NEWLINE:
            continue
        row = tok.start[0]
        line = unit.text[unit.lines.offset(row, 1) :].split("\n", 1)[0]
        if re.fullmatch(r"[ \t]*[\w.]+\(" + re.escape(tok.string) + r"\)[ \t]*", line):
            first = unit.lines.offset(row, 1) + len(line) - len(line.lstrip())
            out[unit.lines.offset(row, tok.start[1] + 1)] = range(first, first + len(line.strip()))
    return out


def _statement_kept(text: str, p: Edit | Finding, lone: dict[int, range]) -> Edit | Finding:
    """Keep a call whose only argument is a flag valid Python: a removed flag would leave
    ``append()``, which raises, so the statement becomes ``pass`` (valid in any block) with the
    old call as a comment; a flag that became two (``--use_fast_math``) turns ``append("a")``
    into ``extend(["a", "b"])``."""
    if not isinstance(p, Edit):
        return p
    spans = [r for _, r in sorted(lone.items()) if p.start < r.stop and r.start < p.end]
    if not spans:
        return p
    if p.text:  # one flag, now several words
        span = spans[0]
        statement = text[span.start : span.stop]
        call = re.fullmatch(r"([\w.]+)\.append\((.*)\)", statement, re.S)
        if len(spans) > 1 or call is None or '", "' not in p.text:
            return p
        inner = text[span.start + len(call[1]) + 8 : p.start] + p.text + text[p.end : span.stop - 1]
        return Edit(span.start, span.stop, f"{call[1]}.extend([{inner}])", RULE)
    out, at = [], spans[0].start
    for span in spans:  # each removed call's statement, and the text between them as it was
        out += [text[at : span.start], f"pass  # {text[span.start : span.stop]}: nvcc only"]
        at = span.stop
    return Edit(spans[0].start, spans[-1].stop, "".join(out), RULE)


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
