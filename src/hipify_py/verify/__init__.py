"""Compile-check converted HIP sources for an AMD GPU and map errors back to the CUDA source.

``verify_paths`` checks files written to disk (``hipify-py verify``, and ``hipify-py convert
--verify`` on the tree it wrote); it returns a ``VerifyReport`` that ``report.render`` /
``VerifyReport.to_json`` present.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .compdb import CompileDatabase
from .compile import (
    TU_SUFFIXES,
    CompileResult,
    Diagnostic,
    Flags,
    collect_sources,
    compile_file,
    foreign_headers,
)
from .discovery import discover
from .file_flags import FileFlags, Trees
from .includes import missing_header_kind, missing_headers
from .libclang_check import check_file
from .mapback import SourceMap, find_cuda_source, rebuild
from .toolchain import Toolchain, ToolchainError
from .torch_ext import torch_header_note
from .tree import manifest_options, manifest_source, tree_manifest

if TYPE_CHECKING:
    from ..context import Context, Options
    from ..output.manifest import Manifest

_CONVERT_LOCK = threading.Lock()

__all__ = [
    "VerifyOptions",
    "VerifyReport",
    "FileReport",
    "ToolchainError",
    "verify_paths",
    "discover",
]


@dataclass(frozen=True)
class VerifyOptions:
    arch: str = "gfx942"
    toolchain: str = "auto"  # auto | hipcc | clang | libclang
    mode: str = "syntax"  # syntax | codegen
    rocm_path: str | None = None
    hip_include: str | None = None
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    std: str = "c++17"
    build_path: str | None = None  # directory with compile_commands.json
    jobs: int = 0  # 0: one per core
    cuda_root: str | None = None
    # the ROCm the tree targets: a toolchain with older HIP headers cannot judge it
    target_rocm: tuple[int, ...] | None = None
    timeout: float = 600
    env: Mapping[str, str] | None = None  # for discovery (tests); None: os.environ

    @classmethod
    def of_conversion(
        cls, ctx: Context, cuda_root: Path, arch: str, toolchain: str
    ) -> VerifyOptions:
        """The options that check a tree a conversion with ``ctx`` just made from
        ``cuda_root`` (its flags, its target ROCm; errors mapped back to ``cuda_root``)."""
        return cls(
            arch=arch,
            toolchain=toolchain,
            include_dirs=tuple(ctx.options.include_dirs),
            defines=tuple(ctx.options.defines),
            cuda_root=str(cuda_root if cuda_root.is_dir() else cuda_root.parent),
            target_rocm=ctx.options.target_rocm,
        )


@dataclass
class FileReport:
    path: str  # the HIP file checked
    status: str  # "passed" | "failed" | "not-checkable" | "skipped"
    seconds: float = 0.0
    command: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    cuda_path: str | None = None
    mapping: str = "none"  # "exact" | "line" | "none"
    notes: list[str] = field(default_factory=list)
    toolchain: str | None = None  # set when this file was checked with another toolchain
    code_object: str | None = None  # GPU target of the code object built (--codegen)
    missing: list[str] = field(default_factory=list)  # headers that made it not checkable

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "cuda_path": self.cuda_path,
            "mapping": self.mapping,
            "notes": self.notes,
            "toolchain": self.toolchain,
            "code_object": self.code_object,
            "missing_headers": self.missing,
            "command": self.command,
            "errors": [d.to_json() for d in self.errors],
            "warnings": [d.to_json() for d in self.warnings],
        }


@dataclass
class VerifyReport:
    toolchain: Toolchain
    mode: str
    files: list[FileReport] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.status != "failed" for f in self.files)

    @property
    def checked_nothing(self) -> bool:
        """No file passed or failed (all not checkable or skipped): the run judged nothing, so
        it must not pass."""
        return bool(self.files) and not any(f.status in ("passed", "failed") for f in self.files)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok and not self.checked_nothing else 1

    def counts(self) -> dict[str, int]:
        out = {"passed": 0, "failed": 0, "not-checkable": 0, "skipped": 0}
        for f in self.files:
            out[f.status] = out.get(f.status, 0) + 1
        out["errors"] = sum(len(f.errors) for f in self.files if f.status == "failed")
        out["warnings"] = sum(len(f.warnings) for f in self.files)
        return out

    def to_json(self) -> dict:
        return {
            "toolchain": self.toolchain.to_json(),
            "mode": self.mode,
            "ok": self.ok and not self.checked_nothing,
            "summary": self.counts(),
            "seconds": round(self.seconds, 3),
            "warnings": list(self.toolchain.warnings) + self.warnings,
            "files": [f.to_json() for f in self.files],
        }


# ---------------------------------------------------------------------------------------------


def _jobs(n: int) -> int:
    return n if n > 0 else (os.cpu_count() or 1)


def _convert_context(convert_options: Context | Options | None = None) -> Context:
    """The conversion context used to rebuild edit maps: a ``Context`` as is, or ``Options``
    (default conversion options when None) with the bundled mapping tables."""
    from ..context import Context, Options

    if isinstance(convert_options, Context):
        return convert_options
    from ..mappings import load_index

    return Context(convert_options or Options(), load_index())


def _annotate(diags: Sequence[Diagnostic], hip_text: str, smap: SourceMap | None) -> None:
    lines = hip_text.splitlines()
    for d in diags:
        if d.anchor is None:
            continue
        line, col = d.anchor
        if 0 < line <= len(lines):
            d.hip_source = lines[line - 1]
        if smap is not None:
            d.cuda = smap.to_cuda(line, col)


class _LibraryFallback:
    """auto mode: a file that includes hip*/roc* library headers missing from the clang
    toolchain's header set is checked with hipcc instead, when hipcc's headers have them."""

    def __init__(self, tc: Toolchain, options: VerifyOptions) -> None:
        self.tc = tc
        self.options = options
        self.enabled = tc.kind == "clang" and options.toolchain == "auto"
        self._lock = threading.Lock()
        self._alt: Toolchain | None = None
        self._probed = False

    def choose(self, text: str) -> tuple[Toolchain, str | None]:
        if not self.enabled:
            return self.tc, None
        missing = foreign_headers(self.tc, text)
        if not missing:
            return self.tc, None
        with self._lock:
            if not self._probed:
                self._probed = True
                try:
                    self._alt = discover(
                        self.options.arch,
                        "hipcc",
                        env=self.options.env,
                        rocm_path=self.options.rocm_path,
                        min_hip=self.options.target_rocm,
                    )
                except ToolchainError:
                    self._alt = None
        alt = self._alt
        if alt is None or not alt.hip_include:
            return self.tc, None
        if not all((Path(alt.hip_include) / m).exists() for m in missing):
            return self.tc, None
        note = (
            f"{', '.join(missing)}: not in the HIP {self.tc.hip_version_text} header set, "
            f"so checked with hipcc (HIP {alt.hip_version_text}) which has them"
        )
        return alt, "; ".join([note, *alt.warnings])


def _finish(
    result: CompileResult,
    hip_text: str | None,
    smap: SourceMap | None,
    notes: list[str],
    toolchain: Toolchain | None = None,
) -> FileReport:
    if hip_text is None:
        try:
            hip_text = Path(result.path).read_text(errors="replace")
        except OSError:
            hip_text = ""
    _annotate(result.diagnostics, hip_text, smap)
    if toolchain is not None:
        foreign = foreign_headers(toolchain, hip_text)
        if foreign:
            notes = [
                *notes,
                f"not in the HIP {toolchain.hip_version_text} header set, taken "
                f"from the system include path instead (mixed HIP versions; not "
                f"authoritative): {', '.join(foreign)}",
            ]
    if smap is not None and smap.note:
        notes = [*notes, smap.note]
    status = "passed" if result.ok else "failed"
    missing: list[str] = []
    if not result.ok:
        missing, why = _not_checkable(result, toolchain)
        if missing:
            status = "not-checkable"
            notes = [*notes, *why]
    return FileReport(
        path=result.path,
        status=status,
        code_object=result.code_object,
        missing=missing,
        seconds=result.seconds,
        command=result.command,
        diagnostics=result.diagnostics,
        cuda_path=smap.cuda_path if smap else None,
        mapping=("exact" if smap.exact else "line") if smap else "none",
        notes=notes,
    )


def _not_checkable(
    result: CompileResult, toolchain: Toolchain | None
) -> tuple[list[str], list[str]]:
    """(headers, notes) when the only errors are headers that are neither in the tree nor
    CUDA's: the port cannot be judged without them, so it is not a failure.  ([], []) else."""
    errors = result.errors
    missing = missing_headers([d.message for d in errors])
    if not missing or len(missing) != len(errors):
        return [], []
    kinds = {name: missing_header_kind(name) for name in missing}
    if "cuda" in kinds.values():
        return [], []
    notes = []
    for name, kind in kinds.items():
        if kind == "rocm":
            where = toolchain.hip_include if toolchain and toolchain.hip_include else "?"
            notes.append(
                f"{name} is not in the HIP header set used ({where}): give --rocm-path "
                f"with a ROCm install that has this library"
            )
        elif name.split("/", 1)[0] in ("torch", "ATen", "c10"):
            notes.append(torch_header_note(name))
        else:
            notes.append(
                f"{name} not found: a third-party header outside this tree, so the file "
                f"cannot be checked; pass its directory with -I DIR"
            )
    return missing, notes


