"""Real-world compile rate: convert public CUDA projects and compile every translation unit for AMD.

Usage:
    python benchmarks/realworld.py PROJECT_DIR [PROJECT_DIR ...] [--work DIR] [--jobs N]
        [--hipify-perl PATH/bin/hipify-perl] [--rocm DIR/usr] [--nvidia-include DIR ...]
        [--flags FILE] [--json FILE]

Each PROJECT_DIR is one project (a clone kept outside this repository). A translation unit (TU) is
a `.cu` file. Only TUs whose CUDA original compiles with nvcc here count: the question is whether
the *port* builds, not whether the project builds on this machine. For those, the script reports
the share of TUs that pass a compile check

- for gfx942 (MI300X): clang-19 with the ROCm 7.2.4 headers (the flags of the shared toolchain
  notes), on `hipify-py convert`'s default output;
- for gfx90a (MI200): Debian's hipcc 5.2, on `hipify-py convert --target-rocm 5.2` output (HIP 5.2
  has no warp `*_sync` intrinsics, so that is the conversion a user targeting it runs);

and the same two figures for AMD's hipify-perl (`-inplace` over the tree's sources, one process),
whose output has one form for every target.

The whole tree is converted, as a user would, and every compile sees the converted headers.
Include directories are found the way a build file would name them: the TU's own directory, the
project root, and for each `#include` (quoted or angled, followed through the project's own
headers) that does not resolve there, the directory inside the project that makes it resolve
(`Common/` of cuda-samples, `include/` of a CMake project). AMD checks are syntax and semantics
only (`-fsyntax-only`, host and device); nvcc generates PTX for compute_90 (no ptxas). nvcc results
are cached in the work directory: the originals do not change.

A project's own build flags come from `--flags FILE`, a JSON object from project directory name
to the flags its build passes (`{"nccl-tests": ["-DNCCL_OS_LINUX", "-Isrc"], "cutlass-ex":
["--expt-extended-lambda"]}`): `-D`/`-U`/`-I` flags (a relative `-I` is a directory of the
project, and of its converted tree for the AMD checks) and `-std=` go to every compiler, other
flags to nvcc only. NVIDIA's library header wheels (cuBLAS, cuRAND, cuSPARSE, cuSOLVER, cuFFT,
NCCL: the `include/` of each `nvidia-<lib>-cu12` wheel unpacked as
~/.cache/hipify-py/nvidia/<lib>/include; `.ci/run` fetches the first four) are on nvcc's path by
default, so library code counts: a missing one drops that library's TUs from the count.

Prints one Markdown table row per project, the wall time of each conversion, what `hipify-py
convert` reported (exit code, failures, tracebacks), and the most frequent first compile error of
each tool for gfx942. `--json` keeps every TU's result and error lines for analysis.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}
INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
TIMEOUT_S = 900
# (tool, arch) checks in the order the table shows them
CHECKS = (
    ("hipify-py", "gfx942"),
    ("hipify-py", "gfx90a"),
    ("hipify-perl", "gfx942"),
    ("hipify-perl", "gfx90a"),
)


@dataclass
class Toolchain:
    """Compilers and header sets every check uses."""

    rocm: Path
    nvidia_includes: list[Path]
    hipify_perl: Path | None
    # searched last by the AMD compilers: clang-19's headers (libomp-19-dev's <omp.h>, which gcc
    # finds for nvcc and Debian's hipcc 5.2 lacks)
    host_fallback: list[Path] = field(default_factory=list)
    nvcc_ptx: bool = False

    def _fallback(self) -> list[str]:
        return [f for d in self.host_fallback for f in ("-idirafter", str(d))]

    def nvcc(self, tu: Path, includes: Sequence[Path], flags: Sequence[str] = ()) -> list[str]:
        extra = [f for d in self.nvidia_includes for f in ("-isystem", str(d))]
        # -ptx: nvcc's front end over the whole TU and the device compiler, no host compiler
        # (a third of -c's time); a C++ source has no device code, so it gets -c
        mode = ["-ptx"] if self.nvcc_ptx and tu.suffix == ".cu" else ["-c"]
        return [
            "nvcc",
            "-std=c++17",
            "-gencode",
            "arch=compute_90,code=compute_90",
            "-w",
            *mode,
            "-o",
            os.devnull,
            *flags,
            *_include_flags(includes),
            *extra,
            str(tu),
        ]

    def gfx942(self, tu: Path, includes: Sequence[Path], flags: Sequence[str] = ()) -> list[str]:
        return [
            "clang-19",
            "-x",
            "hip",
            "--offload-arch=gfx942",
            "-nogpulib",
            "-fsyntax-only",
            "-std=c++17",
            f"--rocm-path={self.rocm}",
            "-isystem",
            str(self.rocm / "include"),
            "-w",
            "-ferror-limit=20",
            *flags,
            *_include_flags(includes),
            *self._fallback(),
            str(tu),
        ]

    def gfx90a(self, tu: Path, includes: Sequence[Path], flags: Sequence[str] = ()) -> list[str]:
        return [
            "hipcc",
            "-x",
            "hip",
            "--offload-arch=gfx90a",
            "-fsyntax-only",
            "-std=c++17",
            "-w",
            "-ferror-limit=20",
            *flags,
            *_include_flags(includes),
            *self._fallback(),
            str(tu),
        ]


def _include_flags(dirs: Iterable[Path]) -> list[str]:
    return [f"-I{d}" for d in dirs]


def project_flags(flags: Sequence[str], root: Path, amd: bool) -> list[str]:
    """A project's build flags for one compiler: a relative -I is under ``root`` (the original
    or the converted tree); the AMD compilers get only the preprocessor flags and the language
    standard (`-std=c++20`: the converted build keeps the project's standard, ggnn's
    `std::span`, compile round 32)."""
    out = []
    for flag in flags:
        if flag.startswith("-I") and not Path(flag[2:]).is_absolute():
            flag = f"-I{root / flag[2:]}"
        if not amd or flag.startswith(("-D", "-U", "-I", "-std=")):
            out.append(flag)
    return out


@dataclass
class TuResult:
    """One translation unit: its nvcc result and each AMD check's errors (None = not run)."""

    path: str
    nvcc_ok: bool
    nvcc_errors: list[str] = field(default_factory=list)
    checks: dict[str, list[str] | None] = field(default_factory=dict)
    # hipify-py gfx942 failures: was it reported (see classify), and by which error rules
    status: str | None = None
    rules: list[str] = field(default_factory=list)


