"""The generated ``hip_compat.h``: CUDA headers under nvcc, HIP headers and one ``#define`` per
CUDA name the project uses under a HIP compiler.

Written beside every source that includes it (the quoted include then resolves with no new
``-I`` flag); all copies are identical and share one include guard.  The names are read back
from the portable sources themselves, so a second ``--portable`` run writes the same header.

Two things keep the defines from reaching CUDA's own headers, which HIP's NVIDIA backend
includes (``hip/hip_bf16.h`` includes ``cuda_bf16.h``): under ``__HIP_PLATFORM_NVIDIA__`` the
HIP headers the project includes are included *before* the defines (their include guards make
the project's later includes no-ops; a ``#define __nv_bfloat16 __hip_bfloat16`` seen by
``cuda_bf16.h`` redefines the type it declares), and each define sits behind ``#ifndef``: a
CUDA name that is a macro there (``cudaEventDisableTiming``) keeps CUDA's value, which is the
HIP one on NVIDIA, instead of a define that cycles back to itself.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ..context import Context
from ..frontend.unit import Unit
from ..mappings import hip_name, is_convertible
from ..rewrite.headers import header_entry
from ..rewrite.version_gates import VERSION_MACROS

NAME = "hip_compat.h"
HIP_SWITCH = "HIP_COMPAT_HIP"  # defined by the header when a HIP compiler reads it
# the vendor choice ``source`` writes for a library header: its HIP side names the header
LIBRARY_CHOICE = re.compile(rf"^#if {HIP_SWITCH}\r?\n#include (<[^>\n]+>|\"[^\"\n]+\")", re.M)
_ROCM_SWITCH = re.compile(r"\bUSE_ROCM\b")
_RUNTIME = frozenset({"hip/hip_runtime.h", "hip/hip_runtime_api.h"})  # included first anyway
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")
# a conditional that chooses a vendor: the CUDA headers behind it exist wherever nvcc compiles
_VENDOR_TEST = re.compile(
    rf"\b(USE_ROCM|{HIP_SWITCH}|__HIP_PLATFORM_(AMD|NVIDIA|HCC|NVCC)__|__HIPCC__|__HIP__|"
    r"__CUDACC__|__NVCC__)\b"
)


def used_names(text: str, path: str, ctx: Context) -> dict[str, str]:
    """CUDA name -> HIP name for the mapped identifiers ``text`` spells (version-true)."""
    unit = Unit(path, text, ctx.mappings, hermetic=True)
    try:
        out = {}
        for name, entry in unit.mapped.items():
            if name in VERSION_MACROS or not is_convertible(entry, ctx.options):
                continue
            new = hip_name(entry, ctx.options)
            if new and new != name and new.isidentifier():
                out[name] = new
        return out
    finally:
        unit.release()


def early_headers(text: str, ctx: Context) -> set[str]:
    """What HIP on NVIDIA must include before the defines: the HIP library headers a portable
    source chooses (``<hip/hip_bf16.h>``, which includes ``cuda_bf16.h``) and the CUDA headers
    it includes itself, in code already portable (``#ifndef USE_ROCM`` / ``#include
    <cuda_bf16.h>``), with their counterparts in HIP itself.  An include under any other
    condition (``#ifdef USE_CUDNN``) is the project's choice and is not made for it."""
    out = set(LIBRARY_CHOICE.findall(text))
    lines = text.splitlines()
    open_: list[bool] = []  # per open conditional: a vendor test or an include guard
    for i, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if m is None:
            continue
        word, rest = m.group(1), m.group(2).strip()
        if word in ("if", "ifdef", "ifndef"):
            after = _DIRECTIVE.match(lines[i + 1]) if i + 1 < len(lines) else None
            guard = word == "ifndef" and after is not None and after.group(1) == "define"
            guard = guard and after is not None and after.group(2).split()[:1] == [rest]
            open_.append(guard or _VENDOR_TEST.search(rest) is not None)
        elif word == "endif" and open_:
            open_.pop()
        elif word == "include" and all(open_) and rest.startswith("<") and ">" in rest:
            path = rest[1 : rest.index(">")]
            entry = header_entry(path, ctx.mappings)
            if entry is None or hip_name(entry, ctx.options) in _RUNTIME:
                continue
            out.add(f"<{path}>")
            hip = hip_name(entry, ctx.options) if is_convertible(entry, ctx.options) else None
            if hip and hip.startswith("hip/"):  # HIP's own (hipBLAS & co. are the project's)
                out.add(f"<{hip}>")  # the defines name its types (__hip_bfloat162)
    return out


def tests_rocm_switch(text: str) -> bool:
    """Whether a source has ROCm code of its own behind PyTorch's ``USE_ROCM`` switch."""
    return any(
        m.group(1) in ("if", "ifdef", "ifndef", "elif") and _ROCM_SWITCH.search(m.group(2))
        for m in map(_DIRECTIVE.match, text.splitlines())
        if m is not None
    )


def compat_header(
    names: dict[str, str], headers: Collection[str] = (), rocm_switch: bool = False
) -> str:
    """The header's text for the project's ``names`` and HIP library ``headers`` (sorted, so
    it is reproducible).  With ``rocm_switch`` (the project tests ``USE_ROCM``), an AMD build
    defines it: that code was written for ROCm, and the conversion left it as it is."""
    defines = "".join(
        f"#ifndef {cuda}\n#define {cuda} {hip}\n#endif\n" for cuda, hip in sorted(names.items())
    )
    early = "".join(f"#include {h}\n" for h in sorted(headers))
    if early:
        early = f"#if defined(__HIP_PLATFORM_NVIDIA__)  // before the defines\n{early}#endif\n"
    if rocm_switch:
        early += (
            "#if defined(__HIP_PLATFORM_AMD__) && !defined(USE_ROCM)\n#define USE_ROCM 1\n#endif\n"
        )
    return f"""\
// {NAME}: generated by `hipify-py convert --portable`; regenerate rather than edit.
// nvcc: the CUDA runtime.  hipcc/clang -x hip (AMD), -D__HIP_PLATFORM_NVIDIA__ (HIP on
// NVIDIA) or a PyTorch ROCm build (USE_ROCM): the HIP runtime, and the CUDA names this
// project uses mapped to their HIP names.
#ifndef HIPIFY_PY_HIP_COMPAT_H
#define HIPIFY_PY_HIP_COMPAT_H
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP__) || \\
    defined(USE_ROCM)
#define {HIP_SWITCH} 1
#include <hip/hip_runtime.h>
{early}{defines}#else
#include <cuda_runtime.h>
#endif
#endif  // HIPIFY_PY_HIP_COMPAT_H
"""
