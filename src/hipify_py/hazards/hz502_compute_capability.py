"""HZ502 compute-capability-check

## What it detects
Run-time compute-capability checks: `prop.major` / `prop.minor` (or `->major`) on a
`cudaDeviceProp`/`hipDeviceProp_t` (or `getCurrentDeviceProperties()`/`getDeviceProperties()`
results) compared with or combined into a number, and queries of
`cudaDevAttrComputeCapabilityMajor/Minor` (and the HIP forms). A test that every CDNA GPU
(gfx90a 9.0, gfx942 9.4, gfx950 9.5) answers as a Pascal (6.1) or a Turing (7.5) GPU does is
not reported: HIP then takes the branch of GPUs without the feature (`major < 6` and
`!(major >= 8 || (major >= 7 && minor >= 5))` waivers for old GPUs, `major >= 10` Blackwell
paths, `major == 8` Ampere kernels) or the one every GPU CUDA 13 supports takes
(`major >= 7 ? 1024 : 128`); nor is a version only printed. Reported are tests a CDNA GPU
passes as only a newer NVIDIA GPU does (`major >= 8`: TF32 on, Ampere kernels), tests the CDNA
GPUs answer differently (`major == 9 && minor == 0`: gfx90a is "Hopper") and arithmetic
(`major * 10 + minor` = 94 selects a variant).

## Why it breaks on AMD
On AMD, `major.minor` is the GFXIP version (9.4 for MI300X/gfx942, 9.0 for MI200/gfx90a,
9.5 for gfx950), not an NVIDIA compute capability. `prop.major >= 8` ("Ampere or newer") is
true on every CDNA GPU and false on nothing you meant, and `major * 10 + minor` selects the
wrong kernel variant.

## Example
```cuda
if (prop.major >= 8) use_bf16_kernel();    // HZ502
```

## How to fix
Check for the feature you need instead: `prop.gcnArchName` (e.g. starts with "gfx942"),
`hipDeviceAttribute*` feature attributes, `warpSize`, `sharedMemPerBlock`; or keep the
capability check under `#ifdef __HIP_PLATFORM_NVIDIA__`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, function_at
from ..analysis.tokens import cached, one_per_line, statement_bounds
from ..analysis.values import compare, int_value
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.expressions import expression_value
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_PROP_TYPES = frozenset({"cudaDeviceProp", "hipDeviceProp_t", "hipDeviceProp_tR0600"})
_PROP_CALLS = frozenset({"getCurrentDeviceProperties", "getDeviceProperties"})
_ATTRS = frozenset(
    {
        "cudaDevAttrComputeCapabilityMajor",
        "cudaDevAttrComputeCapabilityMinor",
        "hipDeviceAttributeComputeCapabilityMajor",
        "hipDeviceAttributeComputeCapabilityMinor",
        "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
        "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
    }
)
_OPS = frozenset({"<", ">", "<=", ">=", "==", "!=", "*", "+"})


# What CDNA GPUs report as major.minor (gfx90a 9.0, gfx942 9.4, gfx950 9.5), and two NVIDIA
# GPUs a test that answers alike for all of them needs nothing for: Pascal (6.1), which
# waivers for old GPUs name, and Turing (7.5), the oldest GPU CUDA 13 builds for: HIP then
# takes the branch of GPUs without the feature the test is about, or the one every supported
# GPU takes (AMGX's `major >= 7 ? 1024 : 128` grid sizes)
_CDNA = ((9, 0), (9, 4), (9, 5))
_BASELINES = ((6, 1), (7, 5))
_VERSION_WORDS = frozenset({"&&", "||", "!", "(", ")", *_OPS, "-", "/", "%"})
_FIELDS = ("major", "minor")
_RUN_LIMIT = 64  # tokens looked at on each side of `major` (a condition, not a whole file)


def _major_as_baseline(toks: Sequence[Token], i: int, fields: tuple[str, str] = _FIELDS) -> bool:
    """`prop.major OP N` (token ``i`` is `major`) that gfx942 (major 9) answers as a Pascal
    (major 6) or Turing (major 7) GPU does (`major < 6` waivers, `major >= 10` Blackwell paths,
    `major == 8` Ampere kernels, `major >= 7`).  A test gfx942 passes as only a newer GPU does
    (`major >= 8`: TF32 on) or fails as one does (`major < 8`) is reported."""
    at_9 = _major_test(toks, i, 9, fields[0])
    return at_9 is not None and any(
        at_9 == _major_test(toks, i, m, fields[0]) for m, _ in _BASELINES
    )


def _same_as_baseline(
    toks: Sequence[Token], i: int, fields: tuple[str, str] = _FIELDS
) -> bool | None:
    """The whole version expression around token ``i`` (the longest run of `prop.major`,
    `prop.minor`, numbers and operators, unbalanced parentheses trimmed) has one value for
    every CDNA GPU, the value of a baseline GPU (`!(major >= 8 || (major >= 7 && minor >= 5))`,
    a waiver for pre-Turing GPUs); None when it is no expression the evaluator reads."""
    a = b = i
    while a > max(0, i - _RUN_LIMIT) and _version_token(toks, a - 1, fields):
        a -= 1
    while b + 1 < min(len(toks), i + _RUN_LIMIT) and _version_token(toks, b + 1, fields):
        b += 1
    run = [t for k, t in enumerate(toks[a : b + 1], a) if not _accessor(toks, k, fields)]
    # the run may start after a call's `)` or end at a `(`, joined by `||`/`&&` to conditions
    # of other things (`... != cudaSuccess || major != 12 || minor != 0 || sms != n`): those
    # are left out, which keeps the run's value wherever it decides the whole
    while run and run[0].text in (")", "||", "&&"):
        run = run[1:]
    while run and run[-1].text in ("(", "||", "&&", "!"):
        run = run[:-1]
    while run and run[0].text == "(" and _depth(run) > 0:
        run = run[1:]
    while run and run[-1].text == ")" and _depth(run) < 0:
        run = run[:-1]
    major, minor = fields
    amd = {expression_value(run, {major: m, minor: n}) for m, n in _CDNA}
    if None in amd:
        return None
    baselines = {expression_value(run, {major: m, minor: n}) for m, n in _BASELINES}
    return len(amd) == 1 and bool(amd & baselines)


def _accessor(toks: Sequence[Token], k: int, fields: tuple[str, str] = _FIELDS) -> bool:
    """Token ``k`` is the `prop .`/`prop ->` before a `major`/`minor`."""
    if toks[k].text in (".", "->"):
        return k + 1 < len(toks) and toks[k + 1].text in fields
    return k + 2 < len(toks) and toks[k + 1].text in (".", "->") and toks[k + 2].text in fields


def _version_token(toks: Sequence[Token], k: int, fields: tuple[str, str] = _FIELDS) -> bool:
    t = toks[k]
    return (
        t.kind is Kind.NUMBER
        or t.text in _VERSION_WORDS
        or t.text in fields
        or _accessor(toks, k, fields)
    )


def _depth(run: Sequence[Token]) -> int:
    return sum(t.text == "(" for t in run) - sum(t.text == ")" for t in run)


def _major_test(toks: Sequence[Token], i: int, major: int, field: str = "major") -> bool | None:
    """What `prop.major OP N` (token ``i`` is `major`, or the variable ``field`` holding it)
    gives for ``major``; None if it is not such a test."""
    if toks[i].text != field or i + 2 >= len(toks) or toks[i + 2].kind is not Kind.NUMBER:
        return None
    value = int_value(toks[i + 2].text)
    return None if value is None else compare(toks[i + 1].text, major, value)


_PRINTS = frozenset({"printf", "fprintf", "sprintf", "snprintf"})


def _moot(toks: Sequence[Token], i: int, fields: tuple[str, str] = _FIELDS) -> bool:
    """The test at token ``i`` decides nothing on gfx942: a version expression every CDNA GPU
    answers as a Pascal or Turing GPU does (its `major` test alone when the expression is not
    read), a version only printed (`printf("sm %d", major * 10 + minor)`), or a `minor` test
    next to (`&&`) a `major` test false for major 9 (`major == 7 && minor == 5`)."""
    whole = _same_as_baseline(toks, i, fields)
    if whole if whole is not None else _major_as_baseline(toks, i, fields):
        return True
    first, last = statement_bounds(toks, i, 0, len(toks) - 1)
    words = [t.text for t in toks[first:last]]
    if any(w in _PRINTS for w in words[: i - first]):
        return True
    major, minor = fields
    return (
        toks[i].text == minor
        and "&&" in words
        and any(
            toks[k].text == major
            and _major_as_baseline(toks, k, fields)
            and not _major_test(toks, k, 9, major)
            for k in range(first, last)
        )
    )


@hazard_rule(
    "HZ502",
    "compute-capability-check",
    Severity.WARNING,
    "prop.major/minor compute-capability checks (GFXIP version on AMD)",
    cuda_premise=True,
    opt_in=True,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    return one_per_line(_findings(unit, ctx, report), unit)


def _findings(unit: Unit, ctx: Context, report: Report) -> Iterator[Finding]:
    ids = unit.identifiers
    has_props = bool((_PROP_TYPES | _PROP_CALLS) & ids)
    attrs = _ATTRS & ids
    if not has_props and not attrs:
        return
    toks = unit.tokens
    pos = unit.identifier_positions
    props = _prop_names(unit)
    for i in sorted(i for n in attrs | ({"major", "minor"} & ids) for i in pos[n]):
        t = toks[i]
        if t.text in attrs and not t.in_directive:
            if _query_moot(unit, i):
                continue
            yield report(
                t.start,
                t.end,
                f"`{t.text}` is the GFXIP version on AMD (9.4 for gfx942), not a "
                f"compute capability",
            )
        elif _is_version_comparison(toks, i, props) and not _moot(toks, i):
            owner = toks[i - 2]
            yield report(
                owner.start,
                t.end,
                f"compute-capability check on `{owner.text}{toks[i - 1].text}"
                f"{t.text}`: on AMD major.minor is the GFXIP version (9.4 for gfx942)"
                f"; test features or gcnArchName instead",
            )


def _query_moot(unit: Unit, i: int) -> bool:
    """The capability the attribute query at token ``i`` stores (`cudaDeviceGetAttribute(
    &major, cudaDevAttrComputeCapabilityMajor, dev)`) is only tested the way every CDNA GPU
    answers as a Pascal or Turing GPU does (fastllm's `major != 12 || minor != 0` SM120 gate,
    round 10), in the function that queries it: each later use of the variable is ``_moot``
    with the variables of the function's two queries as `major` and `minor`."""
    func = function_at(unit, i)
    held = _queried_variables(unit, func) if func is not None else {}
    name = next((n for n, k in held.items() if k == i), None)
    if func is None or name is None:
        return False
    names = {unit.tokens[k].text.lower().endswith("minor"): n for n, k in held.items()}
    fields = (names.get(False, "major"), names.get(True, "minor"))
    toks = unit.tokens
    uses = [
        k for k in unit.identifier_positions[name] if i < k < func.close and toks[k - 1].text != "&"
    ]
    return all(_moot(toks, k, fields) for k in uses)


