"""``#if __HIPCC__`` becomes ``#if defined(__HIPCC__)``: HIP defines these macros empty.

hip_common.h of ROCm 7.2.4 defines ``__HIPCC__`` (on NVIDIA), ``__HIP_PLATFORM_AMD__`` and
``__HIP_PLATFORM_NVIDIA__`` with no value, so a bare ``#elif __HIPCC__`` is "#elif with no
expression" wherever the header defined it.  CUDA code never evaluated such a line when an
earlier ``#if CUDA_VERSION >= 12080`` branch was taken; once the version gate is folded to
CUDA 12.0 (``version_gates``) it is.  The macros are only ever defined or not (an explicit
``-D`` gives them 1), so ``defined(...)`` keeps the meaning and is valid on every platform.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "platform-tests"
EMPTY_DEFINED = frozenset({"__HIPCC__", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_NVIDIA__"})


@rewrite_pass("platform-tests", order=9)
def platform_tests(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for name in EMPTY_DEFINED & unit.identifiers:
        for i in unit.identifier_positions[name]:
            if not toks[i].in_directive or unit.directive_word(i) not in ("if", "elif"):
                continue
            prev = toks[i - 1].text
            if prev == "defined" or (prev == "(" and toks[i - 2].text == "defined"):
                continue
            yield Edit(toks[i].start, toks[i].end, f"defined({name})", RULE)
