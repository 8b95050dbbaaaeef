"""Code nothing calls: the definitions of the functions no code of the tree reaches
(``ProjectIndex.uncalled``, found by ``project_calls``).  Nothing emits them, and nothing
instantiates an uncalled template, so a hazard that bites where code runs (``RuleInfo.bites``:
wave-size arithmetic, a barrier) never bites in one, and one that bites where a template is
instantiated (HIP's 64-bit mask static_assert, an unavailable texture fetch) never bites in an
uncalled template; the readers judged such findings false (flashlight's copy of moderngpu's
scan templates, cusp's `TexVector`).  One that bites where code is emitted (PTX text, which
only the assembler rejects) never bites in an uncalled template, `static` or inline function,
which the compiler never emits.  A hazard the compiler meets wherever it reads the code (an
undeclared API, a PTX constraint HIP-Clang rejects) stays: a function nobody calls is still
compiled.

A project's public headers (below an `include` directory) are the API its users call, so their
functions keep their findings (raft's `include/raft/util/device_loads_stores.cuh` PTX loads,
which raft itself never calls, are cuVS's and cuML's); not in a copy of another project that
a tree vendors (warp-ctc's `include/contrib/moderngpu/include`), whose users are in the tree.
``policy.kept_in_file`` drops what lies in these ranges."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from .analysis.functions import declaration_head, functions
from .frontend.conditions import Inactive
from .frontend.directives import lines
from .frontend.unit import Unit
from .project_index import ProjectIndex


@dataclass(frozen=True)
class Uncalled:
    """The ranges of a file's uncalled functions, of those that are templates, and of those
    the compiler emits only where called (``discardable``: templates, and `static` or inline
    functions, `__forceinline__` and the projects' `*_INLINE` macros alike)."""

    functions: Inactive = Inactive(())
    templates: Inactive = Inactive(())
    discardable: Inactive = Inactive(())
    macros: Inactive = Inactive(())  # no code there is ever compiled, whatever bites


def uncalled_in(unit: Unit, project: ProjectIndex) -> Uncalled:
    """The functions of ``unit`` that the tree never calls, each from its declaration's head
    (a `template <...>`, a mask parameter) to its closing brace; and the macros it never
    expands (``_unexpanded``)."""
    macros = _unexpanded(unit)
    if not project.uncalled or not project.uncalled & unit.identifiers or _public(unit.path):
        return Uncalled(macros=macros)
    toks = unit.tokens
    ranges, templates, discardable = [], [], []
    for f in functions(unit):
        if f.name in project.uncalled:
            head = declaration_head(toks, f)
            # from the first token after the preprocessor lines before it
            start = max((k + 1 for k in head if toks[k].in_directive), default=head.start)
            span = (toks[start].start, toks[f.close].end)
            ranges.append(span)
            words = [toks[k].text for k in head]
            if "template" in words:
                templates.append(span)
            if any(
                w in ("template", "static", "constexpr") or "inline" in w.lower() for w in words
            ):
                discardable.append(span)
    return Uncalled(
        Inactive(tuple(ranges)), Inactive(tuple(templates)), Inactive(tuple(discardable)), macros
    )


def _unexpanded(unit: Unit) -> Inactive:
    """The `#define` lines of a source file whose macro it never names again: no code holds
    their bodies (100-days-cuda's `CHECK_CUDNN`, defined and never used, round 42: a false
    HZ300 for its cuDNN names; LeetCUDA's `CP_ASYNC_CG`, round 15).  A header's macros may be
    expanded by the files that include it."""
    if not unit.is_source or "define" not in unit.identifiers:
        return Inactive(())
    positions = unit.identifier_positions
    return Inactive(
        tuple(
            (line.start, line.end)
            for line in lines(unit.tokens, unit.directives)
            if line.word == "define"
            and line.body
            and len(positions.get(line.body[0].text, ())) == 1
        )
    )


# the directories a project keeps other projects' code in
_VENDORED = frozenset(
    {"third_party", "thirdparty", "3rdparty", "third-party", "external", "externals", "extern"}
    | {"contrib", "vendor", "vendored", "deps"}
)


def _public(path: str) -> bool:
    """A header of the project's public API: below an `include` directory, in no vendored
    copy of another project."""
    parts = {p.lower() for p in PurePath(path).parts[:-1]}
    return "include" in parts and not parts & _VENDORED