def _queried_variables(unit: Unit, func: Func) -> dict[str, int]:
    """The variables ``func`` stores a capability query in (`cudaDeviceGetAttribute(&v,
    ATTR, dev)`), each with the token index of its attribute."""
    found: dict[int, dict[str, int]] = cached(unit, "_hz502_queried", dict)
    if func.open not in found:  # once per function, not per query in it
        found[func.open] = _queries_in(unit, func)
    return found[func.open]


def _queries_in(unit: Unit, func: Func) -> dict[str, int]:
    toks = unit.tokens
    held: dict[str, int] = {}
    for k in range(func.open + 1, func.close):
        if toks[k].text in _ATTRS and toks[k - 1].text == ",":
            j = k - 2
            if toks[j].kind is Kind.IDENT and toks[j - 1].text == "&" and toks[j - 2].text == "(":
                held[toks[j].text] = k
    return held


def _prop_names(unit: Unit) -> set[str]:
    """Variables holding device properties: declared with a properties type, or assigned
    from ``at::cuda::getCurrentDeviceProperties()`` and the like."""
    toks = unit.tokens
    ids = unit.identifiers
    pos = unit.identifier_positions
    props: set[str] = set()
    last = len(toks) - 2
    first = sorted(i for n in (_PROP_TYPES | _PROP_CALLS) & ids for i in pos[n] if i < last)
    for i in first:
        name = _declared_prop(toks, i) if toks[i].text in _PROP_TYPES else _assigned_prop(toks, i)
        if name is not None:
            props.add(name)
    return props


