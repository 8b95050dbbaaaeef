"""The last resort when no AMD compiler exists: parse the file with libclang as HIP.

With HIP headers (and a clang resource directory on disk) the parse is semantic, but libclang's
builtins rarely match the headers, so only diagnostics in the checked file (or in a header with
an instantiation note pointing into the file) count.  Without headers every ``#include`` is
blanked, a few HIP keywords are predefined and only *syntax* errors are reported.
"""

from __future__ import annotations

import os
import re
import time

from ..frontend.hermetic import blank_file_access
from .compile import CompileResult, Diagnostic, Flags
from .toolchain import Toolchain

_PRELUDE = """
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __HIPCC__ 1
#define __HIP_PLATFORM_AMD__ 1
"""
_PRELUDE_NAME = "/__hipify_py__/verify_prelude.h"
# messages that are about the grammar, not about names the blanked headers would declare
_SYNTAX = re.compile(
    r"^(expected |extraneous |unterminated |missing terminating |unmatched |"
    r"expected\b|invalid preprocessing directive|unbalanced|"
    r"#endif without|#else without|#elif without|unterminated conditional)"
)


def check_file(tc: Toolchain, source: str, flags: Flags) -> CompileResult:
    import clang.cindex as ci

    start = time.monotonic()
    path = os.path.abspath(source)
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    args = [
        "-x",
        "hip",
        f"--offload-arch={tc.arch}",
        "-nogpulib",
        f"-std={flags.std}",
        *flags.args(),
    ]
    semantic = tc.hip_include is not None and tc.resource_dir is not None
    unsaved = []
    if tc.hip_include is not None and tc.resource_dir is not None:
        args += ["-isystem", tc.hip_include, "-resource-dir", tc.resource_dir]
    else:
        args += ["-nocudainc", "-include", _PRELUDE_NAME]
        unsaved = [(path, blank_file_access(text)), (_PRELUDE_NAME, _PRELUDE)]
    index = ci.Index.create()
    try:
        tu = index.parse(
            path, args=args, unsaved_files=unsaved, options=ci.TranslationUnit.PARSE_INCOMPLETE
        )
    except ci.TranslationUnitLoadError as exc:
        diag = Diagnostic("error", f"libclang could not parse the file: {exc}")
        return CompileResult(
            source, False, 1, time.monotonic() - start, ["libclang", *args], [diag]
        )
    diags: list[Diagnostic] = []
    seen: set[tuple] = set()
    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Warning:
            continue
        sev = "error" if d.severity >= ci.Diagnostic.Error else "warning"
        loc = d.location
        fname = loc.file.name if loc.file else None
        in_file = fname is not None and os.path.realpath(fname) == path
        notes = [
            Diagnostic(
                "note",
                c.spelling,
                c.location.file.name if c.location.file else None,
                c.location.line,
                c.location.column,
            )
            for c in d.children
        ]
        anchor = (
            (loc.line, loc.column)
            if in_file
            else next(
                (
                    (n.line, n.column)
                    for n in notes
                    if n.file
                    and os.path.realpath(n.file) == path
                    and "requested here" in n.message  # a template the file instantiated
                ),
                None,
            )
        )
        if anchor is None:
            continue  # header-internal noise from libclang's mismatched builtins
        if not semantic and not _SYNTAX.match(d.spelling):
            continue
        key = (sev, fname, loc.line, loc.column, d.spelling)
        if key in seen:
            continue
        seen.add(key)
        diags.append(Diagnostic(sev, d.spelling, fname, loc.line, loc.column, notes, anchor))
    ok = not any(d.severity == "error" for d in diags)
    return CompileResult(
        source, ok, 0 if ok else 1, time.monotonic() - start, ["libclang", *args, path], diags
    )
