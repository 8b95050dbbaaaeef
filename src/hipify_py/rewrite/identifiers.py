"""Rename CUDA API identifiers through the mapping tables, in every preprocessor branch.

Only identifier tokens are touched, so comments and string literals are never rewritten. Every
occurrence of a mapped name is renamed, members and qualified names included: a project that
declares its own ``cudaMalloc`` (a struct member, a function in its namespace) gets the declaration
and every use renamed alike, so the output stays consistent. Only CUDA-specific names are mapped
(everything else in the tables is ``cu*``/``__*``-prefixed), so user code that merely shares a
common word is not touched. The name a ``#define`` defines and its parameters are never renamed
(portability shims keep working), and the CUDA version macros are left to ``version_gates``.
`__CUDACC__` stays in a file that tests HIP's compiler macros itself
(``conditions.tests_hip_compiler``): there it names NVIDIA's compiler alone. In a file that
includes HIP's own headers (a project's HIP compat header, ggml's ``vendors/hip.h``: ``typedef
__hip_fp8_e4m3 __nv_fp8_e4m3;``), the name a ``typedef`` or ``using`` declares is a CUDA spelling
the project gives a HIP type: renamed, it would redeclare HIP's type as something else; so are
those names, and the one an `auto NAME =` declares, in code only the project's HIP build compiles
(``kept_aliases``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.declared_types import aliases
from ..analysis.tokens import cached
from ..context import Context
from ..edits import Edit
from ..frontend.conditions import hip_written_in, tests_hip_compiler
from ..frontend.directives import includes
from ..frontend.hip_build import NVIDIA_COMPILER_MACRO
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from ..mappings.provenance import rename_rule
from ..rules import Tally, rewrite_pass
from ._macro_definitions import definition_roles
from .arguments import renamed_for_arity
from .version_gates import VERSION_MACROS


@rewrite_pass(
    "identifiers",
    order=10,
    tallies=(Tally("rename/", "identifiers_renamed", "identifiers renamed"),),
)
def identifiers(unit: Unit, ctx: Context) -> Iterator[Edit]:
    tokens = unit.tokens
    wanted = {
        name: entry
        for name, entry in unit.mapped.items()
        if name not in VERSION_MACROS and is_convertible(entry, ctx.options)  # version_gates
    }
    if not wanted:
        return
    if NVIDIA_COMPILER_MACRO in wanted and tests_hip_compiler(unit):
        del wanted[NVIDIA_COMPILER_MACRO]  # written for both compilers: NVIDIA's alone
    positions = unit.identifier_positions
    roles = definition_roles(unit).keys() | kept_aliases(unit)
    for name, entry in wanted.items():
        default = hip_name(entry, ctx.options)
        rule = rename_rule(entry)
        for i in positions[name]:
            tok = tokens[i]
            if tok.in_directive and unit.directive_word(i) in ("include", "include_next"):
                continue  # a header name: the headers pass owns it
            if i in roles:
                continue  # a #define's own name or parameter (see _macro_definitions)
            new = renamed_for_arity(tokens, i) or default
            if new and new != name:
                yield Edit(tok.start, tok.end, new, rule)


def kept_aliases(unit: Unit) -> frozenset[int]:
    """The tokens of CUDA spellings the project gives HIP's names, which keep that spelling
    (computed once per unit): in a file that includes a ``hip/`` header, the name a ``typedef
    ... NAME;`` or a ``using NAME =`` declares; and in code only the project's HIP build
    compiles (``hip_written_in``: mscclpp's gpu.hpp under `#if defined(MSCCLPP_DEVICE_HIP)`),
    those names and the one `auto NAME = ...` declares (`constexpr auto
    cudaErrorPeerAccessAlreadyEnabled = hipErrorPeerAccessAlreadyEnabled;`: renamed, it would
    redefine HIP's enumerator, issue 23 round 26); and everywhere, the name a `namespace NAME =`
    alias declares."""

    def make() -> frozenset[int]:
        toks = unit.tokens
        hip = any(
            i.path.startswith("hip/") for i in includes(unit.text, unit.tokens, unit.directives)
        )
        names = [a.name for a in aliases(unit)] if {"typedef", "using"} & unit.identifiers else []
        # the name a namespace alias declares, anywhere: deepmd-kit's `namespace cub =
        # hipcub;` renamed would redefine hipcub (rw27, 2 TUs)
        declared = [
            i + 1
            for i in unit.identifier_positions.get("namespace", ())
            if i + 2 < len(toks) and toks[i + 2].text == "="
        ]
        autos = [
            i + 1
            for i in unit.identifier_positions.get("auto", ())
            if i + 2 < len(toks) and toks[i + 2].text == "="
        ]
        # in a file that includes HIP, its aliases anywhere; else only in its HIP-only code.
        # An `auto` name is kept only there either way: converting the file adds a HIP
        # include, and the second conversion must keep what the first kept
        always, where_hip = (names + declared, autos) if hip else (declared, names + autos)
        if not where_hip:  # the file's HIP-only branches are read only when they could matter
            return frozenset(always)
        written = hip_written_in(unit)
        return frozenset([*always, *(i for i in where_hip if toks[i].start in written)])

    return cached(unit, "_kept_aliases", make)
