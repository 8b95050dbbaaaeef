"""HZ332 template-member-undeclared

## What it detects
`this->NAME` in a member function of a class template of the file, where the class has no base
class and its body never names `NAME`: CudaTextureGen's `CurandArray<Dim>::init()` passes
`this->states` to a kernel, and `CurandArray` holds a `device_array`, no `states` (compile
round 38: a translation unit failed with no finding).

## Why it breaks on AMD
Without a base that could bring the member in, the class is all there is to look in, and clang,
HIP's compiler, looks when it reads the template: "no member named 'states' in
'CurandArray<Dim>'". nvcc's front end waits for an instantiation, and a member function nobody
calls is never instantiated, so the CUDA build never sees the slip. `convert` cannot know what
the code meant.

Not reported: a class with a base (the member may come from it), a class the file also
specializes (`class X<2> {...}`), and a class whose body invokes a function-like macro in
capitals, which may declare the member.

## Example
```cuda
template <int N> struct Pool {
  float* data;
  void clear();
};
template <int N> void Pool<N>::clear() { zero<<<1, N>>>(this->buffer); }  // HZ332
```

## How to fix
Name the member the class has (`this->device_array...`), or delete the dead member function.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import class_bodies, class_head, function_at, innermost_bodies
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule


@hazard_rule(
    "HZ332",
    "template-member-undeclared",
    Severity.ERROR,
    "this->member of a class template that declares no such member and has no base",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if "this" not in unit.identifiers or "template" not in unit.identifiers:
        return
    toks = unit.tokens
    classes, defined_here = _closed_templates(unit)
    tree = {n: frozenset(w) for n, w in ctx.project.closed_templates if n not in defined_here}
    uses = [
        k
        for k in unit.identifier_positions["this"]
        if k + 2 < len(toks) and toks[k + 1].text == "->" and toks[k + 2].kind is Kind.IDENT
    ]
    inner = innermost_bodies(class_bodies(unit), uses)
    for k in uses:
        owner = _owner(unit, k, inner.get(k), classes, tree)
        member = toks[k + 2].text
        if owner is not None and member not in owner[1]:
            yield report(
                toks[k].start,
                toks[k + 2].end,
                f"`this->{member}`: class template `{owner[0]}` declares no member `{member}` "
                f"and has no base class; clang (HIP's compiler) rejects this in the "
                f"template's definition, where nvcc waits for an instantiation",
            )


def _closed_templates(
    unit: Unit,
) -> tuple[dict[str, tuple[tuple[int, int], frozenset[str]]], frozenset[str]]:
    """The file's class templates with no base, not specialized in the file and with no macro
    in their body: name -> (its braces, every name its body holds); and the names of every class
    the file defines (the tree's version of one of them is not the one this file reads)."""
    toks = unit.tokens
    bodies: dict[str, list[tuple[int, int, bool]]] = {}
    for open_, close in class_bodies(unit):
        head = class_head(toks, open_)
        if head is not None:
            at, colon = head
            closed = colon is None and _templated(toks, at - 1)
            bodies.setdefault(toks[at].text, []).append((open_, close, closed))
    out = {}
    for name, found in bodies.items():
        if len(found) != 1 or not found[0][2] or _specialized(unit, name):
            continue
        open_, close, _ = found[0]
        inside = toks[open_ + 1 : close]
        if any(
            t.kind is Kind.IDENT and t.text.isupper() and inside[j + 1].text == "("
            for j, t in enumerate(inside[:-1])
        ):
            continue  # `DECLARE_MEMBERS(...)`: a macro may declare the member
        out[name] = ((open_, close), frozenset(t.text for t in inside if t.kind is Kind.IDENT))
    return out, frozenset(bodies)


def _templated(toks: Sequence[Token], keyword: int) -> bool:
    """`template <...>` right before the class keyword at ``keyword``."""
    if keyword < 1 or toks[keyword - 1].text != ">":
        return False
    open_ = match_angle_backward(toks, keyword - 1)
    return open_ is not None and open_ >= 1 and toks[open_ - 1].text == "template"


def _specialized(unit: Unit, name: str) -> bool:
    """The file writes `class NAME<...>` / `struct NAME<...>`: a specialization of its own."""
    toks = unit.tokens
    return any(
        0 < k < len(toks) - 1
        and toks[k - 1].text in ("class", "struct")
        and toks[k + 1].text == "<"
        for k in unit.identifier_positions.get(name, ())
    )


def _owner(
    unit: Unit,
    k: int,
    inner: int | None,
    classes: dict[str, tuple[tuple[int, int], frozenset[str]]],
    tree: dict[str, frozenset[str]],
) -> tuple[str, frozenset[str]] | None:
    """The class template whose member function holds token ``k``, with the names its body
    holds: the innermost class body of the file around it (``inner``, its `{`; a class of no
    interest here hides the outer one), or for an out-of-class definition `NAME<...>::f`, the
    file's class or else the tree's (``tree``: those of other files)."""
    if inner is not None:
        name = next((n for n, (body, _) in classes.items() if body[0] == inner), None)
        return (name, classes[name][1]) if name is not None else None
    func = function_at(unit, k)
    toks = unit.tokens
    if func is None:
        return None
    j = func.name_index - 1
    if j < 2 or toks[j].text != "::" or toks[j - 1].text != ">":
        return None
    open_ = match_angle_backward(toks, j - 1)
    name = toks[open_ - 1].text if open_ is not None else ""
    if name in classes:
        return name, classes[name][1]
    return (name, tree[name]) if name in tree else None
