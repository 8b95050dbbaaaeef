"""What the HIP build makes of the macros a tree defines in one file and tests in another.

A project written for both vendors decides its platform once, in a header, and every other file
tests the names that header defines: mscclpp's `device.hpp` defines `MSCCLPP_DEVICE_HIP` under
`#if defined(__HIP_PLATFORM_AMD__)` and `MSCCLPP_DEVICE_CUDA` in its `#else`, and `gpu.hpp`
defines `CUDA_NVLS_API_AVAILABLE` as 0 for HIP.  A file that only tests those names cannot tell
which of its branches the HIP build compiles (round 26: ten findings in mscclpp's CUDA-only
code, all false).  This module answers, per file and then for the tree, with the branch
evaluator of ``conditions``; the answers reach every file's evaluator as settings below its own
`-D` flags (``ProjectIndex.hip_values``, ``hip_undefined``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from .conditions import HipBranches, include_guard
from .directives import CONDITIONAL_NEXT, CONDITIONAL_OPEN, Line
from .hip_build import DEVICE_PASS, HIP_BUILD, HOST_PASS, UNDEFINED


def file_macro_values(
    found: Sequence[Line], names: AbstractSet[str], tree: Mapping[str, object]
) -> dict[str, object]:
    """What both passes of the HIP build give those of ``names`` that the file defines: a
    number or ``DEFINED`` where every definition they compile agrees, ``UNDEFINED`` where
    they compile none; a name is left out where a definition sits under a condition neither
    can decide, the passes disagree, or the file `#undef`s it.  ``tree``: what the rest of
    the tree settles (the file's own names are its own to decide).  The file's include
    guard counts as open, as at its first inclusion, and has no value for the tree: it says
    whether a file includes this one (cuda-samples test `__cuda_cuda_h__` of its copy of
    cuda.h).  ``found``: the file's preprocessor lines (``directives.lines``)."""
    guard = include_guard(found)
    own = {ln.body[0].text for ln in found if ln.word == "define" and ln.body} & names
    own.discard(guard or "")
    build = {**HIP_BUILD, **{n: v for n, v in tree.items() if n not in own}}
    if guard:
        build[guard] = UNDEFINED
    device, host = (
        _one_pass(found, own, {**build, **compile_pass})
        for compile_pass in (DEVICE_PASS, HOST_PASS)
    )
    return {n: v for n, v in device.items() if n in host and host[n] == v}


def _one_pass(
    found: Sequence[Line], names: AbstractSet[str], build: dict[str, object]
) -> dict[str, object]:
    """``file_macro_values`` of one compile pass (``build``: its macros).  A definition that
    the same branch `#undef`s again is the file's own business (mscclpp's atomic.hpp defines
    `MSCCLPP_DEVICE_CUDA` around one `#include` for its CUDA host build): it leaves no value."""
    branches = HipBranches((), build, 1)
    given: dict[str, list[tuple[int, bool | None, object]]] = {}  # (branch, here, value)
    unsure: set[str] = set()
    ids = _BranchIds()
    for line in found:
        branch = ids.at(line.word)
        body = line.body
        if line.word in ("define", "undef") and body and body[0].text in names:
            name, here = body[0].text, branches.here()
            seen = given.setdefault(name, [])
            if line.word == "define":
                seen.append((branch, here, branches.value_of(body) if here else None))
            elif seen and seen[-1][0] == branch:
                seen.pop()  # defined and undefined again in one branch
            else:
                unsure.add(name)
        branches.directive(line)
    return {
        name: value
        for name, seen in given.items()
        if name not in unsure and (value := _settled(seen)) is not None
    }


class _BranchIds:
    """A number for each branch of the file's conditionals, the file's top level 0."""

    def __init__(self) -> None:
        self.open = [0]
        self.serial = 0

    def at(self, word: str) -> int:
        """The branch a directive of ``word`` leaves the lines after it in."""
        if word in CONDITIONAL_OPEN or word in CONDITIONAL_NEXT:
            self.serial += 1
            if word in CONDITIONAL_OPEN:
                self.open.append(self.serial)
            self.open[-1] = self.serial
        elif word == "endif" and len(self.open) > 1:
            self.open.pop()
        return self.open[-1]


def _settled(seen: Sequence[tuple[int, bool | None, object]]) -> object:
    """The value the definitions ``seen`` (branch, here, value) give a name: that of those
    compiled, alike; UNDEFINED where none is; None where one is in doubt or they differ."""
    if any(here is None or (here and v is None) for _, here, v in seen):
        return None
    values = [v for _, here, v in seen if here]
    if not values:
        return UNDEFINED
    return values[0] if all(v == values[0] for v in values) else None


def tree_macro_values(
    per_file: Iterable[tuple[AbstractSet[str], Mapping[str, object]]],
) -> dict[str, object]:
    """The tree's answer from each defining file's (the names it defines, its answers): the
    value the files that define a name for HIP agree on, ``UNDEFINED`` where none does; a name
    some file cannot decide, or that files define differently, is left out."""
    values: dict[str, list[object]] = {}
    undecided: set[str] = set()
    for names, answers in per_file:
        for name in names:
            if name not in answers:
                undecided.add(name)
            elif answers[name] is not UNDEFINED:
                values.setdefault(name, []).append(answers[name])
            else:
                values.setdefault(name, [])
    out: dict[str, object] = {}
    for name, given in values.items():
        if name in undecided:
            continue
        if not given:
            out[name] = UNDEFINED
        elif all(v == given[0] for v in given):
            out[name] = given[0]
    return out
