"""HZ311 texture-reference

## What it detects
The texture *reference* API: `texture<T, dim, mode>` declarations, `cudaBindTexture`,
`cudaBindTexture2D`, `cudaBindTextureToArray`, `cudaBindTextureToMipmappedArray`,
`cudaUnbindTexture`, `cudaGetTextureReference`, `cudaGetTextureAlignmentOffset` and their
`hip*` forms.

## Why it breaks on AMD
CUDA deprecated texture references in 11.0 and removed them in 12.0. HIP still declares
`hipBindTexture` (deprecated since 3.8) and `hipGetTextureReference` (deprecated since 5.3):
they may disappear in a future ROCm, and they are not available on every AMD target.

## Example
```cuda
texture<float, 1, cudaReadModeElementType> tex;        // HZ311
cudaBindTexture(0, tex, d_data, n * sizeof(float));     // HZ311
```

## How to fix
Use texture objects: create a `hipResourceDesc` + `hipTextureDesc`, call
`hipCreateTextureObject`, pass the `hipTextureObject_t` to the kernel, and read it with
`tex1Dfetch<float>(obj, i)`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_APIS = frozenset(
    pre + name
    for pre in ("cuda", "hip")
    for name in (
        "BindTexture",
        "BindTexture2D",
        "BindTextureToArray",
        "BindTextureToMipmappedArray",
        "UnbindTexture",
        "GetTextureReference",
        "GetTextureAlignmentOffset",
    )
)


@hazard_rule(
    "HZ311",
    "texture-reference",
    Severity.ERROR,
    "texture reference API (removed in CUDA 12, deprecated in HIP)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if "texture" not in ids and not (_APIS & ids):
        return
    toks = unit.tokens
    for i, t in enumerate(toks):
        if t.kind is not Kind.IDENT:
            continue
        if (
            t.text == "texture"
            and i + 1 < len(toks)
            and toks[i + 1].text == "<"
            and not (i > 0 and toks[i - 1].text in (".", "->", "::"))
        ):
            yield report(
                t.start,
                t.end,
                "texture reference `texture<...>`: removed in CUDA 12 and deprecated "
                "in HIP; use a texture object (hipTextureObject_t)",
                extra={"root_cause": "texture references"},
            )
        elif t.text in _APIS and not (i > 0 and toks[i - 1].text in (".", "->")):
            yield report(
                t.start,
                t.end,
                f"texture reference API `{t.text}`: removed in CUDA 12 and "
                f"deprecated in HIP; use hipCreateTextureObject",
                extra={"root_cause": "texture reference API"},
            )
