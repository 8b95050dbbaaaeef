"""nvcc command-line flags -> their hipcc/clang forms, shared by every build system.

A pass hands over the flag words it found (with the span to replace and the span to delete
when the flag goes); ``convert_flags`` proposes the edits, and a finding for what has no
equivalent: dropped when keeping it would break the hipcc command, left otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

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
THRUST_NAMESPACE = declare_rule(
    "HB109",
    "thrust-wrapped-namespace",
    Severity.WARNING,
    "-DTHRUST_CUB_WRAPPED_NAMESPACE removed: rocThrust 7.2.4 does not build with it",
    """
    ## What it detects
    `-DTHRUST_CUB_WRAPPED_NAMESPACE=<name>` among the CUDA compiler flags (AMGX wraps Thrust and
    CUB in `amgx::` so that two copies of them cannot clash in one process).

    ## Why it breaks on AMD
    rocThrust 7.2.4 reads the macro but some of its headers name `::thrust` directly
    (`thrust/detail/type_traits.h`), so every file that includes Thrust fails with "no member
    named 'thrust' in the global namespace". hipify-py removes the flag: Thrust's names are then
    in `::thrust`, as in a default build.

    ## Example
    ```cmake
    set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -DTHRUST_CUB_WRAPPED_NAMESPACE=amgx)   # HB109
    ```

    ## How to fix
    Code that names the wrapped namespace itself (AMGX writes `amgx::thrust::` and extends
    `namespace amgx { namespace thrust {...} }`) must name `thrust::` (or
    `THRUST_NS_QUALIFIER`) instead. If the program links another library built with its own
    Thrust, keep the two apart at link time (hidden visibility).
    """,
)
LANGUAGE_STANDARD = declare_rule(
    "HB110",
    "language-standard",
    Severity.INFO,
    "nvcc -std=c++03 became -std=c++11: HIP's headers need C++11",
    """
    ## What it detects
    nvcc's language standard flag set below C++11 (`-std=c++03`, `--std c++98`), and the form
    `-std c++17` (value as the next word), which nvcc accepts and clang does not.

    ## Why it breaks on AMD
    HIP's headers use C++11 throughout: with `-std=c++03` every file that includes
    `hip_runtime.h` fails ("requires compiler and library support for the ISO C++ 2011
    standard"), while nvcc compiles C++03 code (tobiasvanderwerff's teaching kernels, compile
    round 46: 13 translation units). Clang reads `-std c++17` as two arguments and fails.

    ## Example
    ```make
    NVCC_FLAGS = --std=c++03 -O3     # -> -std=c++11 -O3 (HB110)
    ```

    ## How to fix
    Nothing: hipify-py writes `-std=c++11` (C++03 code almost always compiles as C++11; names
    that C++11 made keywords, such as `auto` as a storage class or a variable `nullptr`, do
    not).
    """,
)
_THRUST_WRAPPED = re.compile(r"-DTHRUST_CUB_WRAPPED_NAMESPACE(?:=\S*)?")
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
_STD = frozenset({"-std", "--std"})
# standards older than C++11, which HIP's headers need
_BEFORE_CXX11 = frozenset({"c++98", "c++03", "gnu++98", "gnu++03"})
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
    arch_done = False  # one set of targets per command: later architecture flags just go
    i = 0
    while i < len(words):
        flag = _read_flag(words, i)
        if flag.name in _ARCH and flag.value is not None:
            yield from _arch_flag(flag, flag.value, ctx, rule, translate=arch, first=not arch_done)
            arch_done = True
        elif flag.value is not None and flag.name in _WITH_VALUE:
            yield from _WITH_VALUE[flag.name](flag, flag.value, rule)
        elif flag.name in _ALONE:
            yield from _ALONE[flag.name](flag, rule)
        elif _THRUST_WRAPPED.fullmatch(flag.name):
            yield from _replace_or_cut(flag.words, "", rule)
            yield _finding(
                flag.words[0],
                THRUST_NAMESPACE,
                f"`{flag.name}` removed: rocThrust "
                "7.2.4 names ::thrust in its headers and does not build with it",
            )
        else:  # not an nvcc flag, or one without its value: its next word is read on its own
            i += 1
            continue
        i += len(flag.words)


class _Flag(NamedTuple):
    """One nvcc flag as the words spell it: ``-arch=sm_90`` (one word) or ``-arch sm_90`` (two);
    ``value`` is None for a flag that takes none or whose value is missing."""

    name: str
    value: str | None
    words: Sequence[Word]


# flags whose value may be the next word (nvcc's ``-flag value`` form, as well as ``-flag=value``)
_TAKES_VALUE = _ARCH | _HOST | _DROP_VALUE | _REPORT_VALUE | _STD | {"--default-stream"}


def _read_flag(words: Sequence[Word], i: int) -> _Flag:
    """The flag that starts at ``words[i]``, with its value (``-x`` only pairs with ``cu``:
    another language's word is read as a word of its own)."""
    text = words[i].text
    m = _VALUE_FLAG.fullmatch(text)
    if m and m.group(1) in _TAKES_VALUE:
        return _Flag(m.group(1), m.group(2), words[i : i + 1])
    following = words[i + 1].text if i + 1 < len(words) else None
    if following is not None and (text in _TAKES_VALUE or text == "-x" and following == "cu"):
        return _Flag(text, following, words[i : i + 2])
    return _Flag(text, None, words[i : i + 1])


def _arch_flag(
    flag: _Flag, value: str, ctx: Context, rule: str, *, translate: bool, first: bool
) -> Iterator[Edit | Finding]:
    """``-arch``/``-gencode``/...: the command's first becomes the ``--offload-arch`` targets,
    later ones go; ``translate=False`` (PyTorch chooses the targets): every one goes, the first
    with a finding that says so."""
    w = flag.words[0]
    # -arch=$(ARCH) keeps its variable (whose sm_XX value a build pass converts)
    archs = [value] if VARIABLE_REF.fullmatch(value) else ctx.options.offload_arch
    text = _join([f"--offload-arch={a}" for a in archs], w) if translate and first else ""
    if not translate and first:
        message = f"{w.text}: PyTorch chooses the AMD targets; set PYTORCH_ROCM_ARCH"
        yield _finding(w, TORCH_ARCH, message)
    yield from _replace_or_cut(flag.words, text, rule)


def _host_flags(flag: _Flag, value: str, rule: str) -> Iterator[Edit | Finding]:
    """``-Xcompiler=-fPIC,-Wall`` -> ``-fPIC -Wall`` (clang takes host flags as they are);
    ``-Xcompiler -fPIC``: the value word stays, only the ``-Xcompiler`` goes."""
    w = flag.words[0]
    if len(flag.words) == 2:
        yield from _replace_or_cut([w], "", rule)
    else:
        host = [v for v in value.strip("\"'").replace(",", " ").split() if v]
        yield Edit(w.start, w.end, _join(host, w), rule)


def _default_stream(flag: _Flag, value: str, rule: str) -> Iterator[Edit | Finding]:
    """``--default-stream per-thread`` -> ``-fgpu-default-stream=per-thread``."""
    yield from _replace_or_cut(flag.words, f"-fgpu-default-stream={value}", rule)


def _source_language(flag: _Flag, value: str, rule: str) -> Iterator[Edit | Finding]:
    """``-x cu`` -> ``-x hip``."""
    language = flag.words[1]
    yield Edit(language.start, language.end, "hip", rule)


def _language_standard(flag: _Flag, value: str, rule: str) -> Iterator[Edit | Finding]:
    """``-std=c++03`` -> ``-std=c++11``; ``-std c++17`` (two words) -> ``-std=c++17``."""
    standard = "c++11" if value.lower() in _BEFORE_CXX11 else value
    text = f"-std={standard}"
    if standard == value and (len(flag.words) == 1 or flag.name == "--std"):
        return  # clang reads it as it stands
    yield from _replace_or_cut(flag.words, text, rule)
    if standard != value:
        yield _finding(
            flag.words[0],
            LANGUAGE_STANDARD,
            f"{flag.name} {value} -> {text}: HIP's headers need C++11 (nvcc compiles C++03)",
        )


def _drop_with_value(flag: _Flag, value: str, rule: str) -> Iterator[Edit | Finding]:
    """``-cudart static``, ``--threads 4``: no effect on hipcc, removed with their value."""
    yield from _replace_or_cut(flag.words, "", rule)


def _fast_math(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    w = flag.words[0]
    yield Edit(w.start, w.end, _join(_FAST_MATH, w), rule)
    yield _finding(
        w,
        FAST_MATH,
        f"{flag.name} -> {' '.join(_FAST_MATH)}: clang's -ffast-math alone assumes no "
        "infinities or NaNs and deletes checks for them; nvcc's flag does not",
    )


def _simple(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    """A flag with a fixed clang form, or none (removed)."""
    yield from _replace_or_cut(flag.words[:1], _SIMPLE[flag.name], rule)


def _relocatable(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    w = flag.words[0]
    yield Edit(w.start, w.end, "-fgpu-rdc", rule)
    yield _finding(
        w,
        RELOCATABLE_CODE,
        f"{flag.name}: relocatable device code is -fgpu-rdc in HIP; link with -fgpu-rdc --hip-link",
    )


def _device_link(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    yield _finding(
        flag.words[0],
        RELOCATABLE_CODE,
        f"{flag.name}: HIP has no separate device-link step; link "
        "the objects with -fgpu-rdc --hip-link instead",
    )


def _removed_nvcc_only(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    """A flag that would break the hipcc command: removed (with its value), and reported."""
    shown = " ".join(x.text for x in flag.words)
    yield from _replace_or_cut(flag.words, "", rule)
    message = f"nvcc-only flag `{shown}` has no hipcc equivalent; removed"
    yield _finding(flag.words[0], NVCC_ONLY_FLAG, message)


def _kept_nvcc_only(flag: _Flag, rule: str) -> Iterator[Edit | Finding]:
    """``-G``: clang accepts it, but it means something else there; reported, left."""
    yield _finding(
        flag.words[0],
        NVCC_ONLY_FLAG,
        f"nvcc flag `{flag.name}` (device debug) means something "
        "else to clang; use -ggdb -O0 for hipcc",
    )


# flag -> its conversion, for flags converted only with their value ...
_WITH_VALUE: dict[str, Callable[[_Flag, str, str], Iterator[Edit | Finding]]] = {
    **dict.fromkeys(_HOST, _host_flags),
    "--default-stream": _default_stream,
    "-x": _source_language,
    **dict.fromkeys(_STD, _language_standard),
    **dict.fromkeys(_DROP_VALUE, _drop_with_value),
}
# ... and for flags converted as they stand (a value of theirs, if any, goes with them)
_ALONE: dict[str, Callable[[_Flag, str], Iterator[Edit | Finding]]] = {
    **dict.fromkeys(("--use_fast_math", "-use_fast_math"), _fast_math),
    **dict.fromkeys(_SIMPLE, _simple),
    **dict.fromkeys(_RDC, _relocatable),
    **dict.fromkeys(_DLINK, _device_link),
    **dict.fromkeys(_REPORT_VALUE | _REPORT, _removed_nvcc_only),
    **dict.fromkeys(_KEEP_REPORTED, _kept_nvcc_only),
}


def _replace_or_cut(words: Sequence[Word], text: str, rule: str) -> Iterator[Edit]:
    """Put ``text`` in the place of ``words``, or delete them with their separators."""
    first, last = words[0], words[-1]
    if text:
        yield Edit(first.start, last.end, text, rule)
    else:
        yield Edit(first.cut_start, last.cut_end, "", rule)


def _finding(w: Word, rule: RuleInfo, message: str) -> Finding:
    return rule.report(w.start, w.end, message)