def check_findings(project: Path, work: Path) -> dict[str, list[str]]:
    """`hipify-py check` over the project: its error-level rule IDs by file (relative path)."""
    report_file = work / f"{project.name}.check.json"
    report_file.unlink(missing_ok=True)
    # run from the project (the report's paths are relative to it): a relative PYTHONPATH,
    # as `PYTHONPATH=wt/src python wt/benchmarks/realworld.py` gives, must not change meaning
    path = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hipify_py",
            "check",
            ".",
            "--format",
            "json",
            "-o",
            str(report_file),
        ],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
    )
    if not report_file.is_file():  # no report is no finding: every failure would read silent
        raise SystemExit(f"hipify-py check wrote no report for {project}: {proc.stderr[-500:]}")
    findings = json.loads(report_file.read_text())["findings"]
    by_file: dict[str, list[str]] = collections.defaultdict(list)
    for f in findings:
        if f["severity"] == "error":
            by_file[os.path.normpath(f["path"])].append(f["rule"])
    return by_file


# the first error of a TU the shared toolchain cannot check (``classify``)
_TOOLCHAIN_GAP = "rocwmma.hpp:29:10: fatal error: 'internal/accessors.hpp' file not found"


def classify(
    rel: Path, errors: list[str], errors_by_file: dict[str, list[str]], made_of: Iterable[Path]
) -> str:
    """Was a failing TU reported? *at cause*: an error-level finding in the file of the first
    compile error (``cause_file``: for an error in a system header, the project file that
    requested the instantiation; else the TU itself when that error is outside the project);
    *elsewhere*: one in another of the project files the TU is made of (``made_of``: the TU
    and the headers it includes); *silent*: none in those. Files match by name without suffix,
    as `.cu` becomes `.hip`.  *unchecked*: the first error is the shared toolchain's own gap,
    Debian's rocWMMA package without rocWMMA's `internal/` headers (``conftest.rocwmma_check``),
    which no translation can mend: the TU says nothing of hipify-py."""
    if errors and _TOOLCHAIN_GAP in errors[0]:
        return "unchecked"
    first = cause_file(errors)
    inside = bool(first) and not first.startswith("/") and not first.startswith("timeout")
    # `dev/test/../../llmc/x.h`: the file as the check names it
    cause = Path(os.path.normpath(first)).with_suffix("") if inside else rel.with_suffix("")
    stems = {Path(f).with_suffix("") for f in errors_by_file}
    if cause in stems:
        return "at cause"
    mine = {p.with_suffix("") for p in (rel, *made_of)}
    return "elsewhere" if mine & stems else "silent"


