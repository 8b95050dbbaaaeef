"""Run the chosen compiler on one translation unit and turn its output into diagnostics."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..discover import discover
from .hipcc import hipcc_env
from .toolchain import Toolchain

TU_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".c++")
# a converted tree's CMake build directory holds generated sources (CMakeCUDACompilerId.cu)

_DIAG = re.compile(
    r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<sev>fatal error|error|warning|note|remark): (?P<msg>.*)$"
)
_DRIVER = re.compile(
    r"^(?P<tool>[\w.+-]*(?:clang|hipcc|lld|ld)[\w.+-]*): "
    r"(?P<sev>error|fatal error): (?P<msg>.*)$"
)
_INCLUDED = re.compile(r"^(?:In file included from|\s+from) (?P<file>[^:\n]+):(?P<line>\d+)")


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    message: str
    file: str | None = None  # as the compiler printed it (None: a driver/linker message)
    line: int = 0
    column: int = 0
    notes: list[Diagnostic] = field(default_factory=list)
    # where in the checked file this diagnostic comes from (itself, an instantiation note or
    # the #include line) -- what mapback maps to the CUDA source
    anchor: tuple[int, int] | None = None
    cuda: dict | None = None  # filled by mapback: {"path", "line", "column", "source", "exact"}
    hip_source: str | None = None  # the converted line's text
    include_anchor: tuple[int, int] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "anchor": list(self.anchor) if self.anchor else None,
            "hip_source": self.hip_source,
            "cuda": self.cuda,
            "notes": [
                {"file": n.file, "line": n.line, "column": n.column, "message": n.message}
                for n in self.notes
            ],
        }


@dataclass
class CompileResult:
    path: str
    ok: bool
    returncode: int
    seconds: float
    command: list[str]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: str = ""
    code_object: str | None = None  # the GPU target of the code object built (codegen)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


@dataclass(frozen=True)
class Flags:
    """Per-file flags: -I, -isystem, -D, -U, -include and the language standard."""

    include_dirs: tuple[str, ...] = ()
    system_dirs: tuple[str, ...] = ()
    quote_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    forced_includes: tuple[str, ...] = ()
    std: str = "c++17"

    def args(self) -> list[str]:
        out: list[str] = []
        out += [f"-I{d}" for d in self.include_dirs]
        for d in self.system_dirs:
            out += ["-isystem", d]
        for d in self.quote_dirs:
            out += ["-iquote", d]
        out += [f"-D{d}" for d in self.defines]
        out += [f"-U{d}" for d in self.undefines]
        for f in self.forced_includes:
            out += ["-include", f]
        return out

    def merged(self, other: Flags) -> Flags:
        return Flags(
            self.include_dirs + other.include_dirs,
            self.system_dirs + other.system_dirs,
            self.quote_dirs + other.quote_dirs,
            self.defines + other.defines,
            self.undefines + other.undefines,
            self.forced_includes + other.forced_includes,
            other.std if other.std != "c++17" else self.std,
        )


def is_translation_unit(path: Path) -> bool:
    return path.suffix.lower() in TU_SUFFIXES


def collect_sources(paths: Sequence[str | os.PathLike]) -> list[tuple[Path, Path]]:
    """(file, root it was found under) for every translation unit in files or directories.

    Directories are walked by ``discover.discover``, the walk ``convert`` writes its output tree
    from, so ``convert --verify`` checks every file it wrote (hidden directories included).
    A named file that is not a translation unit by extension (README.md) is skipped too.
    """
    out: list[tuple[Path, Path]] = []
    seen: set[Path] = set()
    for raw in paths:
        for c in discover([Path(raw)]):
            real = c.real_path()
            if is_translation_unit(c.path) and real not in seen:
                seen.add(real)
                out.append((c.path, c.root))
    return out


# ---------------------------------------------------------------------------------------------
# commands


def build_commands(
    tc: Toolchain, source: str, flags: Flags, mode: str, workdir: str
) -> list[tuple[list[str], dict[str, str]]]:
    """The compiler invocations for one file (``mode``: "syntax" or "codegen")."""
    src = os.path.abspath(source)
    if tc.kind == "hipcc":
        base = [
            tc.compiler or "hipcc",
            f"--offload-arch={tc.arch}",
            f"-std={flags.std}",
            "-Wno-unused-command-line-argument",
            *flags.args(),
        ]
        env = hipcc_env()
        if mode == "codegen":
            obj = os.path.join(workdir, Path(src).stem + ".o")
            return [([*base, "-c", "-x", "hip", src, "-o", obj], env)]
        return [([*base, "-fsyntax-only", "-x", "hip", src], env)]
    # bare clang + HIP headers
    base = [
        tc.compiler or "clang",
        "-x",
        "hip",
        f"--offload-arch={tc.arch}",
        f"-std={flags.std}",
        *flags.args(),
        "-isystem",
        tc.hip_include or "/opt/rocm/include",
    ]
    if tc.rocm_path:
        base.append(f"--rocm-path={tc.rocm_path}")
    if tc.resource_dir:
        base += ["-idirafter", tc.resource_dir]
    env = dict(os.environ)
    bindir = os.path.dirname(os.path.realpath(tc.compiler or ""))
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")  # lld for device code
    if mode == "codegen" and tc.device_libs:
        # host object with the gfx code object embedded, linked against the device libraries
        obj = os.path.join(workdir, Path(src).stem + ".o")
        lib = f"--rocm-device-lib-path={tc.device_libs}"
        return [([*base, lib, "-c", "-O2", src, "-o", obj], env)]
    base.insert(4, "-nogpulib")
    if mode == "codegen":
        asm = os.path.join(workdir, Path(src).stem + ".s")
        return [
            ([*base, "--cuda-device-only", "-S", "-O2", src, "-o", asm], env),
            ([*base, "--cuda-host-only", "-fsyntax-only", src], env),
        ]
    return [([*base, "-fsyntax-only", src], env)]


def compile_file(
    tc: Toolchain, source: str, flags: Flags, mode: str = "syntax", timeout: float = 600
) -> CompileResult:
    """Compile-check one translation unit with a real compiler (hipcc or clang); the
    libclang toolchain's checks are ``libclang_check.check_file``."""
    start = time.monotonic()
    outputs: list[str] = []
    rc = 0
    commands: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="hipify-py-verify-") as work:
        for cmd, env in build_commands(tc, source, flags, mode, work):
            commands.append(cmd)
            try:
                proc = subprocess.run(
                    cmd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace"
                )
                outputs.append(proc.stdout + proc.stderr)
                rc = rc or proc.returncode
            except subprocess.TimeoutExpired:
                outputs.append(f"error: compiler timed out after {timeout:.0f}s")
                rc = rc or 124
            except OSError as exc:
                outputs.append(f"error: could not run {cmd[0]}: {exc}")
                rc = rc or 127
            if rc:
                break
        code_object = None if rc else embedded_target(Path(work))
    output = "".join(outputs)
    diags = parse_diagnostics(output, source)
    if rc and not any(d.severity == "error" for d in diags):
        tail = "\n".join(output.strip().splitlines()[-5:]) or f"exit code {rc}"
        diags.append(Diagnostic("error", f"compiler failed (exit {rc}): {tail}"))
    return CompileResult(
        path=source,
        ok=rc == 0,
        returncode=rc,
        seconds=time.monotonic() - start,
        command=commands[0]
        if len(commands) == 1
        else [arg for cmd in commands for arg in (*cmd, "&&")][:-1],
        diagnostics=diags,
        output=output,
        code_object=code_object,
    )


