"""Give a function template and its explicit specializations the same `__host__`/`__device__`
targets.

nvcc accepts `template <typename T> __device__ T alpha(T)` beside `template <> __host__
__device__ uint8_t alpha(uchar3)`; clang matches an explicit specialization only to a template
of the same targets ("no function template matches function template specialization"), so
jetson-utils' `cudaVector.h` failed 8 translation units, silently, in compile round 28.  Where a
file's primary template and one of its specializations differ, and one of them is `__host__
__device__`, the `__device__`-only one gains `__host__`: its device code is the same, and clang
checks its host side only where host code calls it.  A host-only one (no target, or
`__host__` alone) gains `__device__` alike: TensorRT-LLM's `template <typename T> T
trtllm_aux_from_float(float);` beside its `__host__ __device__` specializations, copied into
DrXuQian/Kernels (compile round 40: a silent TU).

The primary template may be a declaration alone, and its targets may be spelled by a macro of
another header: cudaKDTree's `template<typename T> inline __both__ float as_float_rz(T t);`,
`__both__` being `__owl_host __owl_device` of `common.h` (``ProjectIndex.decorations``), beside
a `__device__` specialization in a device-pass branch (8 silent TUs in compile round 35).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from ..analysis.functions import Func, declaration_head, functions, specifiers
from ..analysis.tokens import match, template_close
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward
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
    spelled = {name: frozenset(targets) for name, targets in ctx.project.decorations}
    if "template" not in unit.identifiers or not (
        "__host__" in unit.identifiers or spelled.keys() & unit.identifiers
    ):
        return
    inactive = inactive_in(unit)
    by_name: dict[str, list[tuple[Func, bool]]] = {}  # name -> (function, a specialization?)
    for f in [*functions(unit), *_template_declarations(unit)]:
        kind = _template_kind(unit, f)
        if kind is not None and unit.tokens[f.name_index].start not in inactive:
            words = f.specifiers.union(*(spelled.get(w, ()) for w in f.specifiers))
            by_name.setdefault(f.name, []).append((replace(f, specifiers=words), kind))
    for found in by_name.values():
        if len({spec for _f, spec in found}) < 2:
            continue  # no primary template, or no specialization, in this file
        if not any(_BOTH <= f.specifiers for f, _spec in found):
            continue
        for f, _spec in found:
            device = _device_only(unit, f)
            if device is not None:
                yield Edit(unit.tokens[device].start, unit.tokens[device].start, "__host__ ", RULE)
            host = _host_only(unit, f)
            if host is not None:
                text = "__device__ " if "__host__" in f.specifiers else "__host__ __device__ "
                yield Edit(unit.tokens[host].start, unit.tokens[host].start, text, RULE)


def _template_declarations(unit: Unit) -> Iterator[Func]:
    """Function templates the file declares without a body (`template <...> HEAD NAME(...)
    QUALIFIERS;`), as functions whose body is empty: the primary template of a header; and
    the explicit specializations that name their arguments (`template <> HEAD
    NAME<float>(...)`, with a body or not), which ``functions`` does not read as functions."""
    toks = unit.tokens
    for t in unit.identifier_positions.get("template", ()):
        if toks[t].in_directive or t + 1 >= len(toks) or toks[t + 1].text != "<":
            continue
        k = t + 2
        while k < len(toks) and k - t < 256 and toks[k].text not in (";", "{", "}", "("):
            k += 1
        name = _declared_name(toks, t, k) if k < len(toks) and toks[k].text == "(" else None
        if name is None:
            continue
        close = match(toks, k)
        end = close + 1 if close is not None else len(toks)
        while end < len(toks) and toks[end].text in _AFTER_PARAMETERS:
            end += 1
        if close is None or end >= len(toks):
            continue
        if toks[end].text == ";":
            yield Func(toks[name].text, name, end, end, specifiers(toks, name), (k, close))
        elif toks[end].text == "{" and name < k - 1 and (body := unit.lexed.brackets.get(end)):
            yield Func(toks[name].text, name, end, body, specifiers(toks, name), (k, close))


def _declared_name(toks: Sequence[Token], template: int, paren: int) -> int | None:
    """The name of the function whose parameter list opens at ``paren``, after the `template`
    at ``template``: the word before it, or before the arguments an explicit specialization
    names (`template <> float NAME<float>(`)."""
    name = paren - 1
    if toks[name].text == ">" and toks[template + 2].text == ">":
        lt = match_angle_backward(toks, name)
        name = lt - 1 if lt is not None else template
    return name if toks[name].kind is Kind.IDENT and name > template + 2 else None


_AFTER_PARAMETERS = frozenset({"const", "noexcept", "&", "&&"})


def _template_kind(unit: Unit, f: Func) -> bool | None:
    """True for an explicit specialization (`template <>`), False for a primary template,
    None for a function that is no template."""
    toks = unit.tokens
    for k in declaration_head(toks, f):
        if toks[k].text == "template" and k + 1 < len(toks) and toks[k + 1].text == "<":
            return toks[k + 2].text == ">"
    return None


def _host_only(unit: Unit, f: Func) -> int | None:
    """The first token after the `template <...>` header of a function that is a host
    function alone (no `__device__`; `constexpr` is both to clang already)."""
    toks = unit.tokens
    if f.specifiers & {"__device__", "__global__", "constexpr"}:
        return None
    for k in declaration_head(toks, f):
        if toks[k].text == "template" and k + 1 < len(toks) and toks[k + 1].text == "<":
            close = template_close(toks, k + 1)
            return close + 1 if close is not None and not toks[close + 1].in_directive else None
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
