"""Give a function template and its explicit specializations the same `__host__`/`__device__`
targets.

nvcc accepts `template <typename T> __device__ T alpha(T)` beside `template <> __host__
__device__ uint8_t alpha(uchar3)`; clang matches an explicit specialization only to a template
of the same targets ("no function template matches function template specialization"), so
jetson-utils' `cudaVector.h` failed 8 translation units, silently, in compile round 28.  Where a
file's primary template and one of its specializations differ, and one of them is `__host__
__device__`, the `__device__`-only one gains `__host__`: its device code is the same, and clang
checks its host side only where host code calls it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import Func, declaration_head, functions
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import inactive_in
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "specialization-targets"
_BOTH = frozenset({"__host__", "__device__"})


@rewrite_pass(
    RULE,
    order=14,
    tallies=(Tally(RULE, "specialization_targets", "device templates made host-callable too"),),
)
def specialization_targets(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "template" not in unit.identifiers or "__host__" not in unit.identifiers:
        return
    inactive = inactive_in(unit)
    by_name: dict[str, list[tuple[Func, bool]]] = {}  # name -> (definition, a specialization?)
    for f in functions(unit):
        kind = _template_kind(unit, f)
        if kind is not None and unit.tokens[f.name_index].start not in inactive:
            by_name.setdefault(f.name, []).append((f, kind))
    for found in by_name.values():
        if len({spec for _f, spec in found}) < 2:
            continue  # no primary template, or no specialization, in this file
        if not any(_BOTH <= f.specifiers for f, _spec in found):
            continue
        for f, _spec in found:
            device = _device_only(unit, f)
            if device is not None:
                yield Edit(unit.tokens[device].start, unit.tokens[device].start, "__host__ ", RULE)


def _template_kind(unit: Unit, f: Func) -> bool | None:
    """True for an explicit specialization (`template <>`), False for a primary template,
    None for a function that is no template."""
    toks = unit.tokens
    for k in declaration_head(toks, f):
        if toks[k].text == "template" and k + 1 < len(toks) and toks[k + 1].text == "<":
            return toks[k + 2].text == ">"
    return None


def _device_only(unit: Unit, f: Func) -> int | None:
    """The token of `__device__` in the head of a function that is `__device__` alone."""
    toks = unit.tokens
    if "__host__" in f.specifiers:
        return None
    return next(
        (
            k
            for k in declaration_head(toks, f)
            if toks[k].text == "__device__" and not toks[k].in_directive
        ),
        None,
    )
