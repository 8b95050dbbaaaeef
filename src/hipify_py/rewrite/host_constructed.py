"""Give a class's `__device__` constructors `__host__` where a host function of the file
builds the class.

cuda_hlt's `UTEventModel.cuh`: `struct Hit` has only `__device__` constructors, and the host
member `Hit Hits::getHit(uint32_t) const` returns `{yBegin[index], ...}`.  nvcc checks a host
function's calls only where it emits the function, and nothing calls `getHit`; clang, the HIP
compiler, resolves the braces in its host pass and finds no constructor it may call there ("no
matching constructor for initialization of 'Hit'": 6 silent TUs in compile round 37).  With
`__host__` added, the device code is the same, and clang checks the constructor's host side only
where host code calls it.  Only a constructor of a class that a host function of the same file
returns or constructs by name is changed.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Sequence

from ..analysis.functions import class_bodies, class_head, functions
from ..analysis.tokens import match
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Token
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "host-constructed"
_TARGETS = frozenset({"__host__", "__device__", "__global__"})


@rewrite_pass(
    RULE,
    order=14,
    tallies=(Tally(RULE, "host_constructed", "device constructors made host-callable too"),),
)
def host_constructed(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "__device__" not in unit.identifiers or not unit.identifiers & {"struct", "class"}:
        return
    inactive = inactive_in(unit)
    device_only = _device_only_classes(unit, inactive)
    for name in sorted(_built_on_the_host(unit, device_only.keys(), inactive)):
        for k in device_only[name]:
            yield Edit(unit.tokens[k].start, unit.tokens[k].start, "__host__ ", RULE)


def _device_only_classes(unit: Unit, inactive: Container[int]) -> dict[str, list[int]]:
    """Class name -> the `__device__` tokens of its device-only constructors."""
    toks = unit.tokens
    out = {}
    for open_, close in class_bodies(unit):
        head = class_head(toks, open_)
        name = toks[head[0]].text if head is not None else None
        if name is not None and toks[open_].start not in inactive:
            found = list(_device_constructors(toks, name, open_, close))
            if found:
                out[name] = found
    return out


def _built_on_the_host(unit: Unit, names: Iterable[str], inactive: Container[int]) -> set[str]:
    """Those of ``names`` that a host function of the file (no CUDA targets) names in its body,
    or returns from a `return {...}`."""
    toks = unit.tokens
    wanted = set(names)
    built: set[str] = set()
    for f in functions(unit) if wanted else ():
        if f.specifiers & _TARGETS or toks[f.name_index].start in inactive:
            continue  # a function with CUDA targets (or none the HIP build compiles)
        body = {toks[k].text for k in range(f.open, f.close)}
        braces = any(
            toks[k].text == "return" and toks[k + 1].text == "{" for k in range(f.open, f.close)
        )
        built |= {n for n in wanted if n in body or (braces and n in f.specifiers)}
    return built


def _device_constructors(toks: Sequence[Token], name: str, open_: int, close: int) -> Iterator[int]:
    """The `__device__` token of each constructor of class ``name`` declared `__device__`
    without `__host__` at the body's own level."""
    k = open_ + 1
    while k < close:
        text = toks[k].text
        if text == name and toks[k + 1].text == "(" and toks[k - 1].text not in ("~", "::"):
            head = range(k - 1, max(open_, k - 8), -1)
            words = []
            for j in head:
                if toks[j].text in (";", "}", "{", ":") or toks[j].in_directive:
                    break
                words.append(j)
            device = [j for j in words if toks[j].text == "__device__"]
            if device and not any(toks[j].text == "__host__" for j in words):
                yield device[0]
        if text == "{" and k != open_:
            end = match(toks, k)
            k = end if end is not None else k
        k += 1
