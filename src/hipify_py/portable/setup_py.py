"""setup.py in portable mode: one file for PyTorch's CUDA and its ROCm build.

A ROCm build of PyTorch builds a ``CUDAExtension`` with hipcc and hipifies its ``.cu`` sources
itself, so the extension needs no change but its flag and library lists: hipcc does not take
nvcc's flags (``--use_fast_math``).  Each list the setup.py conversion changes becomes
``([converted] if torch.version.hip else [original])`` (and ``import torch`` is added if the
file lacks it); nothing else changes.  ``CUDA_HOME`` is left as written: PyTorch sets it on
both builds, and ``ROCM_HOME`` would need its own import.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator

from ..buildfiles.unit import BUILD_EDITS, BuildFile
from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .build_guard import RULE, Span, fork_proposals, guarded, inside, newline

SWITCH = "torch.version.hip"
_IMPORTS_TORCH = re.compile(r"^import torch\b", re.M)
_FROM_TORCH = re.compile(r"^from torch\b", re.M)


@build_pass("portable-setuptools", "portable-setuptools", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(unit.text).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    edits, findings = fork_proposals(unit, ctx)
    yield from findings
    text = unit.text
    pairs = _brackets(unit, tokens)
    parens = sorted((s for s, opener in pairs if opener == "("), key=lambda s: s[1] - s[0])
    choices = [m.start() for m in re.finditer(rf" if {re.escape(SWITCH)} else ", text)]
    settled = [next(s for s in parens if s[0] < at < s[1]) for at in choices if inside(at, parens)]
    lists = sorted((span for span, opener in pairs if opener == "["), key=lambda s: s[1] - s[0])

    def span_of(e: Edit) -> Span | None:
        if inside(e.start, settled) or e.text == "ROCM_HOME":
            return None
        return next((s for s in lists if s[0] <= e.start and e.end <= s[1]), None)

    out = guarded(text, edits, span_of, lambda _s, new, old: f"({new} if {SWITCH} else {old})")
    yield from out
    if out and not _IMPORTS_TORCH.search(text):
        m = _FROM_TORCH.search(text)
        at = m.start() if m else 0
        yield Edit(at, at, f"import torch  # {SWITCH}: a ROCm build{newline(text)}", RULE)


def _brackets(unit: BuildFile, tokens: list[tokenize.TokenInfo]) -> list[tuple[Span, str]]:
    """(start, end) of every bracketed expression, with its opening bracket."""
    out: list[tuple[Span, str]] = []
    stack: list[tuple[int, str]] = []
    for tok in tokens:
        if tok.type != tokenize.OP:
            continue
        offset = unit.lines.offset(tok.start[0], tok.start[1] + 1)
        if tok.string in "([{":
            stack.append((offset, tok.string))
        elif tok.string in ")]}" and stack:
            start, opener = stack.pop()
            out.append(((start, offset + 1), opener))
    return out
