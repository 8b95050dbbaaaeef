"""HeCBench single-file programs: does the default conversion compile for gfx942, and is every
failure reported?

Usage:
    python benchmarks/hecbench_units.py HECBENCH/src [--split dev|held-out|all] [--work DIR]
        [--jobs N] [--every N [--offset K]] [--only NAME ...] [--json FILE]

A program is HECBENCH/src/NAME-cuda whose CUDA is one `.cu` file (plus headers). It counts when
its `.cu` compiles with nvcc (C++17, `--extended-lambda`, `-ptx` for compute_90, the program
directory and HeCBench's shared `src/include` on the include path; `-ptx` runs nvcc's front end
over the whole TU and the device compiler, not the host compiler: a third of the time of `-c`).
The question is whether the port builds, not whether HeCBench builds here. nvcc results are
cached by program and source text in WORK/nvcc-cache.json (written after each result).

Programs that include `omp.h` need clang-19's OpenMP header (Debian's `libomp-19-dev`; without it
such a program fails for want of the header, not of the port). The selected programs are copied
into WORK/tree, with the sibling programs their Makefiles or relative includes borrow,
converted with `hipify-py convert` (default options, one run over the whole tree, as a user
would), checked with `hipify-py check --format json` (the findings and where they are), and
every nvcc-clean program's converted TU is compiled for gfx942 with clang-19 and the ROCm 7.2.4
headers (syntax and semantics, host and device, as benchmarks/realworld.py does). A failing TU
is

- *reported at the cause* when an error-level finding sits in the file the first compile error
  is in (the TU itself when the error is in a system header);
- *reported elsewhere* when the program has error-level findings, but not in that file;
- *silent* when hipify-py said nothing at error level about the program.

The split keeps a held-out part: programs whose name starts with n-z (`--split held-out`) are
not looked at while fixing; `--split dev` is a-m. `--every N` measures every N-th program
of the split (the same ones every run; `--offset 1` the others); each result is appended to
WORK/progress.jsonl.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realworld import Toolchain, _compile, cause_file, error_kind  # noqa: E402

SPLITS = {"dev": ("a", "m"), "held-out": ("n", "z"), "all": ("0", "z")}


def programs(src: Path, split: str) -> list[Path]:
    """Single-file programs of the split: NAME-cuda directories with exactly one .cu file."""
    low, high = SPLITS[split]
    found = []
    for d in sorted(src.glob("*-cuda")):
        if low <= d.name[0].lower() <= high and len(list(d.rglob("*.cu"))) == 1:
            found.append(d)
    return found


MAKE_INCLUDE_RE = re.compile(r"-I\s*\.\./([A-Za-z0-9_.-]+-cuda)/?(?=\s|$)")


# `#include "../diamond-sycl/src/basic/masking.h"`: a sibling program's file, by a relative path
RELATIVE_INCLUDE_RE = re.compile(r'#\s*include\s*"\.\./([A-Za-z0-9_.-]+)/')


def relative_siblings(program: Path) -> list[str]:
    """The sibling programs whose files the program's sources include by a relative path."""
    found: dict[str, None] = {}
    for f in sorted(program.iterdir()):
        if f.is_file() and f.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp"):
            found.update(dict.fromkeys(RELATIVE_INCLUDE_RE.findall(f.read_text(errors="replace"))))
    return list(found)


def makefile_flags(program: Path) -> tuple[list[str], list[str]]:
    """(sibling programs the Makefile puts on the include path, extra nvcc flags it passes)."""
    makefile = program / "Makefile"
    text = makefile.read_text(errors="replace") if makefile.is_file() else ""
    siblings = [m for m in dict.fromkeys(MAKE_INCLUDE_RE.findall(text))]
    extra = [f for f in ("--expt-relaxed-constexpr",) if f in text]
    return siblings, extra


def nvcc_cmd(tu: Path, src: Path) -> list[str]:
    nvidia = sorted((Path.home() / ".cache/hipify-py/nvidia").glob("*/include"))
    siblings, extra = makefile_flags(tu.parent)
    return [
        "nvcc",
        "-std=c++17",
        "--extended-lambda",
        *extra,
        "-arch=compute_90",
        "-ptx",
        "-w",
        "-o",
        os.devnull,
        f"-I{tu.parent}",
        *[f"-I{src / s}" for s in siblings],
        f"-I{src / 'include'}",
        *[f for d in nvidia for f in ("-isystem", str(d))],
        str(tu),
    ]


def gfx942_cmd(tu: Path, tree_src: Path, rocm: Path) -> list[str]:
    """realworld.py's gfx942 check, with the program's own and its Makefile's include dirs."""
    siblings, _ = makefile_flags(tu.parent)
    includes = [tu.parent, *(tree_src / s for s in siblings), tree_src / "include"]
    return Toolchain(rocm, [], None).gfx942(tu, includes)


def source_key(program: Path) -> str:
    """The program's name, Makefile flags and sources: what the nvcc result depends on."""
    digest = hashlib.sha256(program.name.encode())
    siblings, extra = makefile_flags(program)
    if siblings or extra:
        digest.update(" ".join(siblings + extra).encode())
    for f in sorted(program.rglob("*")):
        if f.is_file() and f.suffix in {".cu", ".cuh", ".h", ".hpp", ".inc", ".inl"}:
            digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()