def host_include_dirs() -> list[Path]:
    """The host C++ compiler's own search list: `<unistd.h>` is the system's, not a project's."""
    proc = subprocess.run(["cpp", "-xc++", "-v", os.devnull], capture_output=True, text=True)
    lines = proc.stderr.split("search starts here:")[-1].split("End of search list.")[0]
    return [Path(line.strip()) for line in lines.splitlines() if line.startswith(" ")]


class IncludeResolver:
    """Finds the include directories a TU needs inside its project, as its build file would."""

    def __init__(self, root: Path, system: Sequence[Path]) -> None:
        self.root = root
        self.system = system
        self.by_name: dict[str, list[Path]] = collections.defaultdict(list)
        # the project files each TU includes, directly or not (found by dirs_for)
        self.files_of: dict[Path, set[Path]] = {}
        for path in root.rglob("*"):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                self.by_name[path.name].append(path)

    def dirs_for(self, tu: Path) -> list[Path]:
        dirs: list[Path] = list(dict.fromkeys([tu.parent, self.root]))
        seen: set[Path] = set()
        pending = [tu]
        while pending:
            current = pending.pop()
            if current in seen or len(seen) > 400:
                continue
            seen.add(current)
            for angled, spelling in _includes(current):
                found = self._resolve(spelling, [current.parent, *dirs])
                if found is None and angled and self._resolve(spelling, self.system):
                    continue
                if found is None:
                    found = self._find_in_tree(spelling, tu)
                    if found is None:
                        continue
                    base = Path(str(found)[: -len(spelling)].rstrip("/"))
                    if base not in dirs:
                        dirs.append(base)
                pending.append(found)
        self.files_of[tu] = {p for p in seen if p.is_relative_to(self.root)}
        return dirs

    @staticmethod
    def _resolve(spelling: str, dirs: Sequence[Path]) -> Path | None:
        for d in dirs:
            candidate = d / spelling
            if candidate.is_file():
                return candidate.resolve() if ".." in spelling else candidate
        return None

    def _find_in_tree(self, spelling: str, tu: Path) -> Path | None:
        if ".." in spelling:
            return None
        name = spelling.rsplit("/", 1)[-1]
        matches = [p for p in self.by_name.get(name, ()) if str(p).endswith("/" + spelling)]
        if not matches:
            return None
        # the header nearest the TU, as a project's own include path would choose it
        return max(
            matches, key=lambda p: (len(os.path.commonpath([p, tu]).split("/")), -len(str(p)))
        )


