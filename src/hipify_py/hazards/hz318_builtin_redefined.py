"""HZ318 builtin-redefined

## What it detects
A user-defined `__device__` function that has the name and floating-point signature of an
atomic HIP already provides: `atomicAdd(double*, double)` (the classic pre-Pascal helper),
`atomicMin(float*, float)`, `atomicMax(float*, float)`, `atomicSub`, `atomicExch` on
`float`/`double`; and one on `unsigned long` (`std::uint64_t`, `size_t` on Linux): `atomicCAS`,
`atomicAdd`, `atomicSub`, `atomicExch`, `atomicMin`, `atomicMax`, `atomicAnd`, `atomicOr`,
`atomicXor`, which CUDA has for `unsigned long long` only (CUDASW4's forwarding helpers,
compile round 31). And a variable named `warpSize` defined at global scope
(chongchen1999/cuda-kernels' `inline constexpr int warpSize = 32;`, compile round 45), which
HIP's headers declare there too.

## Why it breaks on AMD
HIP's headers define these overloads themselves. A second definition with the same signature
is a redefinition error in HIP-Clang ("redefinition of 'atomicMin'"), or, when the signatures
differ only slightly, makes calls ambiguous. CUDA compiles the helper because CUDA has no such
overload (or hides its own behind `__CUDA_ARCH__`, which HIP does not define).

## Example
```cuda
__device__ float atomicMin(float* addr, float v) { /* CAS loop */ }   // HZ318
```

Not reported: a definition inside a named namespace (HugeCTR's `namespace diagnose {
__device__ float atomicMin(float*, float) ... }`, round 22), which declares another function
that calls inside the namespace find first; nor one in a source file's anonymous namespace
that only code of that namespace calls (CV-CUDA's `OpFindHomography.cu`, round 29): a call
outside it sees both, and is ambiguous, so that one is still reported.  Nor
a specialization of the file's own template (cuDSS samples' `template <typename T> T
atomicAdd(T*, T)` with `template <> double atomicAdd(double*, double)`, round 23): a template
coexists with HIP's plain overloads, and calls without template arguments pick HIP's.  Nor one
whose pointer is to `const` (TCLB's `atomicAdd(const double*, const double&)`, round 36):
another overload, which calls with a plain pointer do not prefer to HIP's.

## How to fix
Guard the helper so that HIP does not see it (`#if !defined(__HIP_PLATFORM_AMD__)`), or give it
a name of its own (`atomicMinFloat`) and call that.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import class_bodies, function_at, functions
from ..analysis.namespaces import anonymous_namespace_bodies, qualified_namespace
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_ATOMICS = frozenset({"atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicExch"})
_FLOATING = frozenset({"float", "double"})
# ROCm 7.2.4's amd_hip_atomic.h overloads these for `unsigned long` as well
_UNSIGNED_LONG_ATOMICS = _ATOMICS | {"atomicCAS", "atomicAnd", "atomicOr", "atomicXor"}
_UNSIGNED_LONG = frozenset({"uint64_t", "size_t"})  # `unsigned long` on LP64 Linux


@hazard_rule(
    "HZ318",
    "builtin-redefined",
    Severity.ERROR,
    "user-defined device atomic or global `warpSize` that HIP already defines (redefinition)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    yield from _global_warp_size(unit, report)
    if not unit.identifiers & _UNSIGNED_LONG_ATOMICS:
        return
    toks = unit.tokens
    for func in functions(unit):
        if func.name not in _UNSIGNED_LONG_ATOMICS or not func.is_device:
            continue
        if qualified_namespace(unit, func.name_index):
            continue  # HugeCTR's `diagnose::atomicMin`: its namespace's own, found first there
        if unit.is_source and _anonymous_only(unit, func.name, func.name_index):
            continue
        if _templated(toks, func.name_index):
            continue
        lo, hi = func.params
        first = _redefined_type(func.name, toks[lo + 1 : hi])
        if first is None:
            continue
        name = toks[func.name_index]
        yield report(
            name.start,
            name.end,
            f"`{func.name}({first}*, {first})` is already defined by HIP: this definition is a "
            f"redefinition error on HIP-Clang; guard it for CUDA only or rename it",
        )


def _global_warp_size(unit: Unit, report: Report) -> Iterator[Proposal]:
    """A definition of a variable `warpSize` outside any function, class or named namespace:
    ROCm 7.2.4's amd_warp_functions.h defines a global `warpSize` object ("redefinition of
    'warpSize' with a different type")."""
    toks = unit.tokens
    for k in unit.identifier_positions.get("warpSize", ()):
        if toks[k].in_directive or not 0 < k < len(toks) - 1:
            continue
        before = toks[k - 1]
        if (
            before.kind is not Kind.IDENT
            or before.text == "return"
            or toks[k + 1].text not in ("=", "{")
        ):
            continue
        if not _at_global_scope(unit, k):
            continue
        yield report(
            toks[k].start,
            toks[k].end,
            "`warpSize` is already defined by HIP at global scope (a `__device__` object of "
            "ROCm 7): this definition is a redefinition error on HIP-Clang; rename it or put "
            "it in a namespace of the project's",
        )


def _at_global_scope(unit: Unit, k: int) -> bool:
    """Token ``k`` lies outside every function, class body and named namespace (an anonymous
    namespace is global scope for a redefinition: its names clash with HIP's)."""
    return (
        function_at(unit, k) is None
        and not qualified_namespace(unit, k)
        and not any(open_ < k < close for open_, close in class_bodies(unit))
    )


def _redefined_type(name: str, params: Sequence[Token]) -> str | None:
    """The type the first parameter points to where HIP has ``name`` for it already: `float`
    or `double` for the arithmetic atomics, `unsigned long` (spelled `std::uint64_t`) for all."""
    texts = [t.text for t in params]
    first = params[: texts.index(",")] if "," in texts else params
    stars = [i for i, t in enumerate(first) if t.text == "*"]
    if not stars or any(t.text == "const" for t in first[: stars[0]]):
        return None  # no pointer, or one to const: another overload, as legal as its calls
    words = [t.text for t in first if t.kind is Kind.IDENT]
    floating = next((w for w in words if w in _FLOATING), None)
    if floating is not None:
        return floating if name in _ATOMICS else None
    spelled = next((w for w in words if w in _UNSIGNED_LONG), None)
    k = words.index("long") if "long" in words else -1
    if (
        spelled is None
        and k > 0
        and words[k - 1] == "unsigned"
        and words[k + 1 : k + 2] != ["long"]
    ):
        spelled = "unsigned long"
    return spelled


def _anonymous_only(unit: Unit, name: str, k: int) -> bool:
    """The function named at token ``k`` and every mention of ``name`` in the file lie in
    anonymous namespaces: unqualified lookup there finds it before HIP's global overload."""
    bodies = anonymous_namespace_bodies(unit)
    mentions = unit.identifier_positions.get(name, ())
    return bool(bodies) and all(any(a < j < b for a, b in bodies) for j in [k, *mentions])


def _templated(toks: Sequence[Token], k: int) -> bool:
    """The function named at token ``k`` is a template or a specialization of one: its
    declaration specifiers follow a `template <...>`."""
    j = k - 1
    while j > 0 and (toks[j].kind is Kind.IDENT or toks[j].text in ("*", "&", "::")):
        j -= 1
    if toks[j].text != ">":
        return False
    depth = 0
    for i in range(j, max(j - 64, 0) - 1, -1):
        depth += (toks[i].text == ">") - (toks[i].text == "<")
        if depth == 0:
            return i > 0 and toks[i - 1].text == "template"
    return False
