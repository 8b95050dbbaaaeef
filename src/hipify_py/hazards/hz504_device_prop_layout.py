"""HZ504 device-prop-layout

## What it detects
Code that depends on the byte layout of the device-properties struct: `sizeof(cudaDeviceProp)`
(or `hipDeviceProp_t`) outside an allocation of the struct itself, `memcpy`/`memcmp`/`memset`
of a properties variable, and the versioned names `hipDeviceProp_tR0000` /
`hipGetDevicePropertiesR0000`.

## Why it breaks on AMD
`hipDeviceProp_t` is a macro for the versioned `hipDeviceProp_tR0600` (and
`hipGetDeviceProperties` for `...R0600`); the old `R0000` layout survives only in
`hip_deprecated.h`. The HIP struct has other fields than CUDA's (`gcnArchName`, the
`hipDeviceArch_t` flags) in another order, so properties hashed, serialised, compared byte by
byte or exchanged with code built against another layout differ. HIP also reports only
aggregate topology: XCD/XCC and NUMA placement of MI300X are not in the struct.

## Example
```cuda
cudaDeviceProp a, b;
if (memcmp(&a, &b, sizeof(cudaDeviceProp)) == 0) { /* same GPU */ }   // HZ504
```

## How to fix
Compare or serialise the fields you need (`name`, `gcnArchName`, `totalGlobalMem`,
`multiProcessorCount`, PCI ids), and use the unversioned `hipDeviceProp_t` /
`hipGetDeviceProperties` names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..analysis.calls import calls
from ..analysis.functions import scope_of
from ..analysis.tokens import one_per_line
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_TYPES = frozenset({"cudaDeviceProp", "hipDeviceProp_t", "hipDeviceProp_tR0600"})
_OLD = frozenset({"hipDeviceProp_tR0000", "hipGetDevicePropertiesR0000"})
_BYTES = frozenset({"memcpy", "memcmp", "memset", "std::memcpy", "std::memcmp"})


def _prop_variables(unit: Unit) -> set[tuple[int, str]]:
    """(scope, name) of the variables declared with a properties type; scope is the body of
    the function holding the declaration (or its parameter list), -1 at file scope.

    In a parameter list a comma starts the next parameter, not another declarator of this
    type: in `(cudaDeviceProp* prop, bool sparse)`, `bool` is no properties variable."""
    toks = unit.tokens
    names: set[tuple[int, str]] = set()
    for name in _TYPES & unit.identifiers:
        for i in unit.identifier_positions[name]:
            k = i - 1
            while k >= 0 and toks[k].text in ("const", "volatile", "struct", "::"):
                k -= 1
            parameter = k >= 0 and toks[k].text in ("(", ",")
            j = i + 1
            while j < len(toks) and toks[j].text in ("*", "&", "const"):
                j += 1
            while j < len(toks) and toks[j].kind is Kind.IDENT:
                names.add((scope_of(unit, j), toks[j].text))
                j += 1
                if j < len(toks) and toks[j].text == "[":
                    while j < len(toks) and toks[j].text != "]":
                        j += 1
                    j += 1
                if j < len(toks) and toks[j].text == "," and not parameter:
                    j += 1
                    continue
                break
    return names


@hazard_rule(
    "HZ504",
    "device-prop-layout",
    Severity.WARNING,
    "code that depends on the byte layout of cudaDeviceProp / hipDeviceProp_t",
    opt_in=True,  # advisory, 0/3 true at first contact in rounds 4-14 (a memset of the struct)
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    ids = unit.identifiers
    if not (ids & (_TYPES | _OLD)):
        return
    yield from one_per_line(_findings(unit, report), unit)


def _findings(unit: Unit, report: Report) -> Iterator[Finding]:
    toks = unit.tokens
    for name in sorted(_OLD & unit.identifiers):
        for i in unit.identifier_positions[name]:
            yield report(
                toks[i].start,
                toks[i].end,
                f"`{name}` is the deprecated pre-6.0 properties layout (hip_deprecated.h); use "
                f"hipDeviceProp_t / hipGetDeviceProperties",
            )
    visible_at = _visible_props(unit)
    yield from _byte_operations(unit, report, visible_at)
    yield from _sizeofs(unit, report, visible_at)


def _visible_props(unit: Unit) -> Callable[[int], set[str]]:
    """The properties variables (and types) visible at a token: those of its function, and
    the file-scope ones."""
    by_scope: dict[int, set[str]] = {}
    for scope, name in _prop_variables(unit):
        by_scope.setdefault(scope, set()).add(name)
    file_scope = by_scope.get(-1, set()) | _TYPES

    def visible_at(index: int) -> set[str]:
        return by_scope.get(scope_of(unit, index), set()) | file_scope

    return visible_at


def _byte_operations(
    unit: Unit, report: Report, visible_at: Callable[[int], set[str]]
) -> Iterator[Finding]:
    """``memcpy``/``memcmp``/``memset`` on a whole properties struct (its fields are fine)."""
    toks = unit.tokens
    for c in calls(unit, {"memcpy", "memcmp", "memset"}):
        visible = visible_at(c.index)
        hit = {
            toks[k].text
            for a, b in c.args
            for k in range(a, b)
            if toks[k].text in visible and toks[k + 1].text not in (".", "->", "[")
        }
        if hit:
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{c.name}` on device properties `{sorted(hit)[0]}`: hipDeviceProp_t has "
                f"another layout than cudaDeviceProp; compare or copy the fields you need",
            )


def _sizeofs(
    unit: Unit, report: Report, visible_at: Callable[[int], set[str]]
) -> Iterator[Finding]:
    """``sizeof`` of the properties struct, except where it sizes storage for the struct
    itself (``malloc(sizeof(prop))``, ``new char[sizeof(cudaDeviceProp)]``)."""
    toks = unit.tokens
    for c in calls(unit, {"sizeof"}):
        visible = visible_at(c.index)
        arg = toks[c.args[0][0] : c.args[0][1]] if c.args else []
        if len(arg) != 1 or arg[0].text not in visible:
            continue
        k = c.index - 1
        if toks[k].text in ("(", "[") and toks[k - 1].text in ("malloc", "new", "calloc"):
            continue
        if toks[k].text == "[":
            continue
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            "`sizeof` of the device-properties struct: its size and layout differ between "
            "CUDA and HIP (hipDeviceProp_tR0600)",
        )