def _includes(path: Path) -> list[tuple[bool, str]]:
    """(angled, spelling) of each #include in path."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    return [(m[0] == b"<", m[1].decode("utf-8", "replace")) for m in INCLUDE_RE.findall(data)]


def _errors(output: str, prefixes: Sequence[str]) -> list[str]:
    """The first error lines, and after an error inside a system header the first place of the
    project that requested the instantiation (`... requested here`): where the cause is."""
    lines = []
    for line in output.splitlines():
        for prefix in prefixes:
            line = line.replace(prefix, "")
        line = line.strip()
        if " error" in line or line.startswith("error") or "fatal error" in line:
            if "errors generated" in line or "error generated" in line:
                continue
            lines.append(line)
        elif lines and lines[0].startswith("/") and "requested here" in line:
            if not line.startswith("/") and not any("requested here" in x for x in lines):
                lines.append(line)
        if len(lines) >= 6:
            break
    return lines or [output.strip().splitlines()[-1] if output.strip() else "failed"]


def cause_file(errors: Sequence[str]) -> str:
    """The file of the first error, or, for an error inside a system header, the project file
    that requested the instantiation (blockexchange's `__syncwarp(member_mask)` in a sibling
    program's header, HeCBench); "" when neither is known."""
    first = errors[0].split(":", 1)[0] if errors else ""
    if first.startswith("/"):
        requested = next((e for e in errors if "requested here" in e), "")
        return requested.split(":", 1)[0] if requested else first
    return first


def _compile(
    cmd: list[str], prefixes: Sequence[str], env: dict[str, str] | None = None
) -> list[str]:
    """Runs one compile check; returns [] on success, else its first error lines."""
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, env=env
        )
    except subprocess.TimeoutExpired:
        return [f"timeout after {TIMEOUT_S} s"]
    return [] if proc.returncode == 0 else _errors(proc.stdout + proc.stderr, prefixes)


@dataclass
class Conversion:
    """What one conversion run of a tree cost and reported."""

    seconds: float
    returncode: int
    stderr_tail: str
    summary: dict = field(default_factory=dict)


def convert_hipify_py(project: Path, out: Path, extra: Sequence[str]) -> Conversion:
    shutil.rmtree(out, ignore_errors=True)
    summary_file = out.parent / f"{out.name}.summary.json"
    cmd = [
        sys.executable,
        "-m",
        "hipify_py",
        "convert",
        str(project),
        "--out-dir",
        str(out),
        "-q",
        "--json",
        str(summary_file),
        *extra,
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    seconds = time.perf_counter() - start
    summary = json.loads(summary_file.read_text()) if summary_file.is_file() else {}
    return Conversion(seconds, proc.returncode, proc.stderr[-3000:], summary)


def converted_flags(flags: Sequence[str], work: Path) -> list[str]:
    """The project's flags as hipify-py converts them in a build file (a one-line Makefile
    through `hipify-py convert`): what the user's converted build passes, e.g. without AMGX's
    `-DTHRUST_CUB_WRAPPED_NAMESPACE` (HB109).  The flags as given if that conversion fails."""
    if not flags:
        return []
    folder = work / "flags"
    folder.mkdir(parents=True, exist_ok=True)
    src, out = folder / "Makefile", folder / "Makefile.hip"
    src.write_text("NVCCFLAGS = " + " ".join(flags) + "\n")
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(src), "-o", str(out), "-q", "--force"]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0 or not out.is_file():
        return list(flags)
    return out.read_text().partition("=")[2].split()


def convert_hipify_perl(project: Path, out: Path, script: Path) -> Conversion:
    """Copies the tree and runs hipify-perl -inplace over its sources in one process."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(project, out, symlinks=True)
    files = sorted(str(p) for p in out.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
    start = time.perf_counter()
    returncode, tail = 0, ""
    for chunk in range(0, len(files), 2000):
        proc = subprocess.run(
            ["perl", str(script), "-inplace", "-quiet-warnings", *files[chunk : chunk + 2000]],
            capture_output=True,
            text=True,
            errors="replace",
        )
        returncode = returncode or proc.returncode
        tail += proc.stderr[-1000:]
    return Conversion(time.perf_counter() - start, returncode, tail)


class NvccCache:
    """nvcc results by command and TU content: the originals do not change between runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, list[str]] = json.loads(path.read_text()) if path.is_file() else {}
        self.lock = threading.Lock()

    def key(self, cmd: Sequence[str], tu: Path) -> str:
        return hashlib.sha256(" ".join(cmd).encode() + tu.read_bytes()).hexdigest()

    def put(self, key: str, errors: list[str]) -> None:
        with self.lock:
            self.data[key] = errors
            self.path.write_text(json.dumps(self.data))

    def errors(self, cmd: list[str], tu: Path, prefixes: Sequence[str]) -> list[str]:
        """nvcc's errors for ``cmd`` on ``tu`` ([] = it compiles), run once per content."""
        key = self.key(cmd, tu)
        if key not in self.data:
            self.put(key, _compile(cmd, prefixes))
        return self.data[key]


