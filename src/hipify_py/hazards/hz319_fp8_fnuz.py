"""HZ319 fp8-e4m3-fnuz

## What it detects
In code that uses the e4m3 FP8 type (`__nv_fp8_e4m3`, its x2/x4 vectors, `__NV_E4M3`
conversions, or the HIP names they become):
- the literal `448` (`448.f`, `448.0`), the largest finite value of OCP e4m3, which such code
  uses to scale data into the FP8 range (`scale = amax / 448.f`); not where it defines a
  constant no code reads, nor where it only clamps (`fminf(x, 448.f)`, `if (x > 448.f) x =
  448.f;`) in a function that converts with saturation (CUDA's and HIP's default): the
  conversion clamps to 240 on gfx942 whatever the clamp before it, so the clamp changes no
  byte (mistral.rs's quantisers, round 33; the scale line, if any, is the fix point);
- a function of its own that encodes or decodes OCP FP8 in software (`fp8e4m3fn_from_fp32_value`,
  `e5m2_to_float`: a name that says e4m3/e5m2, not fnuz, and a conversion) in a file that also
  converts with the FP8 intrinsics or types: the two disagree on MI300X, where the intrinsics
  give FNUZ bytes.

Not a pointer cast to an FP8 type (`reinterpret_cast<const __nv_fp8_e4m3*>(bytes)`): bytes
encoded as OCP elsewhere (a file, a checkpoint) would decode wrongly, but whether they are can
rarely be told from the code, and held-out readers judged 0 of 13 such findings of rounds 7-23
true (the buffers were the program's own, filled by its FP8 kernels); they are no longer
reported (round 28).

## Why it breaks on AMD
hipify maps `__nv_fp8_e4m3` to `__hip_fp8_e4m3_fnuz`, and MI300X (gfx942) computes in the
*FNUZ* variant only (ROCm 7.2.4's `amd_hip_fp8.h` sets `HIP_FP8_TYPE_OCP 0` for gfx942 device
code). FNUZ e4m3 has exponent bias 8 instead of 7, no negative zero and one NaN (0x80): its
largest finite value is **240**, not 448, and the same byte means half the OCP value
(0x40 is 2.0 in OCP e4m3 and 1.0 in FNUZ; checked with the 7.2.4 headers). Data scaled to 448
saturates at 240, and OCP-encoded bytes (PyTorch's `float8_e4m3fn`, checkpoints, files) read
as FNUZ are off by a factor of two. e5m2 keeps its largest value (57344) in FNUZ; its bytes
differ as well (bias 16 instead of 15).

## Example
```cuda
float scale = amax / 448.f;                                    // HZ319
```

## How to fix
A software encoder kept as a reference must follow the format the target computes in: FNUZ on
gfx942 (bias 8 for e4m3, 16 for e5m2, NaN 0x80, no negative zero). Take the range from the
type instead of a literal (240 for `__hip_fp8_e4m3_fnuz` on gfx942,
e.g. a per-platform `FP8_E4M3_MAX`), and convert OCP-encoded inputs to FNUZ once where they
enter (or keep them in OCP and decode in software): on gfx950 (MI355X) HIP uses OCP e4m3,
so branch on the target, not on HIP.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from ..analysis.fp8_clamps import clamp_bound
from ..analysis.functions import function_at, functions
from ..analysis.tokens import one_per_line
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

# names that say the file computes in e4m3 FP8 (CUDA's, and what hipify makes of them)
_E4M3 = re.compile(
    r"^(?:__nv_fp8(?:x[24])?_e4m3|__NV_E4M3|__hip_fp8(?:x[24])?_e4m3_fnuz|"
    r"__HIP_E4M3_FNUZ|__nv_fp8_e4m3_t)$"
)
_OCP_E4M3_MAX = 448.0
# what converts with the hardware's format: the conversion intrinsics, the types, the formats
_FP8_USE = re.compile(
    r"^(?:__nv_cvt_\w*fp8\w*|__hip_cvt_\w*fp8\w*|__NV_E[45]M[23]|__HIP_E[45]M[23]_FNUZ)$"
)
# a function of the file named after an OCP FP8 format: it encodes or decodes bytes itself
_SOFTWARE_CODEC = re.compile(r"(?i)(?:fp8|f8).*e[45]m[23]|e[45]m[23].*(?:fp8|f8|float|fp32|half)")
# ... whose name says it converts (`fp8e4m3fn_from_fp32_value`, `e5m2_to_float`, `half2fp8_e4m3`):
# LeetCUDA's `warp_reduce_sum_fp8_e4m3_f16` sums with the intrinsics (round 15, a false HZ319)
_CONVERTS = re.compile(
    r"(?i)(?:^|_)(?:to|from|encode|decode|cvt|convert|cast|pack|unpack)(?:_|$)"
    r"|[a-z0-9]2(?:fp8|f8|e[45]m|float|half|bf16|fp32|fp16)"
)


def _uses_e4m3(unit: Unit) -> bool:
    return any(_E4M3.match(name) for name in unit.identifiers)


def _number(text: str) -> float | None:
    try:
        return float(text.rstrip("fFlL"))
    except ValueError:
        return None


@hazard_rule(
    "HZ319",
    "fp8-e4m3-fnuz",
    Severity.WARNING,
    "e4m3 FP8 range or bytes assume the OCP format; MI300X uses FNUZ (max 240, other bias)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    yield from _software_codecs(unit, report)
    if _uses_e4m3(unit):
        # one per line: ThunderKittens' `fill(..., -448.0f, 448.0f)` is one range (round 22)
        yield from one_per_line(_e4m3_findings(unit, ctx, report), unit)


def _e4m3_findings(unit: Unit, ctx: Context, report: Report) -> Iterator[Finding]:
    """The OCP e4m3 maxima near FP8 code."""
    toks = unit.tokens
    near_fp8 = _near_fp8(unit)
    for k, t in enumerate(toks):
        if (
            t.kind is Kind.NUMBER
            and _number(t.text) == _OCP_E4M3_MAX
            and near_fp8(k)
            and not _unused_constant(unit, ctx, k)
            and not clamp_bound(unit, k)
        ):
            yield report(
                t.start,
                t.end,
                f"`{t.text}` is the largest OCP e4m3 value; `__nv_fp8_e4m3` becomes "
                "`__hip_fp8_e4m3_fnuz` on MI300X (gfx942), whose largest value is 240: data "
                "scaled to 448 saturates (take the maximum per platform)",
            )


def _unused_constant(unit: Unit, ctx: Context, k: int) -> bool:
    """The 448 at token ``k`` defines a name (`constexpr float FP8_E4M3_MAX = 448.0f;`,
    `#define FP8_MAX 448`) that no code reads: a source file's that it never names again, a
    header's that no file of the tree names (``ProjectIndex.unused_names``; omniserve's and
    flashinfer's copies of TensorRT-LLM's `cudaFp8Utils.h`, rounds 12 and 20)."""
    toks = unit.tokens
    j = k - 1
    if j > 0 and toks[j].text in ("=", "{"):
        j -= 1
    if j < 0 or toks[j].kind is not Kind.IDENT:
        return False
    if not unit.is_source:
        return toks[j].text in ctx.project.unused_names
    return unit.identifier_positions.get(toks[j].text, []) == [j]


def _names_fp8(unit: Unit, lo: int, hi: int) -> bool:
    toks = unit.tokens
    return any(
        toks[j].kind is Kind.IDENT and (_E4M3.match(toks[j].text) or _FP8_USE.match(toks[j].text))
        for j in range(lo, hi)
    )


def _near_fp8(unit: Unit) -> Callable[[int], bool]:
    """Whether token ``k`` is outside any function (a file constant, a macro), or in one that
    names the e4m3 type or an FP8 conversion, or calls or launches a function of the file
    that does: the 448 of `scale = amax / 448.f` before a quantising kernel.  A 448 in a
    function of a file that uses FP8 elsewhere but never here (fastllm's bf16 paths that
    only mimic the rounding, round 10) scales nothing into FP8."""
    toks = unit.tokens

    @functools.cache
    def direct() -> frozenset[str]:  # read at the first 448 inside a function only
        return frozenset(f.name for f in functions(unit) if _names_fp8(unit, f.params[0], f.close))

    def near(k: int) -> bool:
        func = function_at(unit, k)
        if func is None or toks[k].in_directive:
            return True
        if func.name in direct():
            return True
        return any(
            toks[j].kind is Kind.IDENT and toks[j].text in direct()
            for j in range(func.open + 1, func.close)
        )

    return near


def _software_codecs(unit: Unit, report: Report) -> Iterator[Proposal]:
    """Functions that encode or decode OCP FP8 by hand in a file that converts with the
    intrinsics (a reference to check them against, a fallback): the intrinsics give FNUZ bytes
    on gfx942, so the two no longer agree.  The codecs of one file are one finding (a vendored
    copy of an FP8 header defines dozens; following the target's format is one decision).  A
    codec that converts with the FP8 type or an intrinsic itself becomes FNUZ with the rest
    (deepseek-v4-flash's `kv_e4m3_to_float` through `__nv_cvt_fp8_to_halfraw`, round 42)."""
    if not any(_FP8_USE.match(name) for name in unit.identifiers):
        return
    toks = unit.tokens
    for func in functions(unit):
        name = func.name
        if "fnuz" in name.lower() or not (_SOFTWARE_CODEC.search(name) and _CONVERTS.search(name)):
            continue
        if _names_fp8(unit, func.open + 1, func.close):
            continue  # converts with the e4m3 type or an intrinsic itself: FNUZ with the rest
        t = toks[func.name_index]
        yield report(
            t.start,
            t.end,
            f"`{name}` encodes or decodes OCP FP8 by hand, next to FP8 conversions that give "
            "FNUZ bytes on MI300X (gfx942: e4m3 bias 8 and max 240, e5m2 bias 16, NaN 0x80): "
            "the two disagree there; follow the target's format",
            extra={"root_cause": "software FP8 codec"},  # one finding per file, one fix
        )
