"""CMake: the CUDA language, settings, architectures, packages and targets -> HIP and ROCm.

One pass over the file's commands proposes every edit: ``project(... CUDA)`` and
``enable_language(CUDA)`` -> HIP, ``CMAKE_CUDA_*`` and ``CUDA_*`` properties -> their HIP
names, architecture values -> ``--offload-arch`` targets, ``find_package(CUDAToolkit|CUDA)`` ->
``find_package(hip)`` plus the ROCm packages the file's targets need, ``CUDA::*`` -> ROCm
targets, nvcc flags -> hipcc flags, and renamed ``.cu`` names -> ``.hip``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..rules import build_pass, declare_rule
from .cmake_commands import Arg, Command, commands
from .cmake_findcuda import (
    LEGACY_COMMANDS,
    enable_hip_language,
    flags_variable,
    legacy_command,
    needs_hip_language,
)
from .cmake_targets import ROCM_INCLUDES_FIRST, host_link, project_languages
from .include_dirs import cmake_include_dirs
from .libraries import NO_ROCM_LIBRARY, is_cuda_library, linked_with, rocm_library
from .names import rename_edits, renamed
from .nvcc_flags import RELOCATABLE_CODE, Word, convert_flags
from .registry import build_system
from .unit import BUILD_EDITS, BuildFile, cut_span, outside, tidy_cuts

RULE = "build/cmake"
build_system(
    "cmake", names=("CMakeLists.txt",), patterns=("*.cmake",), include_dirs=cmake_include_dirs
)

CUDA_ONLY_SETTING = declare_rule(
    "HB101",
    "cuda-only-cmake-setting",
    Severity.WARNING,
    "CMake CUDA setting with no HIP counterpart",
    """
    ## What it detects
    A CMake variable, property or generator expression about the CUDA toolchain that has no
    HIP equivalent: `CMAKE_CUDA_HOST_COMPILER`, `CUDA_RUNTIME_LIBRARY`, `CUDAToolkit_BIN_DIR`,
    a `set(CMAKE_CUDA_COMPILER <path to nvcc>)`,
    `CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES`, `$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>`, ...

    ## Why it breaks on AMD
    CMake's HIP language compiles with ROCm's clang and links the HIP runtime itself; settings
    that choose nvcc's host compiler, the CUDA runtime flavour or toolkit directories mean
    nothing there, and a check for the NVIDIA compiler is false on AMD.

    ## Example
    ```cmake
    set(CMAKE_CUDA_HOST_COMPILER g++-12)   # HB101
    ```

    ## How to fix
    Delete the setting for AMD builds, or use the ROCm one (`ROCM_PATH`, `hip_INCLUDE_DIRS`,
    `CMAKE_HIP_COMPILER`).
    """,
)
# CMAKE_CUDA_<X> / CUDA_<X> property suffixes that HIP has under the same name
_SAME_IN_HIP = frozenset(
    {
        "STANDARD",
        "STANDARD_REQUIRED",
        "EXTENSIONS",
        "ARCHITECTURES",
        "FLAGS",
        "FLAGS_INIT",
        "FLAGS_DEBUG",
        "FLAGS_RELEASE",
        "FLAGS_RELWITHDEBINFO",
        "FLAGS_MINSIZEREL",
        "COMPILER",
        "COMPILER_ID",
        "COMPILER_VERSION",
        "COMPILER_LAUNCHER",
        "VISIBILITY_PRESET",
        "OUTPUT_EXTENSION",
        "CLANG_TIDY",
    }
)
_SEPARABLE = frozenset({"SEPARABLE_COMPILATION", "RESOLVE_DEVICE_SYMBOLS"})
# variables of FindCUDAToolkit / FindCUDA with a hip-config equivalent
_VARIABLES = {
    "CUDAToolkit_FOUND": "hip_FOUND",
    "CUDA_FOUND": "hip_FOUND",
    "CUDAToolkit_VERSION": "hip_VERSION",
    "CUDA_VERSION": "hip_VERSION",
    "CUDAToolkit_INCLUDE_DIRS": "hip_INCLUDE_DIRS",
    "CUDA_INCLUDE_DIRS": "hip_INCLUDE_DIRS",
    "CUDA_TOOLKIT_ROOT_DIR": "ROCM_PATH",
    "CUDAToolkit_ROOT": "ROCM_PATH",
}
_LANGUAGE_COMMANDS = frozenset({"project", "enable_language", "check_language"})
_WORD = re.compile(
    r"\bCMAKE_CUDA_(?P<cm>\w+)|(?<![\w:])CUDA::(?P<target>[\w-]+)"
    r"|\$<(?P<genex>COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID):CUDA\b"
    r"|(?<![\w$])(?P<prop>CUDA_(?P<psuffix>[A-Z_]+))\b"
    r"|(?<![\w])(?P<var>CUDAToolkit_\w+)"
    r"|\$ENV\{(?P<env>CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}"
    r"|\b(?P<feature>cuda)_std_\d+\b"
)
_CU_SOURCE = re.compile(r"[\w./${}-]+\.cu")
_VERSION = re.compile(r"\d+(?:\.\d+)*")
_FLAG_WORD = re.compile(r"[^\s;\"<>]+")
_LIB_FLAG = re.compile(r"-l(?P<lib>[\w-]+)")


@build_pass("cmake", "cmake", tallies=(BUILD_EDITS,))
def convert(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    cmds = commands(unit)
    flags = [p for cmd in cmds if cmd.name not in LEGACY_COMMANDS for p in _flags(unit, cmd, ctx)]
    yield from flags
    rest = list(_settings(unit, ctx, cmds))
    yield from (p for p in rest if isinstance(p, Finding))
    yield from outside(flags, (p for p in rest if isinstance(p, Edit)))


def _settings(unit: BuildFile, ctx: Context, cmds: list[Command]) -> Iterator[Edit | Finding]:
    """Every edit but the flags', command by command (a legacy FindCUDA command first becomes
    its HIP-language form), then the renames and the ROCm packages the targets need."""
    packages: dict[str, int] = {}  # ROCm packages the file's targets need -> first use
    with_language = _sources_with_language(cmds)
    cuda_finds: list[Command] = []
    for original in cmds:
        legacy = original.name in LEGACY_COMMANDS
        cmd, proposals = legacy_command(original) if legacy else (original, [])
        yield from proposals
        if cmd is None:
            continue
        yield from _languages(unit, cmd)
        if _finds_cuda(cmd):
            cuda_finds.append(cmd)
            yield from _find_hip(unit, ctx, cmd, cmds)
        # the targets replace the values whole (`${CUDA_ARCHITECTURES}`: no rename inside)
        arch = list(_arch_values(cmd, ctx))
        for k, arg in enumerate(cmd.args):
            if not any(e.start <= arg.start and arg.end <= e.end for e in arch):
                yield from _arg_words(_Site(unit, ctx, cmd, k, packages), arg)
        yield from arch
        yield from _lines_after(unit, ctx, cmd, cmds, with_language, packages)
    yield from rename_edits(unit, ctx, RULE)
    yield from _package_finds(unit, cmds, packages, cuda_finds)


def _languages(unit: BuildFile, cmd: Command) -> Iterator[Edit]:
    """``project(... CUDA)``, ``enable_language(CUDA)`` and ``PROPERTIES [LINKER_]LANGUAGE
    CUDA``: the language becomes HIP (project() keeps the C/CXX its sources need)."""
    for k, arg in enumerate(cmd.args):
        if arg.text == "CUDA" and (
            cmd.name in _LANGUAGE_COMMANDS
            or k
            and cmd.args[k - 1].text in ("LANGUAGE", "LINKER_LANGUAGE")
        ):
            hip = project_languages(unit, cmd) if cmd.name == "project" else "HIP"
            yield Edit(arg.start, arg.end, hip, RULE)


def _finds_cuda(cmd: Command) -> bool:
    """``find_package(CUDAToolkit ...)`` or the legacy ``find_package(CUDA ...)``."""
    return cmd.name == "find_package" and bool(cmd.args) and cmd.args[0].text in _CUDA_PACKAGES


_CUDA_PACKAGES = ("CUDAToolkit", "CUDA")


def _find_hip(unit: BuildFile, ctx: Context, cmd: Command, cmds: list[Command]) -> Iterator[Edit]:
    """``find_package(CUDAToolkit|CUDA [version])`` -> ``find_package(hip)`` without CUDA's
    version; the legacy FindCUDA one, in a file whose sources need CMake's HIP language,
    enables that language first (FindCUDA compiled them without it)."""
    first = cmd.args[0]
    if first.text == "CUDA" and needs_hip_language(cmds):
        lead = unit.newline + unit.indent_at(cmd.start)
        lines = enable_hip_language(";".join(ctx.options.offload_arch))
        yield Edit(cmd.start, cmd.start, "".join(f"{x}{lead}" for x in lines), RULE)
    yield Edit(first.start, first.end, "hip", RULE)
    if len(cmd.args) > 1 and _VERSION.fullmatch(cmd.args[1].text):  # CUDA's version
        yield Edit(first.end, cmd.args[1].end, "", RULE)


def _lines_after(
    unit: BuildFile,
    ctx: Context,
    cmd: Command,
    cmds: list[Command],
    with_language: set[str],
    packages: dict[str, int],
) -> Iterator[Edit]:
    """The lines a command needs after it: ``LANGUAGE HIP`` for the ``.cu`` sources it lists
    that keep their name, and the ``hip::host`` link of a target built from host sources
    (which needs the hip package)."""
    added = [_kept_cu_sources(unit, ctx, cmd, with_language), host_link(unit, cmd, cmds)]
    if any(added):
        lead = unit.newline + unit.indent_at(cmd.start)
        yield Edit(cmd.close + 1, cmd.close + 1, "".join(f"{lead}{x}" for x in added if x), RULE)
        if added[1]:
            packages.setdefault("hip", cmd.start)


def _sources_with_language(cmds: list[Command]) -> set[str]:
    """Sources a ``set_source_files_properties(... PROPERTIES ... LANGUAGE X)`` already covers."""
    out: set[str] = set()
    for cmd in cmds:
        names = [a.text for a in cmd.args]
        if cmd.name == "set_source_files_properties" and "LANGUAGE" in names:
            out.update(names[: names.index("PROPERTIES")] if "PROPERTIES" in names else names)
    return out


def _kept_cu_sources(unit: BuildFile, ctx: Context, cmd: Command, with_language: set[str]) -> str:
    """``.cu`` sources that keep their name (``--keep-names``, ``--in-place``, excluded files)
    are not HIP sources to CMake by extension: they get ``LANGUAGE HIP`` where they are listed."""
    if cmd.name in ("set_source_files_properties", "file", "set_property", "message"):
        return ""
    kept = [
        a.text
        for a in cmd.args
        if not a.quoted
        and _CU_SOURCE.fullmatch(a.text)
        and a.text not in with_language
        and not renamed(a.text[:-3], unit, ctx)
    ]
    if not kept:
        return ""
    return f"set_source_files_properties({' '.join(kept)} PROPERTIES LANGUAGE HIP)"


class _Site(NamedTuple):
    """Where a CUDA word stands: argument ``k`` of ``cmd``; ``packages`` collects the ROCm
    packages the file's targets need (-> offset of their first use)."""

    unit: BuildFile
    ctx: Context
    cmd: Command
    k: int
    packages: dict[str, int]