def _tree(tool: str, arch: str) -> str:
    """The converted tree a check reads: hipify-py's gfx90a check reads its ROCm 5.2 output."""
    return "hipify-py-rocm5.2" if (tool, arch) == ("hipify-py", "gfx90a") else tool


def convert_project(
    project: Path,
    work: Path,
    tools: Toolchain,
    flags: Sequence[str] = (),
    checks: Sequence[tuple[str, str]] = CHECKS,
) -> dict:
    """Converts the whole tree with each tool the checks need (hipify-py once more for ROCm
    5.2 when gfx90a is checked) and, when hipify-py gfx942 is, runs `hipify-py check` on it."""
    name = project.name
    needed = {_tree(tool, arch) for tool, arch in checks}
    trees = {
        "hipify-py": work / "hipify-py" / name,
        "hipify-py-rocm5.2": work / "hipify-py-rocm5.2" / name,
        "hipify-perl": work / "hipify-perl" / name,
    }
    conversions = {}
    if "hipify-py" in needed:
        conversions["hipify-py"] = convert_hipify_py(project, trees["hipify-py"], [])
    if "hipify-py-rocm5.2" in needed:
        conversions["hipify-py-rocm5.2"] = convert_hipify_py(
            project, trees["hipify-py-rocm5.2"], ["--target-rocm", "5.2"]
        )
    if tools.hipify_perl and "hipify-perl" in needed:
        conversions["hipify-perl"] = convert_hipify_perl(
            project, trees["hipify-perl"], tools.hipify_perl
        )
    errors_by_file = check_findings(project, work) if ("hipify-py", "gfx942") in checks else {}
    system = [*host_include_dirs(), *tools.nvidia_includes, Path("/usr/local/cuda/include")]
    return {
        "project": name,
        "path": project,
        "trees": trees,
        "conversions": conversions,
        "resolver": IncludeResolver(project, system),
        "flags": list(flags),
        "hipify_py_flags": converted_flags(flags, work / "hipify-py" / f"{name}.flags")
        if "hipify-py" in needed
        else list(flags),
        "checks": tuple(checks),
        "errors_by_file": errors_by_file,
    }


def translation_units(project: dict, cpp: bool) -> list[Path]:
    """The project's `.cu` files and, with ``cpp``, its C++ sources hipify-py's conversion
    changed (those use CUDA: library samples are often `.cpp`), sorted.  Not the files of a
    CMake build tree committed with the sources (simple-cuda-voxel-engine's `build/`: CMake's
    `CMakeCUDACompilerId.cu` and FetchContent's copies), which no build of the project
    compiles as its own and the tool's walk leaves out."""
    from hipify_py.discover import walk  # the tool's own walk: the same files

    root: Path = project["path"]
    tus = [c.path for c in walk([root]) if c.path.suffix == ".cu"]
    if cpp:
        tree = project["trees"]["hipify-py"]
        for path in root.rglob("*"):
            if path.suffix in {".cpp", ".cc", ".cxx"} and path.is_file():
                out = tree / path.relative_to(root)
                if out.is_file() and out.read_bytes() != path.read_bytes():
                    tus.append(path)
    return sorted(tus)


def _rel(project: dict, tu: Path) -> str:
    return str(tu.relative_to(project["path"]))


