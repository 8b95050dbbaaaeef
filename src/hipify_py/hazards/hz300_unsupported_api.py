"""HZ300 unsupported-api

## What it detects
Every use of a CUDA API, type, enum value or macro that the mapping tables mark as having no
HIP equivalent (`status: unsupported`) or as removed from HIP (`status: removed`), from all
families: runtime, driver, device functions, cuBLAS, cuDNN, cuFFT, cuSPARSE, cuSOLVER,
cuRAND, CUB, NVRTC... Names with a dedicated rule (e.g. `__CUDA_ARCH__`, HZ501) are left to
it, and so are the labels of a `case` that the conversion leaves out of the AMD build (a
`return`/`break` group labelled only by enum values HIP lacks, as in an error-string switch),
and the zero-initialised `CUctxCreateParams` of a CUDA 13 `cuCtxCreate` call that the
conversion drops.  A name the file defines as a function of its own (moderngpu's `mulhi`) is
not CUDA's, and neither is an enumerator it declares, nor, in a run over a tree, a name another
file of the tree defines as a macro or a function (ggml's `vendors/hip.h` defines `__vsubss4`
for its HIP build).
cuDNN is reported too unless `--miopen` (or `--roc`) is given: ROCm ships no hipDNN, so without
that option the cuDNN names stay; with it they become MIOpen names where MIOpen has one.

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

import re
from collections.abc import Iterator

from ..analysis.apis import api_uses
from ..analysis.ctx_create import empty_ctx_params
from ..analysis.declared_types import enumerators
from ..analysis.functions import defined_names
from ..analysis.unsupported_cases import unsupported_case_groups
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..mappings import Entry, is_convertible, no_hip_library
from ..rewrite.enum_shims import DATA_SHIMMED
from ..rewrite.shims import SHIMMED
from ..rewrite.version_gates import VERSION_MACROS
from ..rules import Proposal, Report, hazard_rule

# an enum the port defines (rewrite/enum_shims.py): the file compiles, so a warning
_DATA_SHIM_NOTE = "; hipify-py defines it with CUDA's values (plain data, no HIP API takes it)"
# reported by their own rule (HZ501), given CUDA 12.0's values (version_gates), or shimmed
DEDICATED = frozenset({"__CUDA_ARCH__", *VERSION_MACROS, *SHIMMED})


@hazard_rule(
    "HZ300",
    "unsupported-api",
    Severity.ERROR,
    "CUDA API with no HIP equivalent (from the mapping tables)",
    cuda_premise=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    guarded = [(toks[g.first].start, toks[g.end].start) for g in unsupported_case_groups(unit, ctx)]
    guarded += [c.declaration for c in empty_ctx_params(unit) if c.declaration is not None]
    # moderngpu's own `mulhi`, a DOCA wrapper's own `CU_*` enumerators, ggml's `__vsubss4`
    # defined for HIP in another file of its tree: not CUDA's
    own = defined_names(unit) | enumerators(unit) | _pointers(unit) | ctx.project.defined
    for i, e in api_uses(unit):
        t = toks[i]
        if t.text in DEDICATED or t.text in own or not _a_use(unit, i, e, guarded):
            continue
        library = no_hip_library(e, ctx.options)
        if e.status not in ("unsupported", "removed") and not library:
            continue
        if is_convertible(e, ctx.options):  # e.g. --roc: rocSPARSE has what hipSPARSE lacks
            continue
        family = e.family or "CUDA"
        what = {
            "function": "API",
            "device_function": "function",
            "type": "type",
            "enum": "enum value",
            "macro": "macro",
        }.get(e.kind, e.kind)
        if e.kind == "device_function" and family != "device":
            what = "device function"
        if library:
            msg = f"`{t.text}` ({family} {what}) is not converted: {library}"
            if not e.roc:
                msg += " (MIOpen has no counterpart for this one)"
        elif e.status == "removed":
            msg = f"`{t.text}` ({family} {what}) was removed from HIP" + (
                f" in {e.hip_removed}" if e.hip_removed else ""
            )
        else:
            msg = f"`{t.text}` ({family} {what}) has no HIP equivalent"
        note = getattr(e, "note", None)
        if note:
            msg += f": {note}"
        shimmed = t.text in DATA_SHIMMED  # data a shim defines: a warning
        cause = _root_cause(family, e.status, library, msg if note else "")
        extra = {"api": t.text, "family": family, "status": e.status, "root_cause": cause}
        yield report(
            t.start,
            t.end,
            msg + (_DATA_SHIM_NOTE if shimmed else ""),
            severity=Severity.WARNING if shimmed else None,
            extra=extra,
        )


def _a_use(unit: Unit, k: int, e: Entry, guarded: list[tuple[int, int]]) -> bool:
    """The name at token ``k`` is used outside the ``guarded`` ranges and is no variable of the
    file's, and a device function is called there (`float2int(x)`, `f<T>(x)`) or its address
    taken: a bare name is something else of that name (oneflow's gtest case
    `TEST(ConvertSat, float2int)`, round 32).  Other kinds are used wherever named."""
    toks = unit.tokens
    if any(a <= toks[k].start < b for a, b in guarded) or _declared_variable(unit, toks[k].text):
        return False
    if e.kind != "device_function":
        return True
    called = k + 1 < len(toks) and toks[k + 1].text in ("(", "<")
    return called or (k > 0 and toks[k - 1].text == "&")


def _root_cause(family: str, status: str, library: str | None, noted: str) -> str:
    """What the names of one file share (``root_causes`` folds them into one finding): one
    library the target lacks (one action for all its names), a family's names HIP lacks (the
    SIMD intrinsics, cusolverMg), or, for a name with a note of its own, that message."""
    if library:
        return f"{family} library: {library}"
    return noted or f"{family} {status}"


# `extern tcuInit *cuInit;`, or `tcuInit *cuInit;` at the start of a line (file scope)
_FILE_POINTER = re.compile(r"^(?:[ \t]*extern[ \t]+)?\w+[ \t]*\*[ \t]*(\w+)[ \t]*;", re.M)


def _pointers(unit: Unit) -> set[str]:
    """Names the file declares as pointers at file scope: the CUDA samples' dynlink files load
    each driver function into a pointer of its name (`tcuFuncSetSharedMemConfig
    *cuFuncSetSharedMemConfig;`), the file's variable, no use of the API (round 21; HZ321
    reports the copy).  This file's only: the tree of a sample collection holds programs that
    call the API itself."""
    return set(_FILE_POINTER.findall(unit.text))


# words before a name that make `WORD NAME;` no variable declaration
_NOT_A_TYPE = frozenset(
    {"return", "case", "goto", "struct", "class", "union", "enum", "typename", "using"}
    | {"namespace", "new", "delete", "throw", "else", "do", "sizeof", "typedef", "define"}
)


def _declared_variable(unit: Unit, name: str) -> bool:
    """The file declares ``name`` as a variable, parameter or member (`cusolverDnParams_t
    cusolverDnParams,`): the project's name, though CUDA has a type of the same name
    (optimize-cuda-memory-usage's tiled Cholesky, round 43: 2 false HZ300).  Only the
    name's own occurrences are read."""
    toks = unit.tokens
    return any(
        0 < k < len(toks) - 1
        and toks[k - 1].kind is Kind.IDENT
        and toks[k - 1].text not in _NOT_A_TYPE
        and toks[k + 1].text in (",", ";", "=", ")", "[")
        and not toks[k].in_directive
        for k in unit.identifier_positions.get(name, ())
    )
