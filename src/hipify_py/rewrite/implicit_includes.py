"""C headers that nvcc includes into CUDA code implicitly and HIP does not.

nvcc's implicit ``cuda_runtime.h`` brings ``<string.h>`` and ``<math.h>`` with it, so CUDA code
calls ``memset``/``strlen`` or the host ``isfinite``/``isnan`` without including them.  ROCm 7's
``hip_runtime.h`` declares neither (only device ``memset``/``memcpy``), and clang rejects the
host calls ("no matching function for call to 'memset'", found by compiling converted llm.c
kernels for gfx942).  Adding the header the code already relied on keeps its meaning, so it is
part of the conversion (the policy in the README): the ``headers`` pass inserts it next to the
HIP runtime header of files that are CUDA code.

The bf16 types come the same way: a PyTorch extension names `__nv_bfloat162` without including
`cuda_bf16.h`, which torch's `BFloat16.h` includes under nvcc; `hip_runtime.h` does not declare
`__hip_bfloat162` (flash-fft-conv's `conv1d/shared.h`: "unknown type name", issue 23 round 17).
Only the includes the HIP build compiles provide them: mscclpp's test verifier includes
`cuda_bf16.h` in the branch HIP skips and the legacy `hip_bfloat16.h` in its own (round 26).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit

# header -> unqualified calls that need it; headers that already provide them
IMPLICIT = {
    "string.h": (
        frozenset(
            {
                "memset",
                "memcpy",
                "memmove",
                "memcmp",
                "memchr",
                "strlen",
                "strcmp",
                "strncmp",
                "strcpy",
                "strncpy",
                "strcat",
                "strncat",
                "strchr",
                "strrchr",
                "strstr",
                "strdup",
                "strtok",
                "strerror",
            }
        ),
        frozenset({"string.h", "cstring"}),
    ),
    # the classification macros: <cmath> gives only std::isnan, the global ones need <math.h>;
    # so does the host's `modf(float, float*)` (HIP declares that overload for the device only:
    # zfp's shared.h, rw27)
    "math.h": (
        frozenset({"isfinite", "isnan", "isinf", "isnormal", "signbit", "fpclassify", "modf"}),
        frozenset({"math.h"}),
    ),
}
# header -> types whose any use needs it; headers that already provide them
IMPLICIT_TYPES = {
    "hip/hip_bf16.h": (
        frozenset({"__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162"}),
        frozenset({"cuda_bf16.h", "cuda_bf16.hpp", "hip/hip_bf16.h"}),
    ),
}


def implicit_headers(unit: Unit, included: set[str], hip_headers: bool) -> list[str]:
    """The headers of ``IMPLICIT`` this CUDA file calls into, and (``hip_headers``: not for a
    ``--portable`` source, which nvcc also compiles) of ``IMPLICIT_TYPES`` whose types it
    names, without including them."""
    out = [
        header
        for header, (names, providers) in IMPLICIT_TYPES.items()
        if hip_headers
        and not providers & included
        and any(
            not unit.tokens[i].in_directive
            for n in names & unit.identifiers
            for i in unit.identifier_positions[n]
        )
    ]
    toks = unit.tokens
    for header, (names, providers) in IMPLICIT.items():
        if providers & included or not names & unit.identifiers:
            continue
        for name in names & unit.identifiers:
            if any(_is_plain_call(toks, i) for i in unit.identifier_positions[name]):
                out.append(header)
                break
    return out


def _is_plain_call(toks: Sequence[Token], i: int) -> bool:
    """``memset(...)`` as a call: not a member, not qualified, not a declaration's name, and
    on a directive line only in a macro's body (MeJerry215's `#define MEMSET_BUF(name, bytes)
    memset(h_##name, 0, bytes); ...`, compile round 52)."""
    if i + 1 >= len(toks) or toks[i + 1].text != "(":
        return False
    if toks[i].in_directive and not _in_macro_body(toks, i):
        return False
    if not i:
        return True
    before = toks[i - 1]
    if before.text in (".", "->", "::"):
        return False
    return before.kind is not Kind.IDENT or before.text in ("return", "else", "do", "case")


def _in_macro_body(toks: Sequence[Token], i: int) -> bool:
    """Token ``i`` of a directive line lies in a `#define`'s body, past the macro's name."""
    j = i
    while j > 0 and toks[j].kind is not Kind.DIRECTIVE:
        j -= 1
    return toks[j].kind is Kind.DIRECTIVE and toks[j + 1].text == "define" and i > j + 2
