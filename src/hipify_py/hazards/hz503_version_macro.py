"""HZ503 cuda-version-gate

## What it detects
A preprocessor test of the CUDA toolkit version macros (`CUDA_VERSION`, `CUDART_VERSION`,
`__CUDACC_VER_MAJOR__`, `__CUDACC_VER_MINOR__`, `__CUDA_API_VER_*`) whose outcome on CUDA 12.0,
the release `convert` reads a port as, differs from its outcome on CUDA 13.0, the release the
project builds with today: `#if CUDA_VERSION >= 12080`, `#if __CUDACC_VER_MAJOR__ >= 13`.  There
HIP gets a branch the project's own build no longer takes.  Reported with the condition it
became.  Gates both releases answer alike (`#if CUDA_VERSION >= 9000`: the modern branch;
`#if CUDART_VERSION < 3000`: a fallback nobody takes) are converted without a finding, and so
are uses outside `#if` lines (a version printed in a log): the summary counts them.

## Why it breaks on AMD
hip-clang defines none of these, so a left-alone `#if CUDART_VERSION >= 11000` reads 0 and
silently takes the oldest branch. Renaming it to `HIP_VERSION` is worse: HIP numbers releases
as `major*10000000 + minor*100000 + patch` (about 70,200,000 for ROCm 7.2), so a comparison
with a CUDA-scale constant is always true. PyTorch's `TORCH_HIP_VERSION` (702) is on yet
another scale.

## Example
```cuda
#if defined(CUDA_VERSION) && CUDART_VERSION >= 11080        // CUDA
#if 1 /* defined(CUDA_VERSION) */ && 12000 /* CUDART_VERSION */ >= 11080   // HIP, HZ503
```

## What hipify-py does
It writes the value the macro has on CUDA 12.0 in its place, keeping the name in a comment, and
turns `defined(CUDA_VERSION)` / `#ifdef CUDA_VERSION` into true, as in the example. So the
converted code takes the branch a CUDA 12.0 build takes. That is the HIP-correct choice
for most gates: HIP 7 covers the CUDA 11 and 12.0 API (bf16 and fp8 types, memory pools,
graphs), while the branches for later releases use what HIP lacks or spells differently
(Hopper/Blackwell clusters, TMA, fp4, CUDA 13's changed signatures). A macro the file
`#define`s itself is left alone: the project provides its value.  The same condition written
several times in a file (a gate around each of six kernels) is one finding, listing the others.

## How to fix
Read the reported condition. If the branch needs a newer CUDA feature that HIP has, replace the
gate with a feature test or an explicit `#if defined(__HIP_PLATFORM_AMD__)` branch that compares
`HIP_VERSION_MAJOR`/`HIP_VERSION_MINOR`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Severity
from ..frontend.conditions import evaluate
from ..frontend.cuda_release import NEWEST_CUDA, macro_values
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rewrite.version_gates import REFERENCE_CUDA, gate_edits
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ503",
    "cuda-version-gate",
    Severity.WARNING,
    f"CUDA toolkit version macro: evaluated as on CUDA {REFERENCE_CUDA}",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    edits = gate_edits(unit)
    if not edits:
        return
    text = unit.text
    by_line: dict[int, list[Edit]] = {}
    for edit in edits:
        by_line.setdefault(unit.lines.position(edit.start)[0], []).append(edit)
    for line, line_edits in sorted(by_line.items()):
        first = line_edits[0]
        if not _differs_from_newest(unit, unit.token_covering(first.start)):
            continue
        start, end = unit.lines.line_span(line)
        original = text[start:end].rstrip("\r\n")
        result = original
        for edit in sorted(line_edits, key=lambda e: e.start, reverse=True):
            result = result[: edit.start - start] + edit.text + result[edit.end - start :]
        yield report(
            first.start,
            first.end,
            f"CUDA version macro evaluated as on CUDA {REFERENCE_CUDA}: "
            f"`{original.strip()}` becomes `{result.strip()}`, a branch CUDA {NEWEST_CUDA} "
            f"builds no longer take: check it suits HIP",
            # the same gate repeated is one decision: one finding, the others its lines
            extra={"condition": result.strip(), "root_cause": original.strip()},
        )


_REFERENCE = macro_values(REFERENCE_CUDA)
_NEWEST = macro_values(NEWEST_CUDA)


def _differs_from_newest(unit: Unit, i: int) -> bool:
    """Token ``i`` is on an ``#if``/``#elif``/``#ifdef`` line whose outcome differs between
    the reference and the newest CUDA (known on one and unknown on the other counts)."""
    toks = unit.tokens
    if not toks[i].in_directive:
        return False
    word = unit.directive_word(i)
    if word not in ("if", "elif"):
        return False  # #ifdef CUDA_VERSION: defined on every release
    at = i
    while at > 0 and toks[at].kind is not Kind.DIRECTIVE:
        at -= 1
    end = at + 2
    while end < len(toks) and toks[end].in_directive and toks[end].kind is not Kind.DIRECTIVE:
        end += 1
    body = toks[at + 2 : end]
    reference = evaluate(body, _REFERENCE)
    return reference != evaluate(body, _NEWEST)