def sample(tus: list[Path], limit: int | None) -> list[Path]:
    """At most `limit` TUs, evenly spaced over the sorted list (the same ones every run)."""
    if limit is None or len(tus) <= limit:
        return tus
    return [tus[i * len(tus) // limit] for i in range(limit)]


def check_tu(project: dict, tu: Path, tools: Toolchain, cache: NvccCache) -> TuResult:
    """nvcc on the original; when it compiles, every AMD check on each tool's output."""
    root: Path = project["path"]
    trees: dict[str, Path] = project["trees"]
    rel = tu.relative_to(root)
    dirs = project["resolver"].dirs_for(tu)
    prefixes = [str(t) + "/" for t in trees.values()] + [str(root) + "/"]
    flags: list[str] = project.get("flags", [])
    nvcc_flags = project_flags(flags, root, amd=False)
    nvcc_errors = cache.errors(tools.nvcc(tu, dirs, nvcc_flags), tu, prefixes)
    result = TuResult(str(rel), not nvcc_errors, nvcc_errors)
    if not result.nvcc_ok:
        return result
    amd_env = dict(os.environ, HIP_PLATFORM="amd")
    for tool, arch in project.get("checks", CHECKS):
        tree = _tree(tool, arch)
        if tree not in project["conversions"]:
            result.checks[f"{tool} {arch}"] = None
            continue
        path = trees[tree] / rel
        if tool == "hipify-py" and not path.is_file():
            path = path.with_suffix(".hip")
        inc = [trees[tree] / d.relative_to(root) for d in dirs]
        given = project.get("hipify_py_flags", flags) if tool == "hipify-py" else flags
        amd = project_flags(given, trees[tree], amd=True)
        if arch == "gfx942":
            errs = _compile(tools.gfx942(path, inc, amd), prefixes)
        else:
            errs = _compile(tools.gfx90a(path, inc, amd), prefixes, amd_env)
        result.checks[f"{tool} {arch}"] = errs
        if errs and (tool, arch) == ("hipify-py", "gfx942"):
            by_file = project["errors_by_file"]
            made_of = [p.relative_to(root) for p in project["resolver"].files_of.get(tu, ())]
            result.status = classify(rel, errs, by_file, made_of)
            result.rules = sorted({r for f in (rel, *made_of) for r in by_file.get(str(f), ())})
    if tools.nvcc_ptx and any(result.checks.values()):
        # -ptx skipped the host compiler: a failing TU counts only if nvcc -c builds it too
        # (gcc rejects host code cudafe++ lets through, e.g. `time < 0` on the function)
        full = dataclasses.replace(tools, nvcc_ptx=False).nvcc(tu, dirs, nvcc_flags)
        host_errors = cache.errors(full, tu, prefixes)
        if host_errors:
            return TuResult(str(rel), False, host_errors)
    return result


STATUSES = ("at cause", "elsewhere", "silent", "unchecked")


def summarise(measured: list[dict], checks: Sequence[tuple[str, str]] = CHECKS) -> str:
    """One row per project: TUs, nvcc-clean, each check's pass share, and how hipify-py's
    gfx942 failures were reported (at cause / elsewhere / silent / unchecked)."""
    labels = [f"{tool} {arch}" for tool, arch in checks]
    classified = "hipify-py gfx942" in labels
    columns = ["project", "TUs", "nvcc OK", *labels]
    if classified:
        columns.append("failures: " + " / ".join(STATUSES))
    head = f"| {' | '.join(columns)} |\n|{'---|' * len(columns)}\n"
    rows = []
    totals: collections.Counter[str] = collections.Counter()
    for m in measured:
        ok = [t for t in m["tus"] if t.nvcc_ok]
        counts = collections.Counter({"tus": len(m["tus"]), "ok": len(ok)})
        for label in labels:
            counts[label] = sum(1 for t in ok if t.checks.get(label) == [])
        for status in STATUSES:
            counts[status] = sum(1 for t in ok if t.status == status)
        totals.update(counts)
        rows.append(_row(m["project"], counts, labels, classified))
    rows.append(_row("**all**", totals, labels, classified))
    return head + "\n".join(rows)


def _row(name: str, counts: collections.Counter[str], labels: list[str], classified: bool) -> str:
    cells = [name, str(counts["tus"]), str(counts["ok"])]
    cells += [_share(counts[label], counts["ok"]) for label in labels]
    if classified:
        cells.append(" / ".join(str(counts[status]) for status in STATUSES))
    return f"| {' | '.join(cells)} |"


def _share(passed: int, total: int) -> str:
    return f"{passed}/{total} ({100 * passed / total:.0f}%)" if total else "–"


_NORMALISE = [
    (re.compile(r"^[^:]*:\d+:\d+: "), ""),
    (re.compile(r"'[^']*'"), "'…'"),
    (re.compile(r"\d+"), "N"),
]


def error_kind(line: str) -> str:
    """The first error with file, line and quoted names stripped, to group failures by cause."""
    for pattern, repl in _NORMALISE:
        line = pattern.sub(repl, line)
    return line[:140]


def report(measured: list[dict], checks: Sequence[tuple[str, str]] = CHECKS) -> None:
    """The summary table, then each TU hipify-py's output failed for gfx942, each conversion
    run, and the commonest first errors of each tool."""
    print(summarise(measured, checks))
    print()
    for m in measured:
        for t in m["tus"]:
            errs = t.checks.get("hipify-py gfx942")
            if errs:
                print(f"FAIL {m['project']}/{t.path} [{t.status} {','.join(t.rules)}]: {errs[0]}")
    print()
    for m in measured:
        for tool, conv in m["conversions"].items():
            print(f"{m['project']} {tool}: {_conversion_note(conv)}")
    for tool in ("hipify-py", "hipify-perl"):
        print(f"\nmost frequent first gfx942 errors, {tool}:")
        for kind, count in _first_errors(measured, tool).most_common(25):
            print(f"{count:4d}  {kind}")


def _conversion_note(conv: Conversion) -> str:
    """One conversion run: exit status, time, the summary's file counts, a traceback's tail."""
    files = conv.summary.get("files", {})
    note = f"exit {conv.returncode}, {conv.seconds:.1f} s"
    if files:
        note += f", files {files}, failures {conv.summary.get('failures')}"
    if "Traceback" in conv.stderr_tail:
        note += ", TRACEBACK: " + conv.stderr_tail[-400:]
    return note


def _first_errors(measured: list[dict], tool: str) -> collections.Counter[str]:
    """How many TUs of ``tool``'s output failed for gfx942 with each kind of first error."""
    kinds: collections.Counter[str] = collections.Counter()
    for m in measured:
        for t in m["tus"]:
            errs = t.checks.get(f"{tool} gfx942")
            if errs:
                kinds[error_kind(errs[0])] += 1
    return kinds


def from_progress(progress: Path, projects: Sequence[Path]) -> list[dict]:
    """The results a run has written so far, in the order of `projects` (conversions unknown)."""
    by_project: dict[str, list[TuResult]] = {p.name: [] for p in projects}
    for line in progress.read_text().splitlines():
        record = json.loads(line)
        name = record.pop("project")
        if name in by_project:
            by_project[name].append(TuResult(**record))
    return [{"project": n, "conversions": {}, "tus": tus} for n, tus in by_project.items()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="+", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/hipify-realworld"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hipify-perl", type=Path, help="AMD HIPIFY's bin/hipify-perl")
    parser.add_argument(
        "--rocm",
        type=Path,
        default=Path(
            os.environ.get("HIPIFY_PY_ROCM7", Path.home() / ".cache/hipify-py/rocm-7.2.4/usr")
        ),
    )
    parser.add_argument(
        "--nvidia-include",
        type=Path,
        action="append",
        default=[],
        help="NVIDIA library headers for nvcc (default: ~/.cache/hipify-py/nvidia/*)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="check at most N TUs per project, evenly spaced (the tree is still converted whole)",
    )
    parser.add_argument(
        "--flags",
        type=Path,
        help="JSON: project directory name -> its build flags (-D/-I for every compiler)",
    )
    parser.add_argument("--json", type=Path, help="write every TU's results here")
    parser.add_argument(
        "--gfx942-only",
        action="store_true",
        help="only hipify-py's default conversion, checked for gfx942 (no gfx90a, no hipify-perl)",
    )
    parser.add_argument(
        "--nvcc-ptx", action="store_true", help="nvcc -ptx for .cu TUs (no host compiler; faster)"
    )
    parser.add_argument(
        "--cpp",
        action="store_true",
        help="C++ sources (.cpp .cc .cxx) that hipify-py converts are TUs too, not only .cu",
    )
    parser.add_argument(
        "--only-failed",
        type=Path,
        metavar="PROGRESS",
        help="only the TUs whose hipify-py gfx942 check failed in this progress.jsonl of a run",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="print the table from WORK/progress.jsonl (a run so far) and exit",
    )
    args = parser.parse_args(argv)
    checks = [("hipify-py", "gfx942")] if args.gfx942_only else list(CHECKS)
    if args.report_only:
        report(from_progress(args.work / "progress.jsonl", args.projects), checks)
        return 0

    nvidia = args.nvidia_include or sorted(
        (Path.home() / ".cache/hipify-py/nvidia").glob("*/include")
    )
    resource = subprocess.run(["clang-19", "-print-resource-dir"], capture_output=True, text=True)
    fallback = [d for d in [Path(resource.stdout.strip()) / "include"] if (d / "omp.h").is_file()]
    tools = Toolchain(args.rocm, nvidia, args.hipify_perl, fallback, args.nvcc_ptx)
    if not (args.rocm / "include/hip/hip_runtime.h").is_file():
        print(f"error: no ROCm headers under {args.rocm} (--rocm)", file=sys.stderr)
        return 2
    for needed in ("nvcc", "clang-19", "hipcc"):
        if shutil.which(needed) is None:
            print(f"error: {needed} not found on PATH", file=sys.stderr)
            return 2
    args.work.mkdir(parents=True, exist_ok=True)
    cache = NvccCache(args.work / "nvcc-cache.json")
    try:
        flags_of: dict[str, list[str]] = json.loads(args.flags.read_text()) if args.flags else {}
    except (OSError, ValueError) as e:
        print(f"error: --flags {args.flags}: {e}", file=sys.stderr)
        return 2
    projects = []
    for path in args.projects:
        start = time.perf_counter()
        flags = flags_of.get(path.resolve().name, [])
        projects.append(convert_project(path.resolve(), args.work, tools, flags, checks))
        print(f"[converted {path.name}: {time.perf_counter() - start:.0f} s]", file=sys.stderr)
    jobs = [(p, tu) for p in projects for tu in sample(translation_units(p, args.cpp), args.sample)]
    if args.only_failed:
        failed = {
            (r["project"], r["path"])
            for r in map(json.loads, args.only_failed.read_text().splitlines())
            if r["checks"].get("hipify-py gfx942")
        }
        jobs = [
            (p, tu) for p, tu in jobs if (p["project"], str(tu.relative_to(p["path"]))) in failed
        ]
    progress = args.work / "progress.jsonl"
    progress.write_text("")

    def run(job: tuple[dict, Path]) -> TuResult:
        result = check_tu(job[0], job[1], tools, cache)
        with open(progress, "a") as f:
            f.write(json.dumps({"project": job[0]["project"], **vars(result)}) + "\n")
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run, jobs))
    measured = [
        {
            "project": p["project"],
            "conversions": p["conversions"],
            "tus": [r for (q, _), r in zip(jobs, results, strict=True) if q is p],
        }
        for p in projects
    ]
    report(measured, checks)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        **m,
                        "conversions": {k: vars(c) for k, c in m["conversions"].items()},
                        "tus": [vars(t) for t in m["tus"]],
                    }
                    for m in measured
                ],
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
