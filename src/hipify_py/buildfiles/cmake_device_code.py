"""CMake custom commands that compile a kernel file to a device-code file a program loads.

Driver-API programs load their kernels at run time (``cuModuleLoad``/``cuModuleLoadData``,
``hipModuleLoad``/``hipModuleLoadData`` after conversion) from a file an
``add_custom_command`` writes with ``nvcc -fatbin`` or ``nvcc -cubin``. Clang has neither flag;
its counterpart is a device-only compile, whose output for HIP is an offload bundle holding one
code object per ``--offload-arch``, which ``hipModuleLoad``/``hipModuleLoadData`` accept:

    ${CMAKE_HIP_COMPILER} ... -o k.fatbin -x hip --offload-device-only -O3
        ${hipify_device_flags} ${hipify_device_includes} k.hip

A custom command gets none of the flags CMake gives the HIP sources of a target: not
``CMAKE_HIP_FLAGS`` (``--rocm-path``, the device libraries, the ROCm include directory first),
not the directory's include directories. The converted file reads both into lists just before
the command. ``-O3`` because nvcc optimises device code by default and clang does not.

``nvcc -ptx`` writes PTX for the driver's JIT compiler; AMD GPUs have no such intermediate
form that a program can hand to the runtime, so it is reported (HB108, error).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..rules import build_pass, declare_rule
from .cmake_commands import Command, commands
from .unit import BUILD_EDITS, BuildFile

RULE = "build/cmake"
PTX_FILE = declare_rule(
    "HB108",
    "ptx-file",
    Severity.ERROR,
    "a build step writes PTX for the CUDA driver's JIT compiler: AMD GPUs cannot load PTX",
    """
    ## What it detects
    `nvcc -ptx` (`--ptx`) in a CMake custom command: a build step that writes a PTX file a
    program loads at run time (`cuModuleLoadDataEx`, `cuLinkAddData` with `CU_JIT_INPUT_PTX`).

    ## Why it breaks on AMD
    PTX is NVIDIA's virtual instruction set, compiled to machine code by the CUDA driver.
    AMD GPUs have no such intermediate form for the HIP runtime: `hipModuleLoadData` takes
    code objects (or an offload bundle of them) only, and `hiprtc`'s linker takes LLVM
    bitcode, not PTX. The custom command fails (clang has no `-ptx`) and the program cannot
    load what it expects.

    ## Example
    ```cmake
    add_custom_command(OUTPUT k.ptx COMMAND ${CMAKE_CUDA_COMPILER} -o k.ptx -ptx k.cu)  # HB108
    ```

    ## How to fix
    Compile the kernel file to a code object instead
    (`${CMAKE_HIP_COMPILER} -x hip --offload-device-only --offload-arch=gfx942 -o k.hsaco k.hip`,
    with the flags of `CMAKE_HIP_FLAGS`) and load that with `hipModuleLoad`, dropping the JIT
    options; or compile the kernel source at run time with hiprtc.
    """,
)
# nvcc's whole-file device-code outputs -> a device-only clang compile (an offload bundle)
_DEVICE_CODE = frozenset({"-fatbin", "--fatbin", "-cubin", "--cubin"})
_PTX = frozenset({"-ptx", "--ptx"})
DEVICE_ONLY = "-x hip --offload-device-only -O3 ${hipify_device_flags} ${hipify_device_includes}"
# before the command: the flags and include directories CMake gives HIP sources, as lists
SETUP = (
    'separate_arguments(hipify_device_flags UNIX_COMMAND "${CMAKE_HIP_FLAGS}")',
    "get_property(hipify_device_includes DIRECTORY PROPERTY INCLUDE_DIRECTORIES)",
    'list(TRANSFORM hipify_device_includes PREPEND "-I")',
)


@build_pass("cmake", "cmake-device-code", tallies=(BUILD_EDITS,))
def device_code(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    for cmd in commands(unit):
        if cmd.name == "add_custom_command":
            yield from _custom_command(unit, cmd)


def _custom_command(unit: BuildFile, cmd: Command) -> Iterator[Edit | Finding]:
    converted = False
    for arg in cmd.args:
        if arg.quoted:
            continue
        if arg.text in _DEVICE_CODE:
            yield Edit(arg.start, arg.end, DEVICE_ONLY, RULE)
            converted = True
        elif arg.text in _PTX:
            yield PTX_FILE.report(
                arg.start,
                arg.end,
                f"nvcc {arg.text} writes PTX, which AMD GPUs cannot load; compile the kernel "
                "to a code object (-x hip --offload-device-only) and load that instead",
            )
    if converted:
        lead = unit.newline + unit.indent_at(cmd.start)
        yield Edit(cmd.start, cmd.start, "".join(f"{x}{lead}" for x in SETUP), RULE)