def _declared_prop(toks: Sequence[Token], i: int) -> str | None:
    """The name declared by the properties type at token ``i`` (``cudaDeviceProp* p``)."""
    j = i + 1
    while toks[j].text in ("*", "&", "const"):
        j += 1
    return toks[j].text if toks[j].kind is Kind.IDENT else None


def _assigned_prop(toks: Sequence[Token], i: int) -> str | None:
    """The variable assigned the result of the qualified properties call at token ``i``
    (``auto* p = at::cuda::getCurrentDeviceProperties();``)."""
    if toks[i - 1].text == "." or i <= 2 or toks[i - 1].text != "::":
        return None
    k = i - 1
    while (
        k > 0 and toks[k].text in ("::",) or toks[k].kind is Kind.IDENT and toks[k - 1].text == "::"
    ):
        k -= 1
    if toks[k - 1].text == "=" and toks[k - 2].kind is Kind.IDENT:
        return toks[k - 2].text
    return None


def _is_version_comparison(toks: Sequence[Token], i: int, props: set[str]) -> bool:
    """Token ``i`` is ``.major``/``.minor`` of device properties, compared or combined with
    something (``prop.major >= 7``, ``major * 10 + minor``)."""
    if toks[i].text not in ("major", "minor") or i < 2 or toks[i - 1].text not in (".", "->"):
        return False
    if not _names_properties(toks, i - 2, props):
        return False
    prev = toks[i - 3].text if i >= 3 else ""
    nxt = toks[i + 1].text if i + 1 < len(toks) else ""
    return nxt in _OPS or prev in _OPS


def _names_properties(toks: Sequence[Token], k: int, props: set[str]) -> bool:
    """Token ``k`` ends an expression for device properties: a properties variable, or the
    ``)`` of a properties call."""
    if toks[k].text != ")":
        return toks[k].text in props
    while k > 0 and toks[k].text != "(":
        k -= 1
    return toks[k - 1].text in _PROP_CALLS
