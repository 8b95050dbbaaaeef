"""Speed of `hipify-py convert` on real trees as a user runs it, next to hipify-perl.

Usage:
    python benchmarks/bench_speed.py DIR [DIR ...] [--work DIR] [--jobs 1,2]
        [--hipify-perl PATH/bin/hipify-perl] [--perl-per-file N] [--repeat N]
    python benchmarks/bench_speed.py --generate 1000 [--jobs 1]

The C/C++/CUDA sources of the given directories (public CUDA projects kept outside this repository)
are copied into one tree (data files left out, so both tools see exactly the same files). Then, for
each `-j` value, the `hipify-py` command line converts the whole tree, each time a fresh process:

- cold: an empty cache directory (`XDG_CACHE_HOME`): the mapping index is built from YAML, no
  per-file cache exists, the output directory is new;
- first: the first conversion of this tree where hipify-py ran before: the mapping index cached
  (by converting a one-file tree into the emptied cache directory first), no per-file records for
  the tree, a new output directory;
- warm: the caches the cold run left, a new output directory (every file is written);
- no-change: the caches and the output of the warm run, nothing changed in the tree;
- one edited: the same, after one source file was changed (only it is converted again);
- no cache: `--no-cache`, the mapping index cache warm, the output of the runs before.

Cold, first, warm and no-change run `--repeat` times each (default 3; the cold and first runs
each start from an empty cache again) and the run of median CPU time is reported: this VM's
hiccups move a single 0.3 s run by up to 20%.

`--generate N` converts N files made by `bench_convert.py` instead of copied projects.  The
package's bytecode is compiled beforehand (into a prefix in the scratch directory), as
`pip install` does, so no run pays for compiling the modules.

Reported per run: wall time, CPU time (user + system of the process and its workers; on a loaded
machine the ratio of CPU times is the steadier figure), files/s and lines/s over the tree's
source files (by wall time), and the peak RSS of the largest process (`wait4`).

hipify-perl (AMD HIPIFY's `bin/hipify-perl`) converts the same copy with `-inplace`, once in as few
processes as the command line allows and once file by file (one process per file;
`--perl-per-file N` times the first N files and extrapolates).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SOURCE_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}
ARG_CHUNK = 2000  # files per hipify-perl process in the one-process run (command-line length)


@dataclass
class Run:
    """One timed process tree."""

    seconds: float
    peak_rss_mib: float
    returncode: int
    cpu: float = 0.0  # user + system seconds


def timed(cmd: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """Runs cmd to completion; peak RSS is the largest process in its tree (wait4's ru_maxrss)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode, cpu)


def source_tree(dirs: Sequence[Path], dest: Path) -> list[Path]:
    """Copies the C/C++/CUDA sources of dirs under dest (one subdirectory each)."""
    files = []
    for d in dirs:
        for path in sorted(d.rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file() and not path.is_symlink():
                target = dest / d.name / path.relative_to(d)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                files.append(target)
    return files


def line_count(files: Sequence[Path]) -> int:
    return sum(path.read_bytes().count(b"\n") for path in files)


def python_env(work: Path) -> dict[str, str]:
    """The environment of the runs: bytecode compiled once into a prefix under ``work``."""
    import hipify_py

    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(work / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    package = str(Path(hipify_py.__file__).parent)
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True)
    return env


def median(runs: Sequence[Run]) -> Run:
    """The run of median CPU time: one VM hiccup in a 0.3 s run moves a ratio by 20%."""
    return sorted(runs, key=lambda run: run.cpu)[len(runs) // 2]


def hipify_py_runs(tree: Path, work: Path, jobs: int, repeat: int) -> dict[str, Run]:
    """Cold, first, warm, no-change, one-edited and no-cache conversions of tree with -j jobs,
    each a fresh process; the first four ``repeat`` times each (the median is kept)."""
    cache = work / f"cache-j{jobs}"  # emptied before each cold and first run
    env = dict(python_env(work), XDG_CACHE_HOME=str(cache))
    primer = work / "primer"  # a one-file tree whose conversion leaves the mapping index cached
    primer.mkdir(exist_ok=True)
    (primer / "primer.cu").write_text("__global__ void k() {}\n")

    def convert(out: Path, *extra: str, source: Path = tree) -> Run:
        cmd = [
            sys.executable,
            "-m",
            "hipify_py",
            "convert",
            str(source),
            "--out-dir",
            str(out),
            "-q",
            "-j",
            str(jobs),
            *extra,
        ]
        return timed(cmd, env)

    runs = {}
    out = work / f"out-j{jobs}"
    for name in ("cold", "first", "warm", "no-change"):
        tries = []
        for _ in range(repeat):
            if name in ("cold", "first"):
                shutil.rmtree(cache, ignore_errors=True)
            if name == "first":
                shutil.rmtree(work / "primer-out", ignore_errors=True)
                convert(work / "primer-out", source=primer)
            if name != "no-change":
                shutil.rmtree(out, ignore_errors=True)
            tries.append(convert(out))
        runs[name] = median(tries)
    edited = first_cuda_file(tree)
    original = edited.read_bytes()
    try:
        edited.write_bytes(original + b"\n// edited by bench_speed\n")
        runs["one edited"] = convert(out)
    finally:
        edited.write_bytes(original)
    runs["no cache"] = convert(out, "--no-cache")
    return runs


def first_cuda_file(tree: Path) -> Path:
    return next(p for p in sorted(tree.rglob("*.cu")) if p.is_file())


def hipify_perl_runs(
    tree: Path, files: Sequence[Path], work: Path, script: Path, per_file_limit: int | None
) -> dict[str, Run]:
    """hipify-perl -inplace over a copy of the tree: in few processes, and one process per file."""
    runs = {}
    for name in ("one process", "file by file"):
        copy = work / "perl-tree"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy)
        targets = [str(copy / f.relative_to(tree)) for f in files]
        if name == "one process":
            chunks = [targets[i : i + ARG_CHUNK] for i in range(0, len(targets), ARG_CHUNK)]
        else:
            chunks = [[t] for t in targets[:per_file_limit]]
        total = Run(0.0, 0.0, 0)
        for chunk in chunks:
            run = timed(["perl", str(script), "-inplace", "-quiet-warnings", *chunk])
            total = Run(
                total.seconds + run.seconds,
                max(total.peak_rss_mib, run.peak_rss_mib),
                total.returncode or run.returncode,
                total.cpu + run.cpu,
            )
        if len(chunks) < len(targets) and name == "file by file":
            scale = len(targets) / len(chunks)  # extrapolated from the timed files
            total.seconds *= scale
            total.cpu *= scale
        runs[name] = total
    return runs


def row(label: str, run: Run, files: int, lines: int, note: str = "") -> str:
    return (
        f"| {label} | {run.seconds:.2f} s | {run.cpu:.2f} s | {files / run.seconds:,.0f} | "
        f"{lines / run.seconds:,.0f} | {run.peak_rss_mib:.0f} MiB | "
        f"{'' if run.returncode == 0 else f'exit {run.returncode} '}{note} |"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path)
    parser.add_argument(
        "--generate", type=int, metavar="N", help="convert N files made by bench_convert.py"
    )
    parser.add_argument("--work", type=Path, help="scratch directory (default: a temporary one)")
    parser.add_argument(
        "--jobs",
        default=f"1,{os.cpu_count() or 1}",
        help="comma-separated -j values (default: 1 and all cores)",
    )
    parser.add_argument("--hipify-perl", type=Path, help="AMD HIPIFY's bin/hipify-perl")
    parser.add_argument(
        "--perl-per-file",
        type=int,
        metavar="N",
        help="time only the first N files of the file-by-file hipify-perl run",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="run cold, first, warm and no-change N times each and keep the median (default 3)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.dirs and not args.generate:
        parser.error("give DIR arguments or --generate N")
    for d in args.dirs:
        if not d.is_dir():
            print(f"error: {d} is not a directory", file=sys.stderr)
            return 2

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        files, origin = _tree(args, work)
        lines = line_count(files)
        print(
            f"tree: {len(files)} source files, {lines:,} lines from {origin}; "
            f"{os.cpu_count()} cores\n"
        )
        print(
            "| run | wall | CPU | files/s | lines/s | peak RSS | note |\n"
            "|---|---|---|---|---|---|---|"
        )
        ratios = []
        by_jobs = {}  # -j -> its runs, each compared with hipify-perl
        for jobs in sorted({int(j) for j in args.jobs.split(",")}):
            runs = hipify_py_runs(work / "tree", work, jobs, args.repeat)
            by_jobs[jobs] = runs
            for name, run in runs.items():
                print(row(f"hipify-py {name}, -j {jobs}", run, len(files), lines), flush=True)
            cold, same = runs["cold"], runs["no-change"]
            ratios.append(
                f"-j {jobs}: no-change is {cold.seconds / same.seconds:.1f}x faster than cold "
                f"by wall time, {cold.cpu / same.cpu:.1f}x by CPU time"
            )
        if args.hipify_perl:
            ratios += _hipify_perl(args, work, files, lines, by_jobs)
        print("\n" + "\n".join(ratios))
    return 0


def _tree(args: argparse.Namespace, work: Path) -> tuple[list[Path], str]:
    """The tree both tools convert, made afresh under ``work/tree``: generated files or the
    sources of the given directories; with where they came from."""
    shutil.rmtree(work / "tree", ignore_errors=True)
    if args.generate:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_convert import generate

        (work / "tree").mkdir(parents=True)
        generate(work / "tree", args.generate)
        return sorted(p for p in (work / "tree").rglob("*") if p.is_file()), "bench_convert.py"
    files = source_tree([d.resolve() for d in args.dirs], work / "tree")
    return files, ", ".join(d.name for d in args.dirs)


def _hipify_perl(
    args: argparse.Namespace,
    work: Path,
    files: list[Path],
    lines: int,
    by_jobs: dict[int, dict[str, Run]],
) -> list[str]:
    """hipify-perl's rows (printed) and its speed next to each hipify-py run (returned)."""
    perl = hipify_perl_runs(work / "tree", files, work, args.hipify_perl, args.perl_per_file)
    sampled = args.perl_per_file and args.perl_per_file < len(files)
    for name, run in perl.items():
        note = ""
        if name == "file by file" and sampled:
            note = f"extrapolated from {args.perl_per_file} files"
        print(row(f"hipify-perl, {name}", run, len(files), lines, note), flush=True)
    one = perl["one process"]
    ratios = []
    for jobs, runs in by_jobs.items():
        for name in ("cold", "first", "warm", "no cache"):
            run = runs[name]
            ratios.append(
                f"-j {jobs}: hipify-py {name} is {one.seconds / run.seconds:.1f}x faster "
                f"than hipify-perl in one process by wall time, {one.cpu / run.cpu:.1f}x "
                "by CPU time"
            )
    return ratios


if __name__ == "__main__":
    sys.exit(main())
