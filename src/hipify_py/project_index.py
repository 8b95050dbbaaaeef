"""What a tree says that one of its files cannot: the CUDA API names the project defines itself.

Rules see one file at a time.  A project that ports itself keeps its own definitions of CUDA
names for HIP in a header of its own (ggml's ``vendors/hip.h`` defines ``__vsubss4`` and
``__vsub4`` for its HIP build), so a file that calls them is no call of an API HIP lacks (HZ300
reported three such files on ggml, held out).  ``index_of`` finds, over the texts of a tree's
sources, the names of the mapping tables that some file defines as a macro or a function; the
CLI builds it once per run over a tree (``discover.project_index_of``) and every file's context
carries it.  Pure: the texts come from the caller.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .frontend.conditions import cuda_switches_of, hip_inactive
from .frontend.directives import ARCH, DEFINED_NAME, Line, lines
from .frontend.hip_build import DEVICE_PASS, HIP_BUILD, UNDEFINED
from .frontend.lexer import Lexed, lex
from .frontend.macro_values import file_macro_values, tree_macro_values
from .frontend.namespace_scope import namespaces_declaring
from .project_calls import call_graph, definitions
from .project_declarations import template_declarations
from .project_decorations import decoration_words, decorations
from .project_include_graph import IncludeGraph
from .project_launches import LaunchBlocks
from .project_twins import is_hip_code, twins_of
from .project_types import declared_after_bodies, opaque_handles, record_types
from .project_unused import expanded, header_definitions

if TYPE_CHECKING:
    from .mappings.index import MappingIndex


@dataclass(frozen=True)
class ProjectIndex:
    """``defined``: names of the mapping tables that a file of the tree defines (empty when no
    tree is known: a file checked on its own).  ``hip_macros``: those of them, and
    ``__CUDA_ARCH__``, that a file including HIP's headers defines as macros: the project's
    own HIP form of the call (LightGBM's `#define __shfl_down_sync(mask, val, offset)
    __shfl_down(val, offset)`, whose HIP build never passes a mask on), and ggml's
    `#define __CUDA_ARCH__ 1300` for its HIP build."""

    defined: frozenset[str] = frozenset()
    hip_macros: frozenset[str] = frozenset()
    # `NAME=VALUE` (`NAME=` where the value is no number) of the macros the tree defines in one
    # file and tests in another, whose value the HIP build fixes (``frontend.macro_values``):
    # TransformerEngine's common.h `#define FP4_TYPE_SUPPORTED (CUDA_VERSION >= 12080)` is 0
    # where convert writes CUDA 12.0 (round 11), mscclpp's `CUDA_NVLS_API_AVAILABLE` is 0 for
    # HIP (round 26); and the names the HIP build leaves undefined (mscclpp's
    # `MSCCLPP_DEVICE_CUDA`, defined in the `#else` of `#if defined(__HIP_PLATFORM_AMD__)`)
    hip_values: tuple[str, ...] = ()
    hip_undefined: frozenset[str] = frozenset()
    # (name, the base names of the files that define it) of those: a value reaches only the
    # files that include one of them (``hip_settings``)
    macro_homes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the names some file tests alone right before an `#elif` of the project's HIP switch, and
    # that no file defines: switches of the CUDA build alone, set by its build files
    # (deepmd-kit's `GOOGLE_CUDA`, ``conditions.cuda_switches_of``), undefined in every file
    cuda_switches: frozenset[str] = frozenset()
    # the switches no build of the tree sets (``project_switches``), undefined in every file
    unset_switches: frozenset[str] = frozenset()
    # the namespaces in which the tree declares a constant named warpSize of its own, with its
    # value where a number gives it (flashinfer's `namespace flashinfer::mamba { constexpr
    # unsigned warpSize = 32; }`): there the name is the project's 32, not HIP's run-time
    # wavefront size (round 12: 6 false HZ104)
    warp_size_namespaces: frozenset[tuple[str, int | None]] = frozenset()
    # the tree's CUDA backend directories that have the project's own HIP backend beside them
    # (QUDA's `include/targets/cuda` next to `include/targets/hip`; ginkgo's and stdgpu's
    # `cuda/` next to `hip/`), absolute: the project's HIP build compiles the HIP one, so a
    # file of the CUDA one is not the project's to port (round 15: 8 false findings in QUDA)
    cuda_backends: frozenset[str] = frozenset()
    # the tree's CUDA files beside a HIP file of the same name (FlexFlow's
    # `src/ops/kernels/softmax.cu` and the `softmax.cpp` that includes <hip/hip_runtime.h> and
    # calls MIOpen), or of their name with `hip` for `cuda` (its `cuda_helper.h` and
    # `hip_helper.h`), absolute: the project's HIP build compiles the twin instead (round 29: 5
    # false HZ300 at cuDNN calls, ``twins_of``)
    cuda_twins: frozenset[str] = frozenset()
    # the HIP files those twins are (FlexFlow's `softmax.cpp`): code only its HIP build compiles
    hip_twins: frozenset[str] = frozenset()
    # the tree's copies of CUB's repository (a directory named `cub...` holding `cub/cub.cuh`:
    # TNN's `thirdparty/cub-1.9.10-1`), absolute: its examples and tests are CUB's, which the
    # HIP build replaces with hipCUB (round 19: 3 false findings in TNN's copy)
    library_copies: frozenset[str] = frozenset()
    # the tree's `deadcode`/`attic` directories (``project_backends.retired_dirs_of``) and those
    # its CMake leaves out by default (``project_unbuilt``), absolute
    retired: frozenset[str] = frozenset()
    # the headers in directories no source of the tree reaches (``project_reach``), absolute
    unreached: frozenset[str] = frozenset()
    # the tree's own headers named as CUDA's (darknet's `src/cuda.h`, which its sources include
    # as `"cuda.h"`, round 31: altis's copy lost it to `<hip/hip_runtime.h>`), absolute
    own_cuda_named: frozenset[str] = frozenset()
    # the mask macros the tree defines as 32-bit numbers only (``project_masks``)
    narrow_masks: frozenset[str] = frozenset()
    # (name, file) of each warp-size constant (defined as 32 somewhere in the tree) that a file
    # uses where its code meets the hardware wavefront without defining it
    # (``project_wavefronts``); None where no tree is known, or past its bound.  A header's
    # constant is decided by the uses in the files that include it (``includes``): llm.c's
    # `cuda_common.h` `WARP_SIZE 32U`, which its includers use only in 32-lane groups (round
    # 18, a false HZ107)
    wavefront_constants: tuple[tuple[str, str], ...] | None = None
    # the warp-size constants (``WARP_NAME``) some file of the tree defines as 32 and none as
    # another number: 32 in the files that use them without the definition (nunchaku's
    # `laneId = threadIdx.x % WARP_SIZE` of a `Config` header, round 21), so those files'
    # warp models read what the header says
    warp_constants: frozenset[str] = frozenset()
    # (name, the base names of the files that define it as 32) of those constants: a header
    # between a user and another header's definition that defines the name itself is where
    # the user's value comes from (``includers``)
    warp_constant_homes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the lane masks the tree declares as 64-bit integers in code the HIP build compiles, and
    # nowhere narrower there (``project_masks``)
    wide_masks: frozenset[str] = frozenset()
    # the PTX macros and FP8 range constants the tree's headers define and no file of it
    # names (``project_unused``)
    unused_names: frozenset[str] = frozenset()
    # the device functions the tree defines and no code of it reaches (``project_calls``)
    uncalled: frozenset[str] = frozenset()
    # (file name, the file names it includes): the tree's include graph by base name (two
    # `common.h` are one node: an over-approximation, never a missed includer)
    includes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (file, what it includes) by absolute path, resolved as a compiler would
    # (``project_reach``); None past its bound: ``include_graph`` then reads ``includes``
    include_paths: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    # (header file name, function template it declares without `static`): a source that
    # includes it and defines the template `static` is rejected by clang
    # (``project_declarations``, ``rewrite/static_after_declaration``)
    template_declarations: frozenset[tuple[str, str]] = frozenset()
    # the plain headers a CUDA source includes that need clang's fixes (``project_host_headers``)
    clang_headers: frozenset[str] = frozenset()
    # (header path, function it declares `__host__ __device__` without a body)
    both_declarations: frozenset[tuple[str, str]] = frozenset()
    # (name, rank) of the members and variables the tree declares with a CUDA vector type
    # (``project_declarations.vector_members``, ``rewrite/vector_designators``)
    vector_members: frozenset[tuple[str, int]] = frozenset()
    # whether a build of the tree may wrap Thrust and CUB in a namespace of its own: one of its
    # build texts or sources names a wrapping macro (``project_switches.WRAPPING_MACROS``:
    # AMGX's `-DTHRUST_CUB_WRAPPED_NAMESPACE=amgx`, lightseq's `#define CUB_NS_PREFIX`).
    # Elsewhere `X::thrust` is a namespace of the project's own (Boost.Multi's
    # `multi::thrust::cuda::array`, round 32: 6 false HZ323).  True where no tree is known.
    wraps_thrust: bool = True
    # the names `A<T>::NAME` reaches in `sizeof(...)` or a functional cast somewhere in the tree
    # that a file of it declares as a type (a constructor defines a function of the name too):
    # clang wants `typename` there, nvcc does not (``rewrite/member_types``)
    member_types: frozenset[str] = frozenset()
    # the base names of the headers only branches the HIP build skips include
    # (``project_gated_includes``: MegEngine's `libcuda-wrap_11.8.h`)
    skipped_headers: frozenset[str] = frozenset()
    # the kernels every launch of which in the tree runs blocks of at most 32 threads
    # (``project_launches``: cuSZp's, launched from another file than theirs, round 35), and
    # the device functions only they call (``project_calls``)
    block32_functions: frozenset[str] = frozenset()
    # the base names of the files that declare the error type of the CUDA driver or runtime
    # API themselves: copies of the API for a driver loaded at run time (gdrcopy's
    # `cuda_wrapper.h`), whose other names are the project's own (HZ302)
    api_copies: frozenset[str] = frozenset()
    # (macro, the CUDA targets it spells through the tree's macros): cudaKDTree's `__both__`
    # (``project_decorations``, ``rewrite/specialization_targets``)
    decorations: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the CUDA API functions the tree defines with a body: a tree with many implements the API
    # itself (cuda-metal's runtime over Metal, round 39), no program to port (HZ321)
    implemented: frozenset[str] = frozenset()
    # (class template with no base, the names its body holds) of the tree's headers
    # (``project_templates``, HZ332)
    closed_templates: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (name, value) of the constants that size cooperative-groups tiles (``project_tiles``)
    tile_constants: tuple[tuple[str, int], ...] = ()

    @cached_property
    def include_graph(self) -> IncludeGraph:
        if self.include_paths is None:
            return IncludeGraph(self.includes, by_path=False)
        return IncludeGraph(self.include_paths, by_path=True)

    @cached_property
    def _warp_homes(self) -> dict[str, tuple[str, ...]]:
        return dict(self.warp_constant_homes)

    @cached_property
    def _reachers(self) -> dict[str, frozenset[str]]:
        """Home file name -> the file names that include it, directly or through other
        headers, and itself: computed once per home of ``macro_homes`` (base names, so read
        on the graph of base names)."""
        up = IncludeGraph(self.includes, by_path=False).up
        out: dict[str, frozenset[str]] = {}
        for _name, homes in self.macro_homes:
            for home in homes:
                if home not in out:
                    seen, todo = {home}, [home]
                    while todo:
                        for parent in up.get(todo.pop(), ()):
                            if parent not in seen:
                                seen.add(parent)
                                todo.append(parent)
                    out[home] = frozenset(seen)
        return out

    def hip_settings(self, path: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """``hip_values`` and ``hip_undefined`` of the names a file of ``path``'s includes
        (or the file itself) defines: in a collection of programs, one program's
        `#define USE_TEXTURE 1` says nothing of another's `#if USE_TEXTURE`."""
        base = Path(path).name
        reaching = {
            name
            for name, homes in self.macro_homes
            if any(base in self._reachers[h] for h in homes)
        }
        values = tuple(v for v in self.hip_values if v.partition("=")[0] in reaching)
        return values, self.hip_undefined & reaching | self.cuda_switches | self.unset_switches

    def includers(self, name: str, header: str) -> list[str]:
        """The files that use the constant ``name`` in code of hardware wavefronts and
        include ``header`` (a path), directly or through other headers that do not define
        ``name`` themselves: flash-fft-conv's `monarch_cuda_shared.h` includes the sub-headers
        that define `WARP_SIZE 32` and defines it again before its kernels (round 17: 4 false
        HZ107 at the sub-headers, where changing the value fixes nothing)."""
        graph = self.include_graph
        target = graph.node(header)
        shadows = set(self._warp_homes.get(name, ())) - {Path(header).name}
        out = []
        for constant, path in self.wavefront_constants or ():
            if constant != name:
                continue
            start = graph.node(path)
            seen, todo = set(), [start]
            while todo and target not in seen:
                node = todo.pop()
                if node not in seen:
                    seen.add(node)
                    if Path(node).name not in shadows or node == start:
                        todo.extend(graph.down.get(node, ()))
            if target in seen:
                out.append(path)
        return out

    def digest(self) -> str:
        """A short hash of the index, for the per-file cache key (a file's findings depend on
        what the rest of its tree defines)."""
        parts = (
            sorted(self.defined),
            sorted(self.hip_macros),
            list(self.hip_values),
            sorted(self.hip_undefined),
            [f"{n}<{','.join(h)}" for n, h in self.macro_homes],
            sorted(self.cuda_switches),
            sorted(self.unset_switches),
            sorted(f"{n}={v}" for n, v in self.warp_size_namespaces),
            sorted(self.cuda_backends),
            sorted(self.cuda_twins),
            sorted(self.hip_twins),
            sorted(self.retired),
            sorted(self.unreached),
            sorted(self.library_copies),
            sorted(self.own_cuda_named),
            sorted(self.narrow_masks),
            [str(self.wraps_thrust)],
            sorted(self.skipped_headers),
            sorted(self.block32_functions),
            sorted(self.api_copies),
            sorted(self.member_types),
            ["-"]
            if self.wavefront_constants is None
            else [f"{n}={p}" for n, p in self.wavefront_constants],
            [f"{n}<{','.join(i)}" for n, i in self.includes],
            [f"{n}<{','.join(i)}" for n, i in self.include_paths or ()],
            sorted(self.warp_constants),
            [f"{n}<{','.join(h)}" for n, h in self.warp_constant_homes],
            sorted(self.wide_masks),
            sorted(self.unused_names),
            sorted(self.uncalled),
            sorted(f"{h}:{n}" for h, n in self.template_declarations),
            sorted(f"{h}:{n}" for h, n in self.both_declarations),
            sorted(self.clang_headers),
            sorted(f"{n}:{r}" for n, r in self.vector_members),
            [f"{n}:{','.join(w)}" for n, w in self.closed_templates],
            [f"{n}={v}" for n, v in self.tile_constants],
            sorted(self.implemented),
            [f"{n}={' '.join(t)}" for n, t in self.decorations],
        )
        text = "\0".join("\n".join(p) for p in parts)
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


# `#include <path>` / `#include "path"`: the path (the include graph, ``project_reach``)
INCLUDE = re.compile(rb"#[ \t]*include[ \t]*[<\"]([^>\"\n]+)[>\"]")
_INCLUDES_HIP = re.compile(rb"#[ \t]*include[ \t]*[<\"]hip/")


def index_of(
    texts: Iterable[tuple[str, bytes]],
    mappings: MappingIndex,
    also: Callable[[str, bytes], None] | None = None,
    launches: LaunchBlocks | None = None,
) -> ProjectIndex:
    """What the sources ``texts`` (path, text) define.  ``texts`` is read again (the call
    graph; a header's PTX macro or FP8 range, ``project_unused``): a collection, or re-iterable.
    ``also`` sees each text of the pass (the caller's own questions of the tree: where it uses
    warp-size constants, ``project_wavefronts``, which needs the analyses above this module);
    ``launches``, filled by it, gives the kernels of 32-thread blocks."""
    names: set[str] = set()
    headers: set[str] = set()  # what headers define that may be used nowhere
    handles: list[tuple[str, str]] = []
    includes: dict[str, set[str]] = {}
    hip_macros: set[str] = set()
    macros_of: dict[str, set[str]] = {}  # path -> the macros it defines
    tested_elsewhere: set[str] = set()  # names a file tests in `#if` lines without defining them
    warp_size: set[tuple[str, int | None]] = set()
    cuda_switches: set[str] = set()
    hip_code: list[tuple[Path, bool]] = []  # each file, and whether it is HIP code
    defined: set[str] = set()  # the names of the functions the tree defines
    templates: set[tuple[str, str]] = set()
    types: set[str] = set()  # the type names the tree declares
    members: set[str] = set()  # the names `A<T>::NAME(` and `A<T>::NAME)` reach
    api_copies: set[str] = set()  # the files that declare the runtime's or driver's types
    words: list[tuple[str, set[str]]] = []  # the words of each macro made of words alone
    for path, data in texts:
        lexed: Lexed | None = None  # lexed once, and only for the questions below that need it
        if also is not None:
            also(path, data)
        headers |= header_definitions(path, data)
        templates |= template_declarations(path, data)
        words.extend(decoration_words(data).items())
        _record_includes(path, data, includes)
        if _WARP_SIZE_DECLARED.search(data):
            lexed = lex(data.decode("utf-8", "replace"))
            warp_size |= namespaces_declaring(lexed.tokens, "warpSize")
        hip = _INCLUDES_HIP.search(data) is not None
        where = Path(path).absolute()
        hip_code.append((where, hip or where.suffix == ".hip" or is_hip_code(data)))
        file_macros = {m.group(1).decode("ascii") for m in DEFINED_NAME.finditer(data)}
        names |= file_macros
        hip_macros |= file_macros if hip else set()
        macros_of[path] = file_macros
        tested_elsewhere |= _tested(data) - file_macros
        defined.update(_functions(data))
        if _declarations(data, names, types, members) & _API_RESULTS:
            api_copies.add(Path(path).name)
        handles.extend(opaque_handles(data))
        if _ELIF_HIP_SWITCH.search(data):
            lexed = lexed or lex(data.decode("utf-8", "replace"))
            cuda_switches |= cuda_switches_of(lines(lexed.tokens, lexed.directives))
        if not hip and _HIP_SWITCH.search(data):
            mapped = mappings.known(file_macros).keys()
            hip_macros |= _defined_for_hip(lexed or lex(data.decode("utf-8", "replace")), mapped)
    names.update(defined, (struct for struct, handle in handles if mappings.known({handle})))
    known = frozenset(mappings.known(names))
    graph = call_graph(texts, defined)
    block32 = launches.block32() if launches is not None else frozenset()
    values, homes = _macro_values(texts, macros_of, tested_elsewhere)
    return ProjectIndex(
        known,
        frozenset((known | {ARCH}) & hip_macros),
        _settings(values),
        frozenset(n for n, v in values.items() if v is UNDEFINED),
        tuple(sorted((n, tuple(sorted(homes[n]))) for n in values)),
        warp_size_namespaces=frozenset(warp_size),
        cuda_switches=frozenset(cuda_switches.difference(*macros_of.values())),
        **twins_of(hip_code, includes)._asdict(),
        includes=tuple(sorted((n, tuple(sorted(i))) for n, i in includes.items())),
        unused_names=frozenset(headers - expanded(texts, headers)) if headers else frozenset(),
        uncalled=graph.uncalled(),
        block32_functions=block32 | graph.called_only_from(block32),
        template_declarations=frozenset(templates),
        member_types=frozenset(types & members),
        api_copies=frozenset(api_copies),
        implemented=frozenset(n for n, e in mappings.known(defined).items() if e.kind == _FN),
        decorations=tuple(sorted((n, tuple(sorted(t))) for n, t in decorations(words).items())),
    )


def _declarations(data: bytes, names: set[str], types: set[str], members: set[str]) -> set[str]:
    """Record the types and enumerators ``data`` declares (``record_types``), and the names
    it declares after a body, in ``names``; the type names and those, which it returns."""
    declared = record_types(data, names, types, members) | set(declared_after_bodies(data))
    names |= declared
    return declared


def _settings(values: dict[str, object]) -> tuple[str, ...]:
    """`NAME=VALUE` (`NAME=` where the value is no number) of the macros the HIP build sets."""
    return tuple(
        sorted(
            f"{n}={v if isinstance(v, int) else ''}"
            for n, v in values.items()
            if v is not UNDEFINED
        )
    )


# a line that may test the project's own HIP build (`#if defined(USE_ROCM)`; hip_build.hip_switch
# decides): only a file with one can define a macro for its HIP build alone
_HIP_SWITCH = re.compile(rb"#[ \t]*(?:if|ifdef|ifndef|elif)\b[^\n]*(?:HIP|ROCM|ROCm)")
# an `#elif` that may test it: only a file with one can name a CUDA switch (``cuda_switches_of``)
_ELIF_HIP_SWITCH = re.compile(rb"#[ \t]*elif(?:def)?\b[^\n]*(?:HIP|ROCM|ROCm)")


def _defined_for_hip(lexed: Lexed, mapped: AbstractSet[str]) -> set[str]:
    """Those of ``mapped`` (the mapped names the file defines) and ``__CUDA_ARCH__`` that the
    file defines as macros in code only its HIP build compiles (exllamav2's compat.cuh: `#if
    defined(USE_ROCM)` / `#define __shfl_down_sync(mask, var, laneMask) __shfl_down(var,
    laneMask)`, round 14: 3 false HZ106), the file lexed only when it has a HIP switch.  A
    macro of no parameters (HeCBench ge-spmm's `#define __syncwarp()`) takes no mask, and says
    nothing of a masked call."""
    hip_only = hip_inactive(lexed.tokens, lexed.directives, cuda=True)
    candidates = mapped | {ARCH}
    toks = lexed.tokens
    out = set()
    for d in lexed.directives:
        if d + 4 < len(toks) and toks[d + 1].text == "define" and toks[d + 2].text in candidates:
            maskless = toks[d + 3].text == "(" and toks[d + 4].text == ")"
            if toks[d].start in hip_only and not maskless:
                out.add(toks[d + 2].text)
    return out


# an `#if`/`#ifdef`/`#ifndef`/`#elif` line and the names it tests
_CONDITION = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b([^\n]*)", re.M)
_NAME = re.compile(rb"[A-Za-z_]\w*")
# what the tree's macro values (``frontend.macro_values``) lex at most: their files' bytes
_MACRO_BYTES = 16 << 20


def _tested(data: bytes) -> set[str]:
    """The names the `#if` lines of ``data`` test."""
    return {n.decode("ascii") for m in _CONDITION.finditer(data) for n in _NAME.findall(m.group(1))}


def _macro_values(
    texts: Iterable[tuple[str, bytes]], macros_of: dict[str, set[str]], tested: set[str]
) -> tuple[dict[str, object], dict[str, set[str]]]:
    """What the HIP build gives the macros that one file of the tree defines and another
    tests: the files that define them are read again (up to ``_MACRO_BYTES``), and each
    round of ``file_macro_values`` starts from what the last settled, until nothing changes
    (mscclpp's `MSCCLPP_BULK_AVAILABLE` tests `MSCCLPP_DEVICE_CUDA` of another header); and
    the base names of the files that define each."""
    # what the HIP build itself fixes (its version and platform macros) no file's definition
    # changes: flashinfer's IDE-only `#define __CUDACC_VER_MAJOR__ 12` is no HIP build's
    tested = tested - HIP_BUILD.keys() - DEVICE_PASS.keys()
    wanted = {path: own & tested for path, own in macros_of.items() if own & tested}
    found: list[tuple[set[str], list[Line]]] = []
    budget = _MACRO_BYTES
    for path, data in texts:
        own = wanted.get(path)
        if own is None:
            continue
        budget -= len(data)
        lexed = lex(data.decode("utf-8", "replace")) if budget >= 0 else None
        found.append((own, list(lines(lexed.tokens, lexed.directives)) if lexed else []))
    tree: dict[str, object] = {}
    for _ in range(3):
        settled = tree_macro_values(
            (own, file_macro_values(file_lines, own, tree) if file_lines else {})
            for own, file_lines in found
        )
        if settled == tree:
            break
        tree = settled
    homes: dict[str, set[str]] = {}
    for path, own in wanted.items():
        for name in own:
            homes.setdefault(name, set()).add(Path(path).name)
    return tree, homes


# the error types every function of the driver and runtime APIs returns: a file that declares
# one copies the API for a library it loads itself (a shim for a type older CUDA lacks, as
# NCCL's `CUmemFabricHandle`, never declares these)
_API_RESULTS = frozenset({"CUresult", "cudaError_t"})

_FN = "function"  # an entry's kind: an API function

# `warpSize = ...` or `warpSize{...}`, not `warpSize == 64`: only such files are lexed
_WARP_SIZE_DECLARED = re.compile(rb"\bwarpSize[ \t]*(?:=(?!=)|\{)")


def _record_includes(path: str, data: bytes, includes: dict[str, set[str]]) -> None:
    """Add the base names of the files ``data`` includes to its node of ``includes``."""
    included = {Path(m.group(1).decode("utf-8", "replace")).name for m in INCLUDE.finditer(data)}
    if included:
        includes.setdefault(Path(path).name, set()).update(included)


def _functions(data: bytes) -> Iterator[str]:
    """The names of the functions ``data`` defines (``project_calls.definitions``)."""
    return (name for name, _at, _brace in definitions(data))