class NvccCache:
    """nvcc errors by source key ([] = compiles), saved after every result: runs are resumable."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, list[str]] = json.loads(path.read_text()) if path.is_file() else {}
        self.lock = threading.Lock()

    def errors(self, program: Path, src: Path) -> list[str]:
        key = source_key(program)
        if key not in self.data:
            tu = next(program.rglob("*.cu"))
            errors = _compile(nvcc_cmd(tu, src), [str(src) + "/"])
            with self.lock:
                self.data[key] = errors
                self.path.write_text(json.dumps(self.data))
        return self.data[key]


def convert(clean: list[Path], src: Path, work: Path) -> tuple[Path, Path, list[dict]]:
    """Copies the programs into one tree, converts it and returns (tree, output, findings)."""
    tree, out = work / "tree", work / "out"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    needed = {p.name: p for p in clean}
    for p in clean:  # the sibling programs whose headers a Makefile or an include borrows
        borrowed = [*makefile_flags(p)[0], *relative_siblings(p)]
        needed.update({s: src / s for s in borrowed if (src / s).is_dir()})
    for name, p in needed.items():
        shutil.copytree(p, tree / "src" / name, symlinks=True)
    if (src / "include").is_dir():
        shutil.copytree(src / "include", tree / "src" / "include")
    hipify = [sys.executable, "-m", "hipify_py"]
    proc = subprocess.run(
        [*hipify, "convert", str(tree), "--out-dir", str(out), "-q", "--no-cache"],
        capture_output=True,
        text=True,
    )
    if "Traceback" in proc.stderr:
        print(proc.stderr[-3000:], file=sys.stderr)
    report = work / "check.json"
    subprocess.run(
        [*hipify, "check", str(tree), "--format", "json", "-o", str(report)],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    findings = json.loads(report.read_text())["findings"] if report.is_file() else []
    return tree, out, findings


def converted_tu(out: Path, program: Path) -> Path:
    rel = next(program.rglob("*.cu")).relative_to(program.parent)
    hip = out / "src" / rel.with_suffix(".hip")
    return hip if hip.is_file() else out / "src" / rel


def classify(
    errors: list[str], program: str, errors_by_file: dict[str, list[dict]], borrowed: Sequence[str]
) -> str:
    """reported-at-cause, reported-elsewhere or silent (see the module docstring); the files of
    the sibling programs whose headers the program's Makefile borrows (``borrowed``) are its
    own too."""
    dirs = tuple(f"src/{name}/" for name in (program, *borrowed))
    mine = {f: v for f, v in errors_by_file.items() if f.startswith(dirs)}
    if not mine:
        return "silent"
    first = cause_file(errors)
    stem = first.rsplit(".", 1)[0]
    for f in mine:
        if f.rsplit(".", 1)[0] == stem or (not first.startswith("src/") and f.endswith(".cu")):
            return "reported-at-cause"
    return "reported-elsewhere"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="HeCBench's src/ directory")
    parser.add_argument("--split", choices=sorted(SPLITS), default="dev")
    parser.add_argument("--work", type=Path, default=Path("/tmp/hipify-hecbench-units"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these programs")
    parser.add_argument(
        "--every", type=int, default=1, metavar="N", help="every N-th program of the split"
    )
    parser.add_argument(
        "--offset", type=int, default=0, metavar="K", help="with --every: start at the K-th"
    )
    parser.add_argument(
        "--rocm",
        type=Path,
        default=Path(
            os.environ.get("HIPIFY_PY_ROCM7", Path.home() / ".cache/hipify-py/rocm-7.2.4/usr")
        ),
    )
    parser.add_argument("--json", type=Path, help="write every failing program's result here")
    args = parser.parse_args(argv)
    src = args.src.resolve()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    progs = programs(src, args.split)[args.offset :: args.every]
    if args.only:
        wanted = set(args.only)
        progs = [p for p in progs if {p.name, p.name.removesuffix("-cuda")} & wanted]
    # convert every selected program (nvcc-clean or not: one cheap run), then per program
    # nvcc on the original and, when it compiles, clang-19 on the port
    tree, out, findings = convert(progs, src, work)
    errors_by_file: dict[str, list[dict]] = collections.defaultdict(list)
    for f in findings:
        if f["severity"] == "error":
            errors_by_file[os.path.relpath(tree / f["path"], tree)].append(f)
    cache = NvccCache(work / "nvcc-cache.json")
    progress = work / "progress.jsonl"
    progress.write_text("")
    lock = threading.Lock()

    def check(p: Path) -> dict:
        record: dict = {"program": p.name, "nvcc": cache.errors(p, src)}
        if not record["nvcc"]:
            cmd = gfx942_cmd(converted_tu(out, p), out / "src", args.rocm)
            record["gfx942"] = _compile(cmd, [str(out) + "/"])
            if record["gfx942"]:
                borrowed = makefile_flags(p)[0]
                record["status"] = classify(record["gfx942"], p.name, errors_by_file, borrowed)
                dirs = tuple(f"src/{name}/" for name in (p.name, *borrowed))
                record["rules"] = sorted(
                    {f["rule"] for k, v in errors_by_file.items() if k.startswith(dirs) for f in v}
                )
                print(
                    f"  FAIL {p.name} [{record['status']} {','.join(record['rules'])}]: "
                    f"{record['gfx942'][0][:160]}",
                    flush=True,
                )
        with lock, open(progress, "a") as f:
            f.write(json.dumps(record) + "\n")
        return record

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        records = list(pool.map(check, progs))
    clean = [r for r in records if not r["nvcc"]]
    failed = [r for r in clean if r["gfx942"]]
    passed = len(clean) - len(failed)
    share = 100 * passed / len(clean) if clean else 0.0
    kinds = collections.Counter(r["status"] for r in failed)
    print(
        f"{args.split} (every {args.every}): {len(progs)} single-file programs, "
        f"{len(clean)} nvcc-clean, gfx942 {passed}/{len(clean)} ({share:.1f}%); failures: "
        + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none")
    )
    for kind, count in collections.Counter(error_kind(r["gfx942"][0]) for r in failed).most_common(
        15
    ):
        print(f"{count:4d}  {kind}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
