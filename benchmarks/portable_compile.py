"""Do ``convert --portable`` trees compile for both vendors from the same files?

For each program, the ``--portable`` output is compiled twice, unchanged:

  nvcc     nvcc -arch=sm_90, as CUDA (HeCBench programs: linked into the executable that
           ``runtime_equivalence.py run`` runs later, as is the original, built with the same
           command first: a program whose original does not build so, for want of its
           Makefile's -D flags, is counted apart; the examples: every source with -c)
  gfx942   clang-19 -x hip --offload-arch=gfx942 -fsyntax-only against the ROCm 7.2.4 headers

Programs: the examples (their sources; masked_add's torch binding is left out, it needs the
torch headers) and the HeCBench programs ``runtime_equivalence.py prepare`` chose into WORK:
the first ``--dev`` alphabetically were the ones failures were studied and fixed on, the last
``--held-out`` were only measured.  Needs no GPU.

  python benchmarks/runtime_equivalence.py prepare --hecbench H --work .benchmarks/runtime
  python benchmarks/portable_compile.py --work .benchmarks/runtime --out compile.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_equivalence import _NVCC, _build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hipify-py"
ROCM = CACHE / "rocm-7.2.4" / "usr"
NVIDIA = CACHE / "nvidia"  # cuBLAS/cuRAND/cuSPARSE headers the examples include
CLANG = "clang-19"
SOURCES = (".cu", ".cpp", ".cc")


def _sources(tree: Path) -> list[Path]:
    return sorted(
        p
        for p in tree.rglob("*")
        if p.suffix in SOURCES and "torch/" not in p.read_text(errors="replace")
    )


def _includes(tree: Path) -> list[str]:
    dirs = {p.parent for p in tree.rglob("*") if p.suffix in (".h", ".cuh", ".hpp")}
    return [f"-I{d}" for d in sorted(dirs | {tree})]


def _first_error(log: str) -> str:
    lines = [x for x in log.splitlines() if "error" in x]
    return (lines[0] if lines else log.strip()[-200:])[:240]


def gfx942(tree: Path) -> tuple[bool, str]:
    """Every source of ``tree`` through clang-19's HIP front end and device pass for gfx942."""
    for src in _sources(tree):
        cmd = [CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
               "-std=c++17", "-w", f"--rocm-path={ROCM}", "-isystem", str(ROCM / "include"),
               *_includes(tree), str(src)]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if proc.returncode:
            return False, f"{src.name}: {_first_error(proc.stderr)}"
    return True, ""


def nvcc_objects(tree: Path) -> tuple[bool, str]:
    """Every source of ``tree`` compiled by nvcc for sm_90 (with -c: no link)."""
    libs = [f"-I{d / 'include'}" for d in sorted(NVIDIA.glob("*"))]
    with tempfile.TemporaryDirectory() as tmp:
        for src in _sources(tree):
            cmd = [_NVCC, "-x", "cu", "-std=c++17", "-arch=sm_90", "-w", "-c", str(src),
                   "-o", f"{tmp}/o.o", *_includes(tree), *libs]  # fmt: skip
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if proc.returncode:
                return False, f"{src.name}: {_first_error(proc.stderr)}"
    return True, ""


def _example(work: Path, name: str) -> dict:
    out = work / "compile-examples" / name
    if not out.exists():
        exe = Path(sys.executable).with_name("hipify-py")
        subprocess.run([str(exe), "convert", "--portable", str(ROOT / "examples" / name),
                        "--out-dir", str(out), "-q"], capture_output=True)  # fmt: skip
    return _row(name, "example", nvcc_objects(out), gfx942(out))


def _program(work: Path, prog: dict) -> dict:
    base = work / prog["name"]
    original, _ = _build(base, "cuda", None)
    if original != "built":  # needs its Makefile's -D flags or files: nothing to compare
        return _row(prog["name"], prog["part"], (False, ""), (False, ""), original=False)
    status, log = _build(base, "portable-cuda", None)
    return _row(
        prog["name"], prog["part"], (status == "built", _first_error(log)), gfx942(base / "p")
    )


def _row(
    name: str, part: str, nvcc: tuple[bool, str], amd: tuple[bool, str], original: bool = True
) -> dict:
    return {"name": name, "part": part, "original": original, "nvcc": nvcc[0],
            "gfx942": amd[0], "nvcc-error": "" if nvcc[0] else nvcc[1],
            "gfx942-error": "" if amd[0] else amd[1]}  # fmt: skip


def table(rows: list[dict]) -> str:
    """Per part: programs, those whose CUDA original builds with the benchmark's one nvcc
    command (the others need their Makefile's flags), and of those how many portable trees
    build with nvcc, compile for gfx942, and both."""
    out = ["| part | programs | original builds | nvcc sm_90 | gfx942 | both |"]
    out.append("|---|---|---|---|---|---|")
    for part in ("example", "dev", "held-out"):
        chosen = [r for r in rows if r["part"] == part]
        if chosen:
            ok = [r for r in chosen if r["original"]]
            both = sum(r["nvcc"] and r["gfx942"] for r in ok)
            nv = sum(r["nvcc"] for r in ok)
            amd = sum(r["gfx942"] for r in ok)
            out.append(f"| {part} | {len(chosen)} | {len(ok)} | {nv} | {amd} | {both} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--work", type=Path, required=True, help="runtime_equivalence's WORK")
    parser.add_argument("--out", type=Path, required=True, help="per-program results (JSON)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="these programs only")
    args = parser.parse_args()
    work = args.work.resolve()
    programs = json.loads((work / "programs.json").read_text())
    examples = sorted(d.name for d in (ROOT / "examples").iterdir() if d.is_dir() and _sources(d))
    todo = [(n, lambda n=n: _example(work, n)) for n in examples]
    todo += [(p["name"], lambda p=p: _program(work, p)) for p in programs if p["part"] != "example"]
    if args.only:
        todo = [(n, t) for n, t in todo if n in set(args.only)]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda item: item[1](), todo))
    if args.only and args.out.is_file():  # re-measured programs replace their old rows
        fresh = {r["name"] for r in rows}
        rows = sorted(
            [r for r in json.loads(args.out.read_text()) if r["name"] not in fresh] + rows,
            key=lambda r: ("example dev held-out".split().index(r["part"]), r["name"]),
        )
    args.out.write_text(json.dumps(rows, indent=1))
    print(table(rows))
    for r in rows:
        for kind in ("nvcc", "gfx942"):
            if r["original"] and not r[kind]:
                print(f"- {r['name']} ({r['part']}) {kind}: {r[f'{kind}-error']}")


if __name__ == "__main__":
    main()
