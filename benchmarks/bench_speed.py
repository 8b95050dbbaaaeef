"""Speed of `hipify-py convert` on real trees as a user runs it, next to hipify-perl.

Usage:
    python benchmarks/bench_speed.py DIR [DIR ...] [--work DIR] [--jobs 1,2]
        [--hipify-perl PATH/bin/hipify-perl] [--perl-per-file N]

The C/C++/CUDA sources of the given directories (public CUDA projects kept outside this repository)
are copied into one tree (data files left out, so both tools see exactly the same files). Then, for
each `-j` value, the `hipify-py` command line converts the whole tree three times, each a fresh
process:

- cold: an empty cache directory (`XDG_CACHE_HOME`): the mapping index is built from YAML, no
  per-file cache exists, the output directory is new;
- warm: the caches the cold run left, a new output directory;
- no-change: the caches and the output of the warm run, nothing changed in the tree.

Reported per run: wall time, files/s and lines/s over the tree's source files, and the peak RSS of
the largest process (`wait4`). hipify-perl (AMD HIPIFY's `bin/hipify-perl`) converts the same copy
with `-inplace`, once in as few processes as the command line allows and once file by file (one
process per file; `--perl-per-file N` times the first N files and extrapolates).
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


def timed(cmd: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """Runs cmd to completion; peak RSS is the largest process in its tree (wait4's ru_maxrss)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode)


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


def hipify_py_runs(tree: Path, work: Path, jobs: int) -> dict[str, Run]:
    """Cold, warm and no-change conversions of tree with -j jobs, each a fresh process."""
    cache = work / f"cache-j{jobs}"
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))

    def convert(out: Path) -> Run:
        cmd = [
            sys.executable,
            "-m",
            "hipify_py",
            "convert",
            str(tree),
            "--out-dir",
            str(out),
            "-q",
            "-j",
            str(jobs),
        ]
        return timed(cmd, env)

    runs = {}
    for name, fresh_output in (("cold", True), ("warm", True), ("no-change", False)):
        out = work / f"out-j{jobs}"
        if fresh_output:
            shutil.rmtree(out, ignore_errors=True)
        runs[name] = convert(out)
    return runs


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
            )
        if len(chunks) < len(targets) and name == "file by file":
            total.seconds *= len(targets) / len(chunks)  # extrapolated from the timed files
        runs[name] = total
    return runs


def row(label: str, run: Run, files: int, lines: int, note: str = "") -> str:
    return (
        f"| {label} | {run.seconds:.1f} s | {files / run.seconds:,.0f} | "
        f"{lines / run.seconds:,.0f} | {run.peak_rss_mib:.0f} MiB | "
        f"{'' if run.returncode == 0 else f'exit {run.returncode} '}{note} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
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
    args = parser.parse_args(argv)
    for d in args.dirs:
        if not d.is_dir():
            print(f"error: {d} is not a directory", file=sys.stderr)
            return 2

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        shutil.rmtree(work / "tree", ignore_errors=True)
        files = source_tree([d.resolve() for d in args.dirs], work / "tree")
        lines = line_count(files)
        print(
            f"tree: {len(files)} source files, {lines:,} lines from "
            f"{', '.join(d.name for d in args.dirs)}; {os.cpu_count()} cores\n"
        )
        print("| run | wall | files/s | lines/s | peak RSS | note |\n|---|---|---|---|---|---|")
        for jobs in sorted({int(j) for j in args.jobs.split(",")}):
            for name, run in hipify_py_runs(work / "tree", work, jobs).items():
                print(row(f"hipify-py {name}, -j {jobs}", run, len(files), lines), flush=True)
        if args.hipify_perl:
            perl = hipify_perl_runs(
                work / "tree", files, work, args.hipify_perl, args.perl_per_file
            )
            for name, run in perl.items():
                note = ""
                if (
                    name == "file by file"
                    and args.perl_per_file
                    and args.perl_per_file < len(files)
                ):
                    note = f"extrapolated from {args.perl_per_file} files"
                print(row(f"hipify-perl, {name}", run, len(files), lines, note), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