_BUNDLE_ENTRY = re.compile(rb"hipv4-amdgcn-amd-amdhsa-[a-z]*-(gfx[0-9a-z]+)")


def embedded_target(workdir: Path) -> str | None:
    """The AMD GPU a compiled object carries a code object for (its offload bundle entry,
    e.g. ``hipv4-amdgcn-amd-amdhsa--gfx942``), or None when nothing was built."""
    for obj in sorted(workdir.glob("*.o")):
        m = _BUNDLE_ENTRY.search(obj.read_bytes())
        if m:
            return m.group(1).decode()
    return None


# ---------------------------------------------------------------------------------------------
# parsing


def _same_file(printed: str, source: str) -> bool:
    if printed == source:
        return True
    try:
        return os.path.realpath(printed) == os.path.realpath(source)
    except OSError:
        return False


def parse_diagnostics(output: str, source: str) -> list[Diagnostic]:
    """clang-style ``file:line:col: severity: message`` lines, notes attached to their error.

    Each diagnostic gets an ``anchor`` in ``source``: its own position when it is in that file,
    else the first note that is (e.g. "in instantiation of ... requested here"), else the
    ``#include`` line that led to the header it is in.  Duplicates (clang reports host and
    device passes separately) are dropped.
    """
    parser = _DiagnosticParser(source)
    for raw in output.splitlines():
        parser.line(raw)
    # anchors from #include lines only when no note pointed into the file
    for d in parser.diags:
        if d.anchor is None:
            d.anchor = d.include_anchor
    return _unique(parser.diags)


