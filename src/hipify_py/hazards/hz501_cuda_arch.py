"""HZ501 cuda-arch-gate

## What it detects
`__CUDA_ARCH__` (and `__CUDA_ARCH_LIST__`, `__CUDA_ARCH_FEAT_*`) in preprocessor conditions or
code: capability gates such as `#if __CUDA_ARCH__ >= 800` and device-pass guards such as
`#ifdef __CUDA_ARCH__` / `#if defined(__CUDA_ARCH__)`. A condition that HIP, with
`__CUDA_ARCH__` undefined, evaluates as the device pass of a current GPU (sm_90, CUDA 12)
does is not reported: `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800` guards a fallback for
old GPUs that HIP skips, as gfx942 should, and `!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800`
keeps the modern path. Nor is an `#if` whose every branch, `#else` included, only defines the
same object-like macros as numbers (`#if __CUDA_ARCH__ >= 800` / `#define BLOCKS 2` / `#else` /
`#define BLOCKS 1`): HIP gets the `#else` value, a tuning choice, not a dropped code path.
Nor a gate with another branch when the branch HIP compiles is a real implementation, not a
trap (`assert(false)`, `#error`, an empty kernel): `#if __CUDA_ARCH__ >= 800` bf16 intrinsics
`#else` the same through float (ColossalAI, CTranslate2, cudpp: the fallbacks computed the
same).  A gate with
no other branch (the kernel body is simply gone on HIP) or a trap in HIP's branch is reported.
Nor are device-pass tests (`#ifdef __CUDA_ARCH__`, `defined(__CUDA_ARCH__)` with no comparison
on the line): `convert` makes them test `__HIP_DEVICE_COMPILE__` as well
(`rewrite/device_pass_guards.py`), which means the same, and lines that already do.

## Why it breaks on AMD
hip-clang does not define `__CUDA_ARCH__` (HIPIFY maps `__CUDACC__` to `__HIPCC__` but has no
equivalent for `__CUDA_ARCH__`). Every `#if __CUDA_ARCH__ >= N` branch is therefore dropped
for AMD, so the fast path (or the only device implementation) silently disappears, and
`#ifdef __CUDA_ARCH__` device/host splits take the host branch inside kernels. Compute
capability numbers have no meaning for gfx targets.

## Example
```cuda
#if __CUDA_ARCH__ >= 800     // HZ501
  use_async_copy();
#endif
```

## How to fix
For "am I compiling device code" use `__HIP_DEVICE_COMPILE__` (or
`defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)` in code shared by both). For
capability checks use the feature macros (`__HIP_ARCH_HAS_*`), the per-target macros
(`__gfx942__`, `__gfx90a__`) or a run-time check of `hipDeviceProp_t::gcnArchName`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from ..analysis.functions import functions
from ..analysis.tokens import occurrences, one_per_line
from ..analysis.values import compare, int_value
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.conditions import inactive_in
from ..frontend.directives import ARCH, branch_bounds, defined_span
from ..frontend.expressions import evaluate
from ..frontend.hip_build import UNDEFINED
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rewrite.device_pass_guards import DEVICE, device_pass_edits
from ..rules import Proposal, Report, hazard_rule

_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})


@hazard_rule(
    "HZ501",
    "cuda-arch-gate",
    Severity.WARNING,
    "__CUDA_ARCH__ gate: undefined on HIP, the branch is dropped",
    cuda_premise=True,
    opt_in=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if ARCH in ctx.project.hip_macros:
        return iter(())  # ggml's HIP header defines __CUDA_ARCH__ itself: its gates are its own
    return one_per_line(_findings(unit, report), unit)


def _findings(unit: Unit, report: Report) -> Iterator[Finding]:
    names = {n for n in unit.identifiers if n.startswith("__CUDA_ARCH")}
    if not names:
        return
    toks = unit.tokens
    converted = device_pass_edits(unit)
    for i in occurrences(unit, names):
        t = toks[i]
        if i in converted or (t.in_directive and _names(toks, i, DEVICE)):
            continue  # a device-pass test convert rewrites, or one written for HIP already
        if t.in_directive and defined_span(toks, i) is not None and _compared(toks, i):
            continue  # `defined(X) && X >= 800`: the comparison is the gate to report
        prev = toks[i - 1].text if i > 0 else ""
        if t.in_directive and prev == "define":
            continue
        if t.in_directive and (
            _as_on_current_gpu(toks, i)
            or _tunes_constants(unit, i)
            or _takes_a_fallback(unit, i)
            or _api_shim(unit, i)
        ):
            continue  # HIP takes the branch an sm_90 device pass takes, a tuning value, a
            # fallback the gate offers, or the gate only re-spells CUDA API names
        msg = _message(toks, i)
        # a gate repeated verbatim (`#if __CUDA_ARCH__ >= 200` around each of a dozen
        # kernels) is one decision: one finding, the others its lines
        cause = unit.line_text(unit.lines.position(t.start)[0]).strip() if t.in_directive else ""
        yield report(t.start, t.end, msg, extra={"root_cause": cause} if cause else {})


def _message(toks: Sequence[Token], i: int) -> str:
    """What the ``__CUDA_ARCH*`` at token ``i`` does on HIP: a capability gate's branch, a
    feature macro's, a value in a macro body, a device-pass guard, or a value in code."""
    t = toks[i]
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    prev = toks[i - 1].text if i > 0 else ""
    if nxt is not None and nxt.text in _COMPARISONS and nxt.in_directive == t.in_directive:
        k = i + 2
        value = toks[k].text if k < len(toks) else "?"
        taken = _true_at_zero(nxt.text, value)  # hip-clang: an undefined name reads 0
        effect = (
            "so HIP compiles this branch, the one for the oldest GPUs"
            if taken
            else "so this branch is never compiled for AMD"
        )
        return (
            f"capability gate `{t.text} {nxt.text} {value}`: {t.text} is undefined "
            f"on HIP, {effect} (use __gfx*__ or __HIP_ARCH_HAS_* feature macros)"
        )
    elif t.text != "__CUDA_ARCH__" and t.in_directive:
        what = (
            "nvcc's list of target GPUs"
            if t.text == "__CUDA_ARCH_LIST__"
            else "an nvcc architecture feature macro"
        )
        return (
            f"`{t.text}` ({what}) is undefined on HIP, so this branch is never compiled "
            f"for AMD (use __gfx*__ or __HIP_ARCH_HAS_* feature macros)"
        )
    elif t.in_directive and _in_macro_body(toks, i):
        return (
            f"`{t.text}` used as a value in a macro: undefined on HIP, so the macro "
            f"names an undeclared identifier wherever HIP compiles it (pass a value of "
            f"the project's own, or leave the branch to CUDA)"
        )
    elif prev in ("ifdef", "ifndef", "(", "defined") or t.in_directive:
        return (
            f"`{t.text}` is undefined on HIP: as a device-pass guard use "
            f"__HIP_DEVICE_COMPILE__ (device code would take the host branch)"
        )
    else:
        return f"`{t.text}` is undefined on HIP (no AMD equivalent for compute capability)"