def _discover(options: VerifyOptions) -> Toolchain:
    return discover(
        options.arch,
        options.toolchain,
        env=options.env,
        rocm_path=options.rocm_path,
        hip_include=options.hip_include,
        min_hip=options.target_rocm,
    )


def verify_paths(
    paths: Sequence[str | os.PathLike],
    options: VerifyOptions,
    toolchain: Toolchain | None = None,
    convert_options: Context | Options | None = None,
) -> VerifyReport:
    """Check every translation unit under ``paths`` (``hipify-py verify``).

    ``convert_options``: the ``Context`` or ``Options`` the tree was converted with, used to
    re-convert CUDA sources under ``options.cuda_root`` for the exact error map.
    """
    start = time.monotonic()
    tc = toolchain or _discover(options)
    report = VerifyReport(tc, options.mode)
    sources = collect_sources(paths)
    check = _FileCheck(tc, options, convert_options)
    if check.cuda_root is not None and sources:
        check.context("ctx", convert_options)  # fail early, not per file
    with ThreadPoolExecutor(max_workers=_jobs(options.jobs)) as pool:
        report.files = list(pool.map(check.one, sources))
    if not sources:
        report.warnings.append("no translation units (" + ", ".join(TU_SUFFIXES) + ") found")
    report.seconds = time.monotonic() - start
    return report