class _DiagnosticParser:
    """The state one pass over a compiler's output keeps: the include stack printed above
    the next diagnostic, the diagnostic notes attach to, and each header's include line
    (clang prints the include stack only when it changes)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.diags: list[Diagnostic] = []
        self.current: Diagnostic | None = None
        self.include_chain: list[tuple[str, int]] = []
        self.in_chain = False
        self.header_anchor: dict[str, tuple[int, int] | None] = {}

    def line(self, raw: str) -> None:
        m = _INCLUDED.match(raw)
        if m:
            if not self.in_chain:
                self.include_chain = []
            self.in_chain = True
            self.include_chain.append((m.group("file"), int(m.group("line"))))
            return
        self.in_chain = False
        m = _DIAG.match(raw)
        if m:
            self._diagnostic(m)
            self.include_chain = []
            return
        m = _DRIVER.match(raw)
        if m:
            self._add(Diagnostic("error", f"{m.group('tool')}: {m.group('msg')}"))

    def _diagnostic(self, m: re.Match[str]) -> None:
        sev = m.group("sev")
        sev = "error" if sev == "fatal error" else sev
        d = Diagnostic(
            sev, m.group("msg"), m.group("file"), int(m.group("line")), int(m.group("col"))
        )
        in_source = _same_file(d.file or "", self.source)
        if sev == "note" and self.current is not None:
            self.current.notes.append(d)
            if self.current.anchor is None and in_source:
                self.current.anchor = (d.line, d.column)
        elif sev in ("error", "warning"):
            if in_source:
                d.anchor = (d.line, d.column)
            else:
                self._anchor_in_header(d)
            self._add(d)

    def _anchor_in_header(self, d: Diagnostic) -> None:
        """A diagnostic in a header: the line of ``source`` that includes it (directly or
        not), from the include stack above it or the last one printed for that header."""
        for inc_file, inc_line in self.include_chain:
            if _same_file(inc_file, self.source):
                d.include_anchor = (inc_line, 1)
                break
        if self.include_chain:
            self.header_anchor[d.file or ""] = d.include_anchor
        else:
            d.include_anchor = self.header_anchor.get(d.file or "")

    def _add(self, d: Diagnostic) -> None:
        self.diags.append(d)
        self.current = d


def _unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    """``diags`` without repeats (clang's host and device passes report the same error)."""
    unique: list[Diagnostic] = []
    seen: set[tuple] = set()
    for d in diags:
        key = (d.severity, d.file, d.line, d.column, d.message, d.anchor)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


_HEADER_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]((?:hip|roc)[^>"]*)[>"]', re.M)


def foreign_headers(tc: Toolchain, text: str) -> list[str]:
    """HIP/ROC headers the file includes that the clang toolchain's header set lacks.

    A bare clang then finds them on the system include path (e.g. Debian's HIP 5.2 copies in
    /usr/include), so the check mixes two HIP versions and is not authoritative for them.
    """
    if tc.kind != "clang" or not tc.hip_include:
        return []
    missing = []
    for name in _HEADER_INCLUDE.findall(text):
        if not (Path(tc.hip_include) / name).exists():
            missing.append(name)
    return missing


def quote(cmd: Sequence[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)