# the device pass HIP should behave like: a current GPU built with the CUDA the tables target
_CURRENT = {
    "__CUDA_ARCH__": 900,
    "CUDA_VERSION": 12000,
    "CUDART_VERSION": 12000,
    "__CUDACC_VER_MAJOR__": 12,
    "__CUDACC_VER_MINOR__": 0,
}


def _as_on_current_gpu(toks: Sequence[Token], i: int) -> bool:
    """The `#if`/`#elif` around token ``i`` is as true on HIP (``__CUDA_ARCH__`` undefined) as
    in the device pass of a current GPU; False when it cannot be evaluated."""
    start, end = _directive_around(toks, i)
    if toks[start].text != "#" or toks[start + 1].text not in ("if", "elif"):
        return False
    body = toks[start + 2 : end + 1]
    hip_build = {k: v for k, v in _CURRENT.items() if k != "__CUDA_ARCH__"}
    others = sorted(
        {
            t.text
            for t in body
            if t.kind is Kind.IDENT and t.text != "defined" and not t.text.startswith("__CUDA")
        }
        - _CURRENT.keys()
    )
    if len(others) > _FREE_NAMES:
        return False
    # the project's own names (`defined(FP16_AVAILABLE) && __CUDA_ARCH__ != 610`) take each
    # value: the gate decides alike on HIP and a current GPU whatever they are
    for bits in range(1 << len(others)):
        setting = {name: 1 if bits >> k & 1 else UNDEFINED for k, name in enumerate(others)}
        hip = _evaluate(body, {**hip_build, **setting})
        if hip is None or hip != _evaluate(body, {**_CURRENT, **setting}):
            return False
    return True


_FREE_NAMES = 3  # names of the project's own tried both ways (8 evaluations at most)


def _true_at_zero(op: str, literal: str) -> bool:
    """`0 op literal`: how an `#if` reads a comparison of a macro HIP leaves undefined."""
    value = int_value(literal)
    return value is not None and compare(op, 0, value) is True