class _FileCheck:
    """One translation unit at a time (from several threads): its CUDA source, its flags, the
    compile, and the errors mapped back to CUDA lines; what the files share is made once."""

    def __init__(
        self, tc: Toolchain, options: VerifyOptions, convert_options: Context | Options | None
    ) -> None:
        self.tc = tc
        self.options = options
        self.convert_options = convert_options
        self.cuda_root = Path(options.cuda_root) if options.cuda_root else None
        self.trees = Trees()
        base = Flags(
            include_dirs=tuple(os.path.abspath(d) for d in options.include_dirs),
            defines=tuple(options.defines),
            std=options.std,
        )
        cdb = CompileDatabase(options.build_path) if options.build_path else None
        self.flags = FileFlags(base, cdb, self.cuda_root, self.trees)
        self.fallback = _LibraryFallback(tc, options)
        self._contexts: dict[object, Context] = {}

    def one(self, item: tuple[Path, Path]) -> FileReport:
        """Check ``hip_file`` found under input ``root``."""
        hip_file, root = item
        notes: list[str] = []
        cuda_file, manifest = self._cuda_source(hip_file, root)
        hip_text = hip_file.read_text(errors="surrogateescape")
        flags = self.flags.of(hip_file, root, cuda_file, hip_text, notes)
        file_tc, why = self.fallback.choose(hip_text)
        if why:
            notes.append(why)
        result = _compile(file_tc, hip_file, flags, self.options)
        if self.cuda_root and cuda_file is None and result.errors:
            notes.append(f"no CUDA source found under {self.cuda_root}; errors not mapped back")
        smap = None
        if cuda_file is not None and result.diagnostics:
            smap = self._source_map(hip_file, hip_text, cuda_file, root, manifest)
        report = _finish(result, hip_text, smap, notes, file_tc)
        report.cuda_path = str(cuda_file) if cuda_file is not None else report.cuda_path
        if file_tc is not self.tc:
            report.toolchain = file_tc.describe()
        return report

    def _cuda_source(self, hip_file: Path, root: Path) -> tuple[Path | None, Manifest | None]:
        """The CUDA file ``hip_file`` was converted from: found under ``--from`` by name, or
        recorded in the manifest convert wrote in the tree (returned too, or None)."""
        if self.cuda_root is not None:
            return find_cuda_source(hip_file, root, self.cuda_root), None
        manifest = self.trees.get("manifest", root, tree_manifest)
        return (manifest_source(manifest, hip_file) if manifest is not None else None), manifest

    def _source_map(
        self,
        hip_file: Path,
        hip_text: str,
        cuda_file: Path,
        root: Path,
        manifest: Manifest | None,
    ) -> SourceMap:
        """Redo the conversion of ``cuda_file`` in memory: the edits map HIP lines to CUDA
        lines.  The tree's manifest gives the options when the caller gave none."""
        with _CONVERT_LOCK:  # libclang's shared index is not thread-safe
            if manifest is not None and self.convert_options is None:
                ctx = self.context(root, manifest_options(manifest))
            else:
                ctx = self.context("ctx", self.convert_options)
            return rebuild(str(hip_file), hip_text, str(cuda_file), ctx)

    def context(self, key: object, options: Context | Options | None) -> Context:
        """The conversion context of ``options``, made once per ``key`` (a tree root, whose
        manifest gives them, or "ctx": the caller's)."""
        if key not in self._contexts:
            self._contexts[key] = _convert_context(options)
        return self._contexts[key]


def _compile(tc: Toolchain, hip_file: Path, flags: Flags, options: VerifyOptions) -> CompileResult:
    """One translation unit through ``tc``: a compiler, or libclang's own checks."""
    if tc.kind == "libclang":
        return check_file(tc, str(hip_file), flags)
    return compile_file(tc, str(hip_file), flags, options.mode, options.timeout)