def _arg_words(site: _Site, arg: Arg) -> Iterator[Edit | Finding]:
    """The CUDA words inside one argument (each kind of ``_WORD`` has its handler), then the
    argument as a whole where it names a CUDA library to link."""
    for m in _WORD.finditer(site.unit.text, arg.start, arg.end):
        yield from _WORD_HANDLERS[m.lastgroup or ""](m, site)
    if site.cmd.name in ("target_link_libraries", "link_libraries") and not arg.quoted:
        yield from _linked_library(site.ctx, arg)


def _cmake_variable(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``CMAKE_CUDA_X`` -> ``CMAKE_HIP_X`` where HIP has X.  ``set(CMAKE_CUDA_COMPILER
    /usr/local/cuda/bin/nvcc)``: a path to nvcc is no HIP compiler, so it is reported (the
    variable's readers, ``if(CMAKE_CUDA_COMPILER)``, are converted)."""
    cmd = site.cmd
    if m.group("cm") == "COMPILER" and cmd.name == "set" and site.k == 0 and cmd.args[1:]:
        yield CUDA_ONLY_SETTING.report(m.start(), m.end(), f"{m.group()} names an NVIDIA tool")
    else:
        yield from _cuda_setting(m, "cm", "CMAKE_HIP_")


def _imported_target(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``CUDA::cublas`` -> ``roc::hipblas``, whose package the file must then find (linked:
    with the libraries FindCUDAToolkit links it with)."""
    lib = m.group("target")
    rocm = rocm_library(lib, site.ctx.options)
    if rocm is None:
        yield NO_ROCM_LIBRARY.report(m.start(), m.end(), f"CUDA::{lib} has no ROCm counterpart")
        return
    linked = [rocm]
    if site.cmd.name in ("target_link_libraries", "link_libraries"):
        linked += linked_with(lib, site.ctx.options)
    yield Edit(m.start(), m.end(), " ".join(r.target for r in linked), RULE)
    for r in linked:
        if r.package:
            site.packages.setdefault(r.package, site.cmd.start)


def _generator_expression(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``$<COMPILE_LANGUAGE:CUDA>`` -> ``...:HIP>``; ``$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>``
    asks for the NVIDIA compiler, which is never true on AMD."""
    if "LANG_AND_ID" in m.group("genex"):
        yield CUDA_ONLY_SETTING.report(m.start(), m.end(), "a check for the NVIDIA compiler")
    else:
        yield Edit(m.end() - 4, m.end(), "HIP", RULE)


def _property(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """A ``CUDA_X`` property or variable: FindCUDA's variables get their ROCm names,
    ``CUDA_NVCC_FLAGS`` its flags converted, the rest as ``_cuda_setting`` says."""
    prop = m.group("prop")
    if prop in _VARIABLES:
        yield Edit(m.start(), m.end(), _VARIABLES[prop], RULE)
    elif prop == "CUDA_NVCC_FLAGS":
        yield from flags_variable(site.unit, site.cmd, m.start(), m.end())
    else:
        yield from _cuda_setting(m, "psuffix", "HIP_")


def _toolkit_variable(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``CUDAToolkit_X``, set by find_package(CUDAToolkit): its ROCm name, where it has one."""
    var = m.group("var")
    if var in _VARIABLES:
        yield Edit(m.start(), m.end(), _VARIABLES[var], RULE)
    else:
        yield CUDA_ONLY_SETTING.report(m.start(), m.end(), f"{var} has no ROCm counterpart")


def _environment(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``$ENV{CUDA_HOME}`` (or CUDA_PATH, CUDA_ROOT) -> ``$ENV{ROCM_PATH}``."""
    yield Edit(m.start("env"), m.end("env"), "ROCM_PATH", RULE)


def _compile_feature(m: re.Match[str], site: _Site) -> Iterator[Edit | Finding]:
    """``target_compile_features(k PUBLIC cuda_std_17)`` -> ``hip_std_17``."""
    yield Edit(m.start(), m.end("feature"), "hip", RULE)


_WORD_HANDLERS: dict[str, Callable[[re.Match[str], _Site], Iterator[Edit | Finding]]] = {
    "cm": _cmake_variable,
    "target": _imported_target,
    "genex": _generator_expression,
    "prop": _property,
    "var": _toolkit_variable,
    "env": _environment,
    "feature": _compile_feature,
}


def _linked_library(ctx: Context, arg: Arg) -> Iterator[Edit | Finding]:
    """A CUDA library linked by name (``cublas``, ``-lcublas``) -> its ROCm library."""
    lib = _LIB_FLAG.fullmatch(arg.text)
    name = lib.group("lib") if lib else arg.text
    if not is_cuda_library(name):
        return
    rocm = rocm_library(name, ctx.options)
    if rocm is None:
        yield NO_ROCM_LIBRARY.report(arg.start, arg.end, f"{name} has no ROCm counterpart")
    else:
        yield Edit(arg.start, arg.end, f"-l{rocm.link}" if lib else rocm.link, RULE)


def _cuda_setting(m: re.Match[str], group: str, prefix: str) -> Iterator[Edit | Finding]:
    """``CMAKE_CUDA_X`` / ``CUDA_X``: the HIP name where HIP has one, else a finding."""
    suffix = m.group(group)
    if suffix in _SAME_IN_HIP:
        yield Edit(m.start(), m.start(group), prefix, RULE)
    elif suffix in _SEPARABLE:
        yield RELOCATABLE_CODE.report(m.start(), m.end(), f"{m.group()}: HIP has no such property")
    elif group == "cm" or suffix in _CUDA_PROPERTIES:
        yield CUDA_ONLY_SETTING.report(m.start(), m.end(), f"{m.group()} has no HIP counterpart")


# CUDA target/source properties reported when HIP lacks them (other CUDA_* words are left)
_CUDA_PROPERTIES = frozenset({"RUNTIME_LIBRARY", "PTX_COMPILATION", "FATBIN_COMPILATION"})


def _arch_values(cmd: Command, ctx: Context) -> Iterator[Edit]:
    """The values of CMAKE_CUDA_ARCHITECTURES (``set(CMAKE_CUDA_ARCHITECTURES 70 80)``) and of
    the CUDA_ARCHITECTURES property (``PROPERTIES CUDA_ARCHITECTURES "80;90"``) -> the AMD
    targets of ``--offload-arch``."""
    names = [a.text for a in cmd.args]
    if cmd.name == "set" and names[:1] == ["CMAKE_CUDA_ARCHITECTURES"]:
        first = 1
        last = next((i for i, n in enumerate(names) if n in ("CACHE", "PARENT_SCOPE")), len(names))
    elif cmd.name in ("set_property", "set_target_properties") and "CUDA_ARCHITECTURES" in names:
        first = names.index("CUDA_ARCHITECTURES") + 1
        last = first + 1 if cmd.name == "set_target_properties" else len(names)
    else:
        return
    values = cmd.args[first:last]
    if values:
        yield Edit(values[0].start, values[-1].end, ";".join(ctx.options.offload_arch), RULE)


def _flags(unit: BuildFile, cmd: Command, ctx: Context) -> Iterator[Edit | Finding]:
    words = []
    for arg in cmd.args:
        for m in _FLAG_WORD.finditer(arg.text):
            text = m.group()
            offset = arg.start + m.start()
            sep = " "
            if ":-" in text:  # inside a generator expression: $<...:-flag
                cut = text.rindex(":-") + 1
                text, offset, sep = text[cut:], offset + cut, ";"
            end = offset + len(text)
            words.append(Word(text, offset, end, *cut_span(unit.text, offset, end), sep=sep))
    yield from tidy_cuts(unit.text, list(convert_flags(words, ctx, RULE)), RULE)


def _package_finds(
    unit: BuildFile, cmds: list[Command], packages: dict[str, int], cuda_finds: list[Command]
) -> Iterator[Edit]:
    """``find_package`` lines for the ROCm packages the targets need that the file does not
    find yet: after its first find_package(CUDAToolkit) (which became find_package(hip)), or
    before the first use when it finds no CUDA package."""
    found = {cmd.args[0].text.lower() for cmd in cmds if cmd.name == "find_package" and cmd.args}
    needed = [p for p in packages if p not in found]
    if cuda_finds:
        yield from _find_packages_after(unit, cuda_finds[0], [p for p in needed if p != "hip"])
    elif needed:
        yield from _find_packages_before(unit, min(packages[p] for p in needed), needed)


def _find_packages_after(unit: BuildFile, cmd: Command, packages: list[str]) -> Iterator[Edit]:
    """After the find_package(CUDAToolkit) that became find_package(hip): ROCm's headers
    first, then the ROCm packages the file's targets need."""
    lead = unit.newline + unit.indent_at(cmd.start)
    lines = [*ROCM_INCLUDES_FIRST, *(f"find_package({p} REQUIRED)" for p in packages)]
    yield Edit(cmd.close + 1, cmd.close + 1, "".join(f"{lead}{x}" for x in lines), RULE)


def _find_packages_before(unit: BuildFile, offset: int, packages: list[str]) -> Iterator[Edit]:
    lead = unit.newline + unit.indent_at(offset)
    lines = [f"find_package({p} REQUIRED)" for p in packages]
    lines += ROCM_INCLUDES_FIRST if "hip" in packages else ()
    yield Edit(offset, offset, "".join(f"{x}{lead}" for x in lines), RULE)