def _directive_around(toks: Sequence[Token], i: int) -> tuple[int, int]:
    """The first (its '#') and last token of the directive line holding token ``i``."""
    start = i
    while start > 0 and toks[start].text != "#" and toks[start - 1].in_directive:
        start -= 1
    end = i
    while end + 1 < len(toks) and toks[end + 1].in_directive and toks[end + 1].text != "#":
        end += 1
    return start, end


def _in_macro_body(toks: Sequence[Token], i: int) -> bool:
    """Token ``i`` is in the replacement of a `#define`, not a `defined(...)` test."""
    start, _ = _directive_around(toks, i)
    return (
        start + 2 < i
        and toks[start + 1].text == "define"
        and toks[i - 1].text not in ("(", "defined")
    )


def _names(toks: Sequence[Token], i: int, name: str) -> bool:
    """The directive line holding token ``i`` names ``name``."""
    start, end = _directive_around(toks, i)
    return any(t.text == name for t in toks[start : end + 1])


def _compared(toks: Sequence[Token], i: int) -> bool:
    """The directive line holding token ``i`` also compares its name with something."""
    start, end = _directive_around(toks, i)
    return any(
        t.text == toks[i].text and toks[k + 1].text in _COMPARISONS
        for k, t in enumerate(toks[start:end], start)
    )


def _evaluate(body: Sequence[Token], defined: dict[str, object]) -> bool | None:
    """The condition with the macros of ``_CURRENT`` (and any ``__CUDA_ARCH*``) defined as in
    ``defined`` and undefined otherwise; None when another name decides it."""
    known: dict[str, object] = {name: defined.get(name, UNDEFINED) for name in _CURRENT}
    for tok in body:
        if tok.text.startswith("__CUDA_ARCH") and tok.text not in known:
            known[tok.text] = defined.get(tok.text, UNDEFINED)
    known.update((name, value) for name, value in defined.items() if name not in known)
    return evaluate(body, known)


_BRANCH_LINES = 256  # directive lines of one #if group looked at


def _tunes_constants(unit: Unit, i: int) -> bool:
    """The ``#if`` on token ``i``'s line, through its ``#endif``, holds nothing but
    ``#define NAME number`` lines, the same names in every branch, and has an ``#else``."""
    bounds = _directives_only(unit, i)
    if bounds is None:
        return False
    toks, dirs = unit.tokens, unit.directives
    if all(unit.directive_word(dirs[k]) != "else" for k in bounds):
        return False
    branches = [
        {toks[dirs[k] + 2].text for k in range(a + 1, b)}
        for a, b in zip(bounds, bounds[1:], strict=False)
        if all(
            unit.directive_word(dirs[k]) == "define" and _defines_a_number(toks, dirs[k])
            for k in range(a + 1, b)
        )
    ]
    complete = len(branches) == len(bounds) - 1  # no branch holds anything else
    return complete and bool(branches[0]) and all(b == branches[0] for b in branches)


def _directives_only(unit: Unit, i: int) -> list[int] | None:
    """The ``_if_group`` of token ``i``'s line when only directive lines stand between its
    ``#if`` and ``#endif`` (no code in any branch), else None."""
    bounds = _if_group(unit, i)
    if bounds is None:
        return None
    toks, dirs = unit.tokens, unit.directives
    inside = toks[dirs[bounds[0]] : dirs[bounds[-1]]]
    return bounds if all(t.in_directive for t in inside) else None


def _if_group(unit: Unit, i: int) -> list[int] | None:
    """The directive indexes of the ``#if`` group of token ``i``'s line (see ``_branches``),
    None unless that line is an ``#if`` or one of its ``#elif`` lines (xgboost's
    ``#elif __CUDA_ARCH__ >= 800`` chains) and the group's ``#endif`` comes."""
    dirs = unit.directives
    at = bisect_right(dirs, i) - 1
    if at >= 0 and unit.directive_word(dirs[at]) == "elif":
        at = _opening_if(unit, at)
    if at < 0 or unit.directive_word(dirs[at]) not in ("if", "ifdef", "ifndef"):
        return None
    bounds = _branches(unit, at)
    return bounds if unit.directive_word(dirs[bounds[-1]]) == "endif" else None


def _opening_if(unit: Unit, at: int) -> int:
    """The directive index of the ``#if`` an ``#elif`` at directive ``at`` belongs to (-1 if
    not found within ``_BRANCH_LINES`` directive lines)."""
    depth = 0
    for k in range(at - 1, max(-1, at - _BRANCH_LINES), -1):
        word = unit.directive_word(unit.directives[k])
        if word == "endif":
            depth += 1
        elif word in ("if", "ifdef", "ifndef"):
            if not depth:
                return k
            depth -= 1
    return -1


