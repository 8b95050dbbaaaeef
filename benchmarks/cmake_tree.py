"""Does a converted CMake sample collection build as one tree with CMake's HIP language?

The tree is converted whole with the real CLI, configured from its top ``CMakeLists.txt``
(clang-19 as C, C++ and HIP compiler, the ROCm 7.2.4 headers and runtime libraries laid out as
a ROCm root, ``-fuse-ld=lld``), and a deterministic subset of its targets (every ``--every``-th
of the order ``make help`` lists them in, from ``--offset``) is built one target at a time
with ``make -k``. Each target is printed as built or failed with its first error.

A failed target counts as *reported* when ``hipify-py check`` on the CUDA tree has an
error-level finding at the CUDA line its first compiler error maps back to (``verify``'s line
map), or on a line the finding names as dependent on it.

Two things the environment, not hipify-py, lacks are made up for, and both are printed:
- ROCm runtime libraries the package configs name but the runtime sets lack get empty shared
  libraries as stand-ins, so configure passes; a target that calls into one fails at link
  time and counts as failed. More real ones come from Debian (``--extra-runtime``):
  ``ROCM_RUNTIME_PKGS="libhipsparse4 libhipfft0 libhipsolver1 libhiprtc7"
  .ci/get-rocm-runtime.sh DEST``.
- A directory whose configure step fails is left out only when ``hipify-py check`` reported a
  build-file finding in that directory's ``CMakeLists.txt`` (HB101 for an NVIDIA-only
  setting, HB104 for a library with no ROCm counterpart, ...); its targets count as
  failed-but-reported. A configure failure hipify-py did not report stops the run.

    python benchmarks/cmake_tree.py /work/ext-bf/csfull --work /tmp/ct --every 4 --offset 0 \
        --extra-runtime /work/ext-bf/rocm-extra/usr

The project stays outside the repository (see docs/buildfiles.md for the commit measured).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from hipify_py.verify.fetch import cache_root
from hipify_py.verify.mapback import SourceMap, find_cuda_source

MULTIARCH = "lib/x86_64-linux-gnu"
# The ROCm 7.2.4 runtime libraries (Debian's builds) call glibc 2.38 symbols (__isoc23_strtoul)
# that an older build machine's libc lacks; lld checks a shared library's undefined symbols
# when all its dependencies are on the link line (libhiprtc, libhipfft, libhipsolver). The
# program would run where ROCm 7.2.4 is installed; the build is what is measured.
SHLIB_UNDEFINED = "-Wl,--allow-shlib-undefined"
_LOCATION = re.compile(r'IMPORTED_LOCATION_\w+ "\$\{_IMPORT_PREFIX\}/([^"]+)"')
_CMAKE_ERROR = re.compile(r"^CMake Error at (\S+CMakeLists\.txt):\d+", re.M)
_NOTFOUND_USER = re.compile(r'linked by target "[^"]+" in directory (\S+)')
_TARGET = re.compile(r"^\s*(?:add_executable|add_library|add_custom_target)\(\s*([\w.+-]+)", re.M)
_LOCATION_OF_ERROR = re.compile(r"(/\S+?):(\d+):\d+: (?:fatal )?error:")
_ERROR = re.compile(r"error:|Error \d|undefined (?:symbol|reference)|No rule to make", re.I)
_BUILTIN = {
    "all",
    "clean",
    "depend",
    "edit_cache",
    "rebuild_cache",
    "install",
    "list_install_components",
}


def run(
    cmd: list[str], cwd: Path | None = None, timeout: int = 3600
) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def rocm_root(work: Path, rocm: Path, runtimes: list[Path]) -> tuple[Path, list[str]]:
    """A ROCm root CMake's HIP language accepts (as tests/test_examples_build.py lays it out),
    with empty shared libraries standing in for the runtime libraries the set lacks."""
    usr = work / "rocm" / "usr"
    if usr.exists():
        shutil.rmtree(usr.parent)
    usr.mkdir(parents=True)
    run(["cp", "-as", f"{rocm}/.", f"{usr}/"]).check_returncode()
    for runtime in runtimes:
        run(["cp", "-asf", f"{runtime}/lib/.", f"{usr}/lib/"]).check_returncode()
    shutil.rmtree(usr / MULTIARCH / "cmake")
    shutil.copytree(rocm / MULTIARCH / "cmake", usr / MULTIARCH / "cmake", symlinks=False)
    (usr / "bin").mkdir(exist_ok=True)
    (usr / "lib" / "lib").symlink_to("x86_64-linux-gnu")
    stand_ins = []
    for config in sorted((usr / MULTIARCH / "cmake").rglob("*-targets-*.cmake")):
        for rel in _LOCATION.findall(config.read_text()):
            lib = usr / rel
            if lib.exists():
                continue
            if ".so" in lib.name:  # an empty shared library with the soname the config names
                cmd = ["clang-19", "-shared", "-x", "c", "/dev/null", f"-Wl,-soname,{lib.name}"]
                run([*cmd, "-o", str(lib)]).check_returncode()
            else:
                lib.write_bytes(b"!<arch>\n")  # an empty static archive
            stand_ins.append(lib.name)
    return usr, stand_ins


def configure_args(usr: Path, src: Path, build: Path) -> list[str]:
    device_libs = usr / "lib/llvm-17/lib/clang/17/amdgcn/bitcode"
    return [
        "cmake", "-G", "Unix Makefiles", "-Wno-dev",
        "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
        "-DCMAKE_HIP_COMPILER=clang++-19", f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={usr / 'lib'}",
        f"-DCMAKE_PREFIX_PATH={usr};{usr / MULTIARCH / 'cmake'}",
        f"-DCMAKE_HIP_FLAGS=--rocm-path={usr} --rocm-device-lib-path={device_libs}",
        f"-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld {SHLIB_UNDEFINED}",
        "-S", str(src), "-B", str(build),
    ]  # fmt: skip


def findings(src: Path) -> list[dict]:
    """Every finding ``hipify-py check`` reports on a tree, paths relative to it."""
    out = Path(src.parent / f".{src.name}-check.json")
    cmd = [sys.executable, "-m", "hipify_py", "check", str(src), "-j", "2", "-q"]
    run([*cmd, "--format", "json", "-o", str(out)])
    found = json.loads(out.read_text())["findings"]
    out.unlink()
    for f in found:
        f["path"] = str((Path.cwd() / f["path"]).resolve().relative_to(src.resolve()))
    return found


def reported_build_files(found: list[dict]) -> dict[str, list[str]]:
    """Build files hipify-py reported a finding in (relative path -> rule IDs)."""
    out: dict[str, list[str]] = defaultdict(list)
    for f in found:
        if f["rule"].startswith("HB"):
            out[f["path"]].append(f["rule"])
    return out


def reported_error(found: list[dict], src: Path, hip: Path, first: str) -> str:
    """The error-level findings hipify-py reported at the CUDA line a compiler error
    (``path:line:col: error``) in the converted tree comes from; "" when there is none."""
    m = _LOCATION_OF_ERROR.match(first)
    if not m:
        return ""
    path = m.group(1)  # two compilers' output can share a line under make -j: the last path
    path = path[path.rfind(str(hip)) :] if str(hip) in path else path
    hip_file = Path(os.path.normpath(path))
    cuda_file = find_cuda_source(hip_file, hip, src)
    if cuda_file is None or not hip_file.is_file():
        return ""
    read = {"encoding": "utf-8", "errors": "surrogateescape"}
    smap = SourceMap(str(hip_file), hip_file.read_text(**read), "", cuda_file.read_text(**read))
    line = smap.to_cuda(int(m.group(2)), 1)["line"]
    rel = str(cuda_file.resolve().relative_to(src.resolve()))
    here = (f for f in found if f["path"] == rel and line in _lines(f))
    return ", ".join(sorted({f["rule"] for f in here if f["severity"] == "error"}))


def _lines(finding: dict) -> set[int]:
    """The lines a finding is about: its own and those it names as dependent on it."""
    related = str(finding.get("data", {}).get("related_lines", ""))
    return {finding["line"], *(int(x) for x in related.split(",") if x.strip().isdigit())}


def leave_out(hip: Path, rel: str) -> list[str]:
    """Comment out the ``add_subdirectory`` that reaches directory ``rel``; its targets."""
    d = Path(rel).parent
    parent = hip / d.parent / "CMakeLists.txt"
    text = parent.read_text()
    pattern = re.compile(rf"^(\s*add_subdirectory\(\s*{re.escape(d.name)}\s*\))", re.M)
    if not pattern.search(text):
        raise SystemExit(f"cannot leave out {rel}: no add_subdirectory({d.name}) in {parent}")
    parent.write_text(pattern.sub(r"# left out by benchmarks/cmake_tree.py: \1", text))
    names = []
    for cm in sorted((hip / d).rglob("CMakeLists.txt")):
        names += [n for n in _TARGET.findall(cm.read_text()) if "${" not in n]
    return names


def configure(
    usr: Path, hip: Path, build: Path, reported: dict[str, list[str]]
) -> dict[str, list[str]]:
    """Configure, leaving out reported directories whose configure fails; -> left-out targets
    per directory (with the rules reported there)."""
    left: dict[str, list[str]] = {}
    for _ in range(20):
        shutil.rmtree(build, ignore_errors=True)
        proc = run(configure_args(usr, hip, build))
        (build.parent / "configure.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode == 0:
            return left
        failing = set(_CMAKE_ERROR.findall(proc.stderr))
        for d in _NOTFOUND_USER.findall(proc.stderr):
            failing.add(str(Path(d).relative_to(hip) / "CMakeLists.txt"))
        if not failing:
            raise SystemExit(f"configure failed:\n{proc.stderr[-3000:]}")
        for rel in sorted(failing):
            if rel not in reported:
                raise SystemExit(f"configure failed in {rel}, which hipify-py did not report")
            rules = sorted(set(reported[rel]))
            left[rel] = [f"{t} ({', '.join(rules)})" for t in leave_out(hip, rel)]
    raise SystemExit("configure did not converge")


def targets(build: Path) -> list[str]:
    """The targets ``make help`` lists, in its order (the subsets are slices of it)."""
    out = run(["make", "help"], cwd=build).stdout
    names = [line[4:].split()[0] for line in out.splitlines() if line.startswith("... ")]
    return [n for n in names if n not in _BUILTIN]


def build_file_errors(found: list[dict], build: Path, target: str) -> str:
    """Error-level build-file findings in the CMakeLists.txt that declares ``target`` (a
    custom command the conversion could not port, HB108)."""
    dirs = sorted(build.glob(f"**/CMakeFiles/{target}.dir"))
    if not dirs:
        return ""
    rel = str(dirs[0].parent.parent.relative_to(build) / "CMakeLists.txt")
    here = (f for f in found if f["path"] == rel and f["rule"].startswith("HB"))
    return ", ".join(sorted({f["rule"] for f in here if f["severity"] == "error"}))


def build_target(build: Path, target: str, jobs: int) -> tuple[bool, str, float]:
    t0 = time.monotonic()
    proc = run(["make", "-k", f"-j{jobs}", "--output-sync=target", target], cwd=build, timeout=1800)
    log = proc.stdout + proc.stderr
    first = next((x.strip() for x in log.splitlines() if _ERROR.search(x)), "")
    return proc.returncode == 0, first[:220], time.monotonic() - t0


def print_result(r: dict) -> None:
    status = "BUILT " if r["built"] else "FAILED, reported" if r["reported"] else "FAILED"
    print(f"{status} {r['target']} ({r['seconds']} s) {r['reported']} {r['first_error']}")


def reclassify(path: Path, src: Path, hip: Path, build: Path) -> list[dict]:
    """The results of an earlier run, their failures classified again (no build)."""
    found = findings(src)
    results = json.loads(path.read_text())["results"]
    for r in results:
        if not r["built"] and not r["first_error"].startswith("left out"):
            r["reported"] = reported_error(found, src, hip, r["first_error"])
            r["reported"] = r["reported"] or build_file_errors(found, build, r["target"])
        print_result(r)
    return results


def prepare(args: argparse.Namespace, work: Path) -> tuple[list[dict], dict, list[str]]:
    """Lay out the ROCm root, convert, configure: -> findings, left-out targets, stand-ins."""
    usr, stand_ins = rocm_root(work, args.rocm, [args.runtime, *args.extra_runtime])
    print(f"stand-in runtime libraries: {', '.join(stand_ins) or 'none'}")
    hip, build = work / "hip", work / "build"
    reuse = args.reuse and (work / "left-out.json").is_file()
    if not reuse:
        shutil.rmtree(hip, ignore_errors=True)
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(args.src), "--out-dir", str(hip)]
    run([*cmd, "-q", "--no-hazards", "-j", "2", "--force"])
    found = findings(args.src)
    if reuse:  # the build tree stays; make re-runs CMake where a CMakeLists.txt changed
        left = json.loads((work / "left-out.json").read_text())
        for rel in left:
            leave_out(hip, rel)
    else:
        left = configure(usr, hip, build, reported_build_files(found))
        (work / "left-out.json").write_text(json.dumps(left, indent=1))
    for rel, names in left.items():
        print(f"left out (reported): {rel}: {', '.join(names)}")
    return found, left, stand_ins


def build_subset(args: argparse.Namespace, work: Path, found: list[dict], left: dict) -> list:
    hip, build = work / "hip", work / "build"
    reported = [t for names in left.values() for t in names]
    every = targets(build) + [t.split()[0] for t in reported]
    chosen = list(args.only) or every[args.offset :: args.every]
    print(f"{len(every)} targets ({len(reported)} left out, reported); building {len(chosen)}")
    results = []
    for name in chosen:
        rules = next((t.split(" ", 1)[1] for t in reported if t.split()[0] == name), "")
        if rules:
            ok, first, secs = False, "left out: configure fails", 0.0
        else:
            ok, first, secs = build_target(build, name, args.jobs)
            rules = "" if ok else reported_error(found, args.src, hip, first)
            rules = rules or ("" if ok else build_file_errors(found, build, name))
        results.append({"target": name, "built": ok, "reported": rules, "first_error": first})
        results[-1]["seconds"] = round(secs)
        print_result(results[-1])
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="the CUDA project (its top CMakeLists.txt)")
    ap.add_argument("--work", type=Path, required=True, help="scratch directory")
    ap.add_argument("--every", type=int, default=4, help="build every N-th target")
    ap.add_argument("--offset", type=int, default=0, help="... starting with this one")
    ap.add_argument("--jobs", type=int, default=2, help="make -j")
    ap.add_argument("--only", nargs="*", default=(), help="build these targets instead")
    ap.add_argument("--rocm", type=Path, default=cache_root() / "rocm-7.2.4" / "usr")
    ap.add_argument("--runtime", type=Path, default=cache_root() / "rocm-7.2.4-runtime" / "usr")
    ap.add_argument(
        "--extra-runtime",
        type=Path,
        nargs="*",
        default=[],
        help="more runtime library sets (ROCM_RUNTIME_PKGS=... .ci/get-rocm-runtime.sh DEST)",
    )
    ap.add_argument("--json", type=Path, help="write the per-target results here")
    ap.add_argument(
        "--reuse", action="store_true", help="keep the configured build tree (convert again)"
    )
    ap.add_argument("--reclassify", type=Path, help="classify the failures of this --json again")
    args = ap.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.reclassify:
        results = reclassify(args.reclassify, args.src, work / "hip", work / "build")
        stand_ins = json.loads(args.reclassify.read_text())["stand_ins"]
    else:
        found, left, stand_ins = prepare(args, work)
        results = build_subset(args, work, found, left)
    built = sum(r["built"] for r in results)
    told = sum(bool(r["reported"]) for r in results)
    n = max(len(results), 1)
    print(f"built {built} of {len(results)} ({100 * built / n:.0f}%)")
    print(f"failed {len(results) - built}, of which reported by hipify-py where they fail: {told}")
    if args.json:
        args.json.write_text(json.dumps({"stand_ins": stand_ins, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
