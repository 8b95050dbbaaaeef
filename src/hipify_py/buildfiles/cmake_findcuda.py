"""CMake's deprecated FindCUDA module, ported where the HIP language says the same thing.

Older projects build with ``find_package(CUDA)``, ``cuda_add_executable`` and a
``CUDA_NVCC_FLAGS`` string instead of the CUDA language.  With the sources renamed to ``.hip``,
``add_executable`` on the HIP language compiles them as FindCUDA's command did with nvcc, and the
flags string is what ``CMAKE_HIP_FLAGS`` holds.  The forms with no one-to-one HIP spelling
(``OPTIONS`` lists, ``cuda_compile``, a flags list written with ``;``) stay reported (HB103).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..edits import Edit
from ..findings import Finding, Severity
from ..rules import declare_rule
from .cmake_commands import Command
from .unit import BuildFile

RULE = "build/cmake"

LEGACY_FINDCUDA = declare_rule(
    "HB103",
    "legacy-findcuda",
    Severity.WARNING,
    "legacy FindCUDA command: port to the HIP language by hand",
    """
    ## What it detects
    Commands and variables of CMake's deprecated FindCUDA module that have no one-to-one form
    in CMake's HIP language: `cuda_compile`, `cuda_wrap_srcs`, `cuda_add_executable(... OPTIONS
    ...)`, a `CUDA_NVCC_FLAGS` list built with `;`, ...  The plain forms are converted:
    `cuda_add_executable`/`cuda_add_library` become `add_executable`/`add_library`,
    `cuda_include_directories` becomes `include_directories`, `set(CUDA_NVCC_FLAGS "...")` and
    `list(APPEND CUDA_NVCC_FLAGS ...)` set `CMAKE_HIP_FLAGS`, and `find_package(CUDA)` becomes
    `enable_language(HIP)` (with `CMAKE_HIP_ARCHITECTURES` defaulting to the `--offload-arch`
    targets) plus `find_package(hip)`.

    ## Why it breaks on AMD
    They drive nvcc directly. ROCm's old FindHIP module offers `hip_add_executable`, but the
    supported way is CMake's HIP language, which needs the project restructured the modern way.

    ## Example
    ```cmake
    find_package(CUDA REQUIRED)
    cuda_add_executable(app main.cu OPTIONS -G)   # HB103
    ```

    ## How to fix
    Declare `project(app LANGUAGES CXX HIP)`, use `add_executable(app main.hip)` and put the
    flags in `target_compile_options`; then run `convert` again on the result.
    """,
)

LEGACY_COMMANDS = frozenset(
    {
        "cuda_add_executable",
        "cuda_add_library",
        "cuda_compile",
        "cuda_compile_ptx",
        "cuda_wrap_srcs",
        "cuda_include_directories",
        "cuda_add_cublas_to_target",
        "cuda_add_cufft_to_target",
        "cuda_select_nvcc_arch_flags",
        "cuda_build_clean_target",
    }
)
_PORTED = {
    "cuda_add_executable": "add_executable",
    "cuda_add_library": "add_library",
    "cuda_include_directories": "include_directories",
}
_FLAGS = "CUDA_NVCC_FLAGS"


def legacy_command(cmd: Command) -> tuple[Command | None, list[Edit | Finding]]:
    """A FindCUDA command: the HIP-language command it became (for the converter to treat as
    its own, e.g. for ``hip::host``) with the rename, or None and the finding."""
    port = _PORTED.get(cmd.name)
    if port is None or any(a.text == "OPTIONS" and not a.quoted for a in cmd.args):
        message = f"{cmd.name}() is FindCUDA's: port to HIP"
        return None, [LEGACY_FINDCUDA.report(cmd.start, cmd.open, message)]
    return replace(cmd, name=port), [Edit(cmd.start, cmd.start + len(cmd.name), port, RULE)]


def flags_variable(unit: BuildFile, cmd: Command, start: int, end: int) -> Iterator[Edit | Finding]:
    """``CUDA_NVCC_FLAGS`` at ``start``: ``CMAKE_HIP_FLAGS`` where it is a space-separated
    string (``set(V "${V} -O3")``, ``${V}`` inside one) or a one-line ``list(APPEND V a b)``
    of plain words, which becomes ``string(APPEND CMAKE_HIP_FLAGS " a b")``."""
    names = [a.text for a in cmd.args]
    if cmd.name == "list" and names[:2] == ["APPEND", _FLAGS] and start == cmd.args[1].start:
        values = cmd.args[2:]
        one_line = "\n" not in unit.text[cmd.open : cmd.close]
        if values and one_line and not any(a.quoted or ";" in a.text for a in values):
            yield Edit(cmd.start, cmd.open, "string", RULE)
            yield Edit(start, end, 'CMAKE_HIP_FLAGS "', RULE)
            yield Edit(values[-1].end, values[-1].end, '"', RULE)
            return
    elif cmd.name == "set" and names[:1] == [_FLAGS] and len(cmd.args) == 2:
        # the variable, and ${CUDA_NVCC_FLAGS} inside its one string
        if cmd.args[1].quoted and ";" not in names[1]:
            yield Edit(start, end, "CMAKE_HIP_FLAGS", RULE)
            return
    yield LEGACY_FINDCUDA.report(start, end, f"{_FLAGS} is FindCUDA's (a flags list)")


def needs_hip_language(cmds: list[Command]) -> bool:
    """``find_package(CUDA)`` in a file that declares no CUDA language: FindCUDA compiled the
    sources itself; the HIP language must be enabled for ``add_executable`` to compile them."""
    legacy = any(c.name == "find_package" and c.args[:1] and c.args[0].text == "CUDA" for c in cmds)
    declared = any(
        c.name in ("project", "enable_language") and any(a.text == "CUDA" for a in c.args)
        for c in cmds
    )
    return legacy and not declared


def enable_hip_language(archs: str) -> tuple[str, ...]:
    """The lines before ``find_package(hip)`` in such a file.  FindCUDA projects name their
    GPUs in the nvcc flags (``-arch=sm_80``, converted to ``--offload-arch``); without
    ``CMAKE_HIP_ARCHITECTURES`` CMake would add its own default target (gfx906 on a machine
    with no AMD GPU) to every compile, so the conversion's targets are the default."""
    return (
        "if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)",
        f"  set(CMAKE_HIP_ARCHITECTURES {archs})",
        "endif()",
        "enable_language(HIP)",
    )
