"""HZ300 unsupported-api

## What it detects
Every use of a CUDA API, type, enum value or macro that the mapping tables mark as having no
HIP equivalent (`status: unsupported`) or as removed from HIP (`status: removed`), from all
families: runtime, driver, device functions, cuBLAS, cuDNN, cuFFT, cuSPARSE, cuSOLVER,
cuRAND, CUB, NVRTC... Names with a dedicated rule (e.g. `__CUDA_ARCH__`, HZ501) are left to it.

## Why it breaks on AMD
hipify-py leaves these names unchanged, so the converted file does not compile for ROCm, or
worse, a wrapper header defines them and the behaviour differs.

## Example
```cuda
cudaOccupancyMaxActiveClusters(&n, kernel, &cfg);   // HZ300: runtime API with no HIP equivalent
```

## How to fix
Rewrite the code without the API (the mapping entry's note often names the alternative), guard
it out of the ROCm build, or add a user mapping rule if your project provides an equivalent.
`hipify-py explain HZ300` and the tables under `mappings/` list the family and section.
"""

from __future__ import annotations

from ..findings import Severity
from ..frontend.lexer import Kind
from ..mappings import is_convertible
from ..rules import hazard_pass, register_rule
from ._util import finding

register_rule("HZ300", "unsupported-api", Severity.ERROR,
              "CUDA API with no HIP equivalent (from the mapping tables)", __doc__)

DEDICATED = frozenset({"__CUDA_ARCH__"})  # reported by their own rule with a better message


def api_uses(unit):
    """(token, entry) for every identifier token that names a mapped CUDA API."""
    toks = unit.tokens
    get = unit.mappings.get
    names = {n for n in unit.identifiers if get(n) is not None}
    if not names:
        return
    defined = set()
    for i, t in enumerate(toks):
        if t.kind is Kind.DIRECTIVE and i + 2 < len(toks) and toks[i + 1].text == "define":
            defined.add(toks[i + 2].text)
    skip_line = False
    for i, t in enumerate(toks):
        if t.kind is Kind.DIRECTIVE:
            skip_line = i + 1 < len(toks) and toks[i + 1].text in ("include", "include_next",
                                                                    "pragma", "error",
                                                                    "warning", "line")
            continue
        if t.kind is not Kind.IDENT or t.text not in names or t.text in defined:
            continue
        if skip_line and t.in_directive:
            continue
        if i > 0 and toks[i - 1].text in (".", "->"):
            continue
        yield t, get(t.text)


@hazard_pass("HZ300")
def check(unit, ctx):
    for t, e in api_uses(unit):
        if e.status not in ("unsupported", "removed") or t.text in DEDICATED:
            continue
        if is_convertible(e, ctx.options):  # e.g. --roc: rocSPARSE has what hipSPARSE lacks
            continue
        family = e.family or "CUDA"
        what = {"function": "API", "device_function": "function", "type": "type",
                "enum": "enum value", "macro": "macro"}.get(e.kind, e.kind)
        if e.kind == "device_function" and family != "device":
            what = "device function"
        if e.status == "removed":
            msg = f"`{t.text}` ({family} {what}) was removed from HIP" + (
                f" in {e.hip_removed}" if e.hip_removed else "")
        else:
            msg = f"`{t.text}` ({family} {what}) has no HIP equivalent"
        note = getattr(e, "note", None)
        if note:
            msg += f": {note}"
        yield finding(unit, "HZ300", t.start, t.end, msg,
                      extra={"api": t.text, "family": family, "status": e.status})
