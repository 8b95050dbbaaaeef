"""HZ320 texture-fetch-no-images

## What it detects
A texture or surface read or write in device code (`tex1Dfetch`, `tex2D`, `tex3D`,
`tex2DLayered`, `texCubemap`, their `Lod`/`Grad`/`gather` forms, `surf2Dwrite`,
`surf3Dread`, ...) when an AMD target the build compiles for (`--offload-arch`, default
gfx942) has no image hardware: gfx940, gfx941 and gfx942 (MI300).

## Why it breaks on AMD
HIP's texture and surface functions compile to image instructions, which the MI300 family
does not have. Clang defines `__HIP_NO_IMAGE_SUPPORT` for these targets and the ROCm headers
mark every such function unavailable in device code, so the kernel does not compile
(`'tex2D<float, nullptr>' is unavailable: The image/texture API not supported on the device`).
The host side (`hipCreateTextureObject`, arrays) still compiles, and the same source builds
for gfx90a or gfx950.

A function of the file's own that happens to carry such a name (a plain-memory `tex2D` helper
that emulates addressing modes) is not one: neither its definition nor its calls are reported.

## Example
```cuda
__global__ void k(cudaTextureObject_t t, float* o) {
  o[threadIdx.x] = tex2D<float>(t, threadIdx.x + 0.5f, 0.5f);   // HZ320 on gfx942
}
```

## How to fix
Pass the data as a plain device pointer and read it from global memory; do in code what the
texture unit did: the address mode (clamp or wrap the index), linear filtering
(`lerp` of the neighbouring elements) and normalised coordinates. Surface writes become plain
stores. Keep the texture path under `#if !__HIP_NO_IMAGE_SUPPORT` where other targets need it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import defined_names
from ..analysis.tokens import occurrences
from ..context import Context
from ..findings import Severity
from ..frontend.unit import Unit
from ..rules import INSTANTIATED, Proposal, Report, hazard_rule

# AMD targets without image instructions (clang defines __HIP_NO_IMAGE_SUPPORT for them)
NO_IMAGES = frozenset({"gfx940", "gfx941", "gfx942"})
_SHAPES = ("1D", "2D", "3D", "1DLayered", "2DLayered", "Cubemap", "CubemapLayered")
_FETCH = frozenset(
    {"tex1Dfetch", "tex2Dgather"}
    | {f"tex{s}{form}" for s in _SHAPES for form in ("", "Lod", "Grad")}
    | {f"surf{s}{op}" for s in _SHAPES for op in ("read", "write")}
)


@hazard_rule(
    "HZ320",
    "texture-fetch-no-images",
    Severity.ERROR,
    "texture/surface read or write on a target without image hardware (gfx940-gfx942)",
    bites=INSTANTIATED,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    targets = sorted(NO_IMAGES.intersection(a.split(":")[0] for a in ctx.options.offload_arch))
    if not targets or not _FETCH & unit.identifiers:
        return
    toks = unit.tokens
    own = defined_names(unit) & _FETCH  # the file's own function, no texture
    for i in occurrences(unit, _FETCH - own):
        t = toks[i]
        called = i + 1 < len(toks) and toks[i + 1].text in ("(", "<")
        member = i > 0 and toks[i - 1].text in (".", "->")
        if called and not member:
            yield report(
                t.start,
                t.end,
                f"`{t.text}` needs image instructions, which {', '.join(targets)} lacks "
                "(__HIP_NO_IMAGE_SUPPORT): read the data from global memory instead",
                extra={"root_cause": "no image instructions"},  # one redesign per file
            )