_TRAPS = frozenset({"assert", "__trap", "__builtin_trap", "abort", "static_assert"})


def _takes_a_fallback(unit: Unit, i: int) -> bool:
    """The ``#if`` on token ``i``'s line has another branch, and the one HIP compiles (the
    rest are in ``inactive_in``) holds statements and no trap (`assert(false)`, `#error`; an
    empty kernel body is a stub too):
    `#if __CUDA_ARCH__ >= 800` fast path `#else` portable path, which HIP takes (ColossalAI,
    CTranslate2, cudpp: the fallback computes the same)."""
    bounds = _if_group(unit, i)
    if bounds is None or len(bounds) < 3:
        return False  # no other branch: on HIP the code is simply gone
    toks, dirs = unit.tokens, unit.directives
    inactive = inactive_in(unit)
    for a, b in zip(bounds, bounds[1:], strict=False):
        body = [t for t in toks[dirs[a] : dirs[b]] if not t.in_directive]
        nested = [unit.directive_word(dirs[k]) for k in range(a + 1, b)]
        if not body and b > a + 1 and toks[dirs[a + 1]].start not in inactive:
            # ccminer: `#elif !defined(__ldg4)` / `#define __ldg4(x) (*(x))`: a macro fallback
            # for what the other branches define (a function, a macro)
            return set(nested) <= {"define", "undef"} and _replaces(unit, bounds, a, b)
        if body and body[0].start not in inactive:
            stub = not any(t.text == ";" for t in body)  # CTranslate2: `void k(p) { }` kernels
            return not stub and "error" not in nested and not any(t.text in _TRAPS for t in body)
    return False


def _replaces(unit: Unit, bounds: list[int], a: int, b: int) -> bool:
    """The ``#define`` lines between directives ``a`` and ``b`` define every macro and function
    the other branches of the group define, and those hold nothing else (a declaration or
    statement of their own is a path the macros do not replace)."""
    toks, dirs = unit.tokens, unit.directives
    defined = {toks[dirs[k] + 2].text for k in range(a + 1, b) if dirs[k] + 2 < len(toks)}
    funcs = functions(unit)
    needed: set[str] = set()
    for c, d in zip(bounds, bounds[1:], strict=False):
        if c == a:
            continue
        lo, hi = dirs[c], dirs[d]
        own = [f for f in funcs if lo < f.name_index < hi]
        needed.update(f.name for f in own)
        needed.update(
            toks[dirs[k] + 2].text
            for k in range(c + 1, d)
            if unit.directive_word(dirs[k]) == "define" and dirs[k] + 2 < len(toks)
        )
        code = [k for k in range(lo, hi) if not toks[k].in_directive]
        if code and not own:
            return False  # statements or declarations, no function the macros stand for
    return bool(needed) and needed <= defined


def _api_shim(unit: Unit, i: int) -> bool:
    """Every branch of the ``#if`` on token ``i``'s line only defines or undefines CUDA API
    names, which HIP has itself: ccminer's `#if CUDA_VERSION >= 9000 && __CUDA_ARCH__ >= 300`
    / `#define __shfl(v, l, w) __shfl_sync(0xFFFFFFFFu, v, l, w)` (HIP has `__shfl`), and
    `#if __CUDA_ARCH__ < 320` / `#define __ldg(x) (*(x))` (HIP's `__ldg` is that load)."""
    bounds = _directives_only(unit, i)
    if bounds is None:
        return False
    toks, dirs = unit.tokens, unit.directives
    names = set()
    for k in range(bounds[0] + 1, bounds[-1]):
        if k in bounds:
            continue
        if unit.directive_word(dirs[k]) not in ("define", "undef") or dirs[k] + 2 >= len(toks):
            return False
        names.add(toks[dirs[k] + 2].text)
    return bool(names) and len(unit.mappings.known(names)) == len(names)


def _branches(unit: Unit, at: int) -> list[int]:
    """Directive indexes of the ``#if`` at directive ``at`` (``branch_bounds``), looked at
    over ``_BRANCH_LINES`` directive lines."""
    dirs = unit.directives
    end = min(len(dirs), at + _BRANCH_LINES)
    return branch_bounds(lambda k: unit.directive_word(dirs[k]), at, end)


def _defines_a_number(toks: Sequence[Token], d: int) -> bool:
    """``#define NAME number`` and nothing more on the line at ``d``."""
    if d + 3 >= len(toks) or not toks[d + 3].in_directive or toks[d + 3].kind is not Kind.NUMBER:
        return False
    return d + 4 >= len(toks) or not toks[d + 4].in_directive or toks[d + 4].kind is Kind.DIRECTIVE
