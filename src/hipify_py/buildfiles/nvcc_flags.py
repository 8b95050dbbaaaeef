"""nvcc command-line flags -> their hipcc/clang forms, shared by every build system.

A pass hands over the flag words it found (with the span to replace and the span to delete
when the flag goes); ``convert_flags`` proposes the edits, and a finding for what has no
equivalent: dropped when keeping it would break the hipcc command, left otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..rules import RuleInfo, declare_rule

RELOCATABLE_CODE = declare_rule(
    "HB102",
    "relocatable-device-code",
    Severity.WARNING,
    "separable compilation / relocatable device code: needs -fgpu-rdc at compile and link",
    """
    ## What it detects
    CUDA separable compilation: the `CUDA_SEPARABLE_COMPILATION` property, `-rdc=true`,
    `--relocatable-device-code=true`, `-dc` or a `-dlink` device-link step.

    ## Why it breaks on AMD
    HIP has relocatable device code (`-fgpu-rdc`), but no separate device-link step: every
    object must be compiled with `-fgpu-rdc` and the final link must pass `-fgpu-rdc
    --hip-link`. CMake's HIP language has no `HIP_SEPARABLE_COMPILATION` property.

    ## Example
    ```cmake
    set_target_properties(kernels PROPERTIES CUDA_SEPARABLE_COMPILATION ON)   # HB102
    ```

    ## How to fix
    If kernels call `__device__` functions defined in other files, add `-fgpu-rdc` to the HIP
    compile options and `-fgpu-rdc --hip-link` to the link options of the targets; otherwise
    drop separable compilation (whole-program device code is faster on AMD).
    """,
)
NVCC_ONLY_FLAG = declare_rule(
    "HB105",
    "nvcc-only-flag",
    Severity.WARNING,
    "nvcc-only compiler flag with no hipcc/clang equivalent",
    """
    ## What it detects
    A flag only nvcc understands and hipify-py cannot translate: `-Xptxas`, `-maxrregcount`,
    `-ccbin`, `-Xnvlink`, `-Xcudafe`, `--resource-usage`, `-G`.

    ## Why it breaks on AMD
    hipcc (clang) rejects or misreads the flag, so the build fails; the flags that tune PTX
    assembly or register use have no AMD counterpart. A flag that would break the command is
    removed (the finding says so); `-G` is left for you to decide.

    ## Example
    ```make
    NVCCFLAGS = -O3 -Xptxas -v -maxrregcount 64       # HB105 x2
    ```

    ## How to fix
    For register pressure use `__launch_bounds__` in the source; for resource usage compile
    with `-Rpass-analysis=kernel-resource-usage`; for device debug info use `-ggdb -O0`.
    """,
)
FAST_MATH = declare_rule(
    "HB106",
    "fast-math-flag",
    Severity.INFO,
    "nvcc --use_fast_math became -ffast-math -fno-finite-math-only",
    """
    ## What it detects
    nvcc's `--use_fast_math` (`-use_fast_math`), converted to clang's fast-math flags.

    ## Why it breaks on AMD
    nvcc's flag approximates division, square root and the `sin`/`exp` family and flushes
    denormals, but keeps infinities and NaNs. Clang's `-ffast-math` also implies
    `-ffinite-math-only`: the compiler may assume no value is ever infinite or NaN and
    deletes guards such as `x == -INFINITY` or `x != x` (seen on gfx942 at -O3). hipify-py
    therefore writes `-ffast-math -fno-finite-math-only`, which keeps those guards.

    ## Example
    ```make
    NVCCFLAGS = -O3 --use_fast_math    # -> -O3 -ffast-math -fno-finite-math-only (HB106)
    ```

    ## How to fix
    Nothing to do unless the code never sees infinities or NaNs and you want the last bit of
    speed: then drop `-fno-finite-math-only`. Clang's `-ffast-math` also reassociates
    floating-point sums, which nvcc does not; use `-fno-associative-math` where results must
    match bit for bit.
    """,
)
TORCH_ARCH = declare_rule(
    "HB107",
    "torch-extension-arch",
    Severity.INFO,
    "GPU architecture flags of a PyTorch extension are left to PYTORCH_ROCM_ARCH",
    """
    ## What it detects
    `-arch`/`-gencode` flags in the `nvcc` arguments of a PyTorch `CUDAExtension`.

    ## Why it breaks on AMD
    On a ROCm build of PyTorch, `torch.utils.cpp_extension` picks the AMD targets from
    `PYTORCH_ROCM_ARCH` (or the GPUs it sees), but only when the arguments carry no
    `--offload-arch` of their own: one hard-coded `--offload-arch=gfx942` silently drops every
    other target the user asked for. hipify-py therefore removes the flags instead of
    translating them.

    ## Example
    ```python
    extra_compile_args={"nvcc": ["-O3", "-arch=sm_90"]}   # -> ["-O3"] (HB107)
    ```

    ## How to fix
    Build with `PYTORCH_ROCM_ARCH=gfx942` (several targets separated by `;`).
    """,
)
# what nvcc's --use_fast_math keeps meaning on clang: -ffast-math without finite-math-only
_FAST_MATH = ("-ffast-math", "-fno-finite-math-only")

# flag -> replacement ("" = remove, the flag has no effect for clang)
_SIMPLE = {
    "-lineinfo": "-gline-tables-only",
    "--generate-line-info": "-gline-tables-only",
    "--keep": "-save-temps",
    "-keep": "-save-temps",
    "--expt-relaxed-constexpr": "",
    "-expt-relaxed-constexpr": "",
    "--expt-extended-lambda": "",
    "-expt-extended-lambda": "",
    "--extended-lambda": "",
    "-extended-lambda": "",
    "-Wno-deprecated-gpu-targets": "",
    "--Wno-deprecated-gpu-targets": "",
    "-rdc=false": "",
    "--relocatable-device-code=false": "",
}
_RDC = frozenset({"-rdc=true", "--relocatable-device-code=true", "-dc", "--device-c"})
_DLINK = frozenset({"-dlink", "--device-link"})
_ARCH = frozenset({"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code"})
_ARCH |= {"--gpu-code"}
_HOST = frozenset({"-Xcompiler", "--compiler-options"})
_DROP_VALUE = frozenset({"-cudart", "--cudart", "--threads"})  # no effect on hipcc
_REPORT_VALUE = frozenset(
    {
        "-Xptxas",
        "--ptxas-options",
        "-maxrregcount",
        "--maxrregcount",
        "-ccbin",
        "--compiler-bindir",
        "-Xnvlink",
        "--nvlink-options",
        "-Xcudafe",
    }
)
_REPORT = frozenset({"--resource-usage", "-res-usage"})
_KEEP_REPORTED = frozenset({"-G", "--device-debug"})
VARIABLE_REF = re.compile(r"\$\([\w.-]+\)|\$\{[\w.-]+\}")
# a CUDA architecture value on its own (ARCH ?= sm_90): replaced by the first --offload-arch
CUDA_ARCH_VALUE = re.compile(r"(?<![\w=,])(?:sm|compute)_\d+[a-z]?(?![\w])")
_VALUE_FLAG = re.compile(r"(-[-\w]+)=(.*)", re.S)


@dataclass(frozen=True)
class Word:
    """One flag word: ``text`` at [start, end) is replaced; [cut_start, cut_end) is removed
    when the flag goes (the word with its separator: a space, or ``", "`` in a Python list)."""

    text: str
    start: int
    end: int
    cut_start: int
    cut_end: int
    quote: str = ""  # for words that are Python string literals: their quote character
    sep: str = " "  # between flags put in the word's place (";" in a CMake generator expression)


def _join(parts: Sequence[str], word: Word) -> str:
    """Several flags in the place of one word: space-separated, or separate list items."""
    sep = f"{word.quote}, {word.quote}" if word.quote else word.sep
    return sep.join(parts)


def convert_flags(
    words: Sequence[Word], ctx: Context, rule: str, *, arch: bool = True
) -> Iterator[Edit | Finding]:
    """Edits (and findings) for the nvcc flags among ``words``, in order of appearance;
    ``arch=False``: architecture flags are removed (the build tool chooses the targets)."""
    arch_done = False
    i = 0
    while i < len(words):
        w = words[i]
        flag, value, consumed = w.text, None, 1
        m = _VALUE_FLAG.fullmatch(flag)
        if m and m.group(1) in _ARCH | _HOST | _DROP_VALUE | _REPORT_VALUE | {"--default-stream"}:
            flag, value = m.group(1), m.group(2)
        elif flag in _ARCH | _HOST | _DROP_VALUE | _REPORT_VALUE | {"--default-stream", "-x"}:
            if i + 1 < len(words):
                value, consumed = words[i + 1].text, 2
        gone = words[i : i + consumed]
        if flag in ("--use_fast_math", "-use_fast_math"):
            yield Edit(w.start, w.end, _join(_FAST_MATH, w), rule)
            yield _finding(
                w,
                FAST_MATH,
                f"{flag} -> {' '.join(_FAST_MATH)}: clang's -ffast-math alone assumes no "
                "infinities or NaNs and deletes checks for them; nvcc's flag does not",
            )
        elif flag in _SIMPLE:
            yield from _replace_or_cut([w], _SIMPLE[flag], rule)
        elif flag in _RDC:
            yield Edit(w.start, w.end, "-fgpu-rdc", rule)
            yield _finding(
                w,
                RELOCATABLE_CODE,
                f"{flag}: relocatable device code is -fgpu-rdc in HIP; "
                "link with -fgpu-rdc --hip-link",
            )
        elif flag in _DLINK:
            yield _finding(
                w,
                RELOCATABLE_CODE,
                f"{flag}: HIP has no separate device-link step; link "
                "the objects with -fgpu-rdc --hip-link instead",
            )
        elif flag in _ARCH and value is not None:
            # -arch=$(ARCH) keeps its variable (whose sm_XX value a build pass converts)
            archs = [value] if VARIABLE_REF.fullmatch(value) else ctx.options.offload_arch
            text = "" if arch_done or not arch else _join([f"--offload-arch={a}" for a in archs], w)
            if not arch and not arch_done:
                message = f"{w.text}: PyTorch chooses the AMD targets; set PYTORCH_ROCM_ARCH"
                yield _finding(w, TORCH_ARCH, message)
            arch_done = True
            yield from _replace_or_cut(gone, text, rule)
        elif flag in _HOST and value is not None:
            host = [v for v in value.strip("\"'").replace(",", " ").split() if v]
            if consumed == 2:  # the value word stays as it is; only the -Xcompiler goes
                yield from _replace_or_cut([w], "", rule)
            else:
                yield Edit(w.start, w.end, _join(host, w), rule)
        elif flag == "--default-stream" and value is not None:
            yield from _replace_or_cut(gone, f"-fgpu-default-stream={value}", rule)
        elif flag == "-x" and value == "cu":
            yield Edit(words[i + 1].start, words[i + 1].end, "hip", rule)
        elif flag in _DROP_VALUE and value is not None:
            yield from _replace_or_cut(gone, "", rule)
        elif flag in _REPORT_VALUE | _REPORT:
            shown = " ".join(x.text for x in gone)
            yield from _replace_or_cut(gone, "", rule)
            yield _finding(
                w, NVCC_ONLY_FLAG, f"nvcc-only flag `{shown}` has no hipcc equivalent; removed"
            )
        elif flag in _KEEP_REPORTED:
            yield _finding(
                w,
                NVCC_ONLY_FLAG,
                f"nvcc flag `{flag}` (device debug) means something "
                "else to clang; use -ggdb -O0 for hipcc",
            )
        else:
            consumed = 1
        i += consumed


def _replace_or_cut(words: Sequence[Word], text: str, rule: str) -> Iterator[Edit]:
    """Put ``text`` in the place of ``words``, or delete them with their separators."""
    first, last = words[0], words[-1]
    if text:
        yield Edit(first.start, last.end, text, rule)
    else:
        yield Edit(first.cut_start, last.cut_end, "", rule)


def _finding(w: Word, rule: RuleInfo, message: str) -> Finding:
    return rule.report(w.start, w.end, message)
