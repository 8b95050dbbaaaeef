"""HZ316 device-new-delete-virtual

## What it detects
C++ features in device code that the HIP FAQ lists as unsupported: `new` and `delete` inside
a `__global__` or `__device__` function, `virtual` member functions declared `__device__`,
`try`/`catch` in device code, and `__prof_trigger`.

## Why it breaks on AMD
The HIP FAQ of the ROCm 6 era lists device-side `new`/`delete`, virtual functions,
`try`/`catch` and `__prof_trigger` as unsupported kernel-language features. Newer HIP-Clang
releases accept some of them (device `malloc`/`free`, virtual calls on objects built on the
device), but the device heap is small and slow on MI300X and objects with a vtable built on the
host cannot be used on the device. Treat each use as a point to verify on the target.

## Example
```cuda
__global__ void k() { float* p = new float[4]; /* ... */ delete[] p; }   // HZ316 (twice)
struct Shape { __device__ virtual float area() const; };                // HZ316
```

## How to fix
Allocate on the host (`hipMalloc`) or in `__shared__` memory and pass the buffer in; replace
virtual dispatch with templates or a `switch` on a tag; return error codes instead of
throwing. Suppress with `// hipify-py: ignore[HZ316]` once verified on the target.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, function_at, functions
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_DEVICE_ONLY = frozenset({"new", "delete", "try", "throw", "__prof_trigger"})


@hazard_rule(
    "HZ316",
    "device-new-delete-virtual",
    Severity.WARNING,
    "new/delete, virtual functions or try/catch in device code (unsupported per the HIP FAQ)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if not (ids & (_DEVICE_ONLY | {"virtual"})):
        return
    if ids & _DEVICE_ONLY and any(f.is_device for f in functions(unit)):
        yield from _device_only_constructs(unit, report)
    yield from _virtual_device_functions(unit, report)


def _device_only_constructs(unit: Unit, report: Report) -> Iterator[Proposal]:
    """new/delete, try/throw and __prof_trigger in a device-only function."""
    toks = unit.tokens
    for name in sorted(unit.identifiers & _DEVICE_ONLY):
        for i in unit.identifier_positions[name]:
            func = _device_function_using(unit, i)
            if func is None:
                continue
            t = toks[i]
            what = f"`{name}[]`" if toks[i + 1].text == "[" else f"`{name}`"
            yield report(
                t.start,
                t.end,
                f"{what} in device function `{func.name}`: listed as unsupported in HIP "
                f"device code; allocate on the host or in shared memory",
            )


def _device_function_using(unit: Unit, i: int) -> Func | None:
    """The device-only function in which token ``i`` is the unsupported construct; None for
    host code and for the forms that stay legal: ``operator new``, ``::new``, ``= delete``,
    and placement new (it constructs in memory the caller owns)."""
    toks = unit.tokens
    t = toks[i]
    if t.in_directive or t.kind is not Kind.IDENT:
        return None
    func = function_at(unit, i)
    if func is None or not func.is_device or func.is_host:
        return None
    if toks[i - 1].text in ("operator", "::") or (t.text == "delete" and toks[i - 1].text == "="):
        return None
    if t.text == "new" and toks[i + 1].text == "(":
        return None
    return func


def _virtual_device_functions(unit: Unit, report: Report) -> Iterator[Proposal]:
    """``virtual`` in a declaration that also says ``__device__``."""
    toks = unit.tokens
    for i in unit.identifier_positions.get("virtual", ()):
        if "__device__" in _declaration_words(toks, i):
            t = toks[i]
            yield report(
                t.start,
                t.end,
                "`virtual` __device__ function: virtual dispatch in HIP device code is listed "
                "as unsupported; objects with a vtable built on the host do not work on the GPU",
            )


def _declaration_words(toks: Sequence[Token], i: int) -> set[str]:
    """The words of the declaration around token ``i``: the identifiers before it and every
    token after it up to its ``;``, body or parameter list."""
    k, words = i + 1, set()
    while k < len(toks) and toks[k].text not in (";", "{", "("):
        words.add(toks[k].text)
        k += 1
    k2 = i - 1
    while k2 >= 0 and toks[k2].kind is Kind.IDENT:
        words.add(toks[k2].text)
        k2 -= 1
    return words
