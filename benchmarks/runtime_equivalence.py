"""Runtime equivalence of converted programs on an NVIDIA GPU: does the port compute the same?

Four builds of each program, run with the program's own arguments (HeCBench's ``make run``
line), outputs compared with timing lines dropped:

  cuda           the CUDA original, nvcc
  hip            ``hipify-py convert`` output (.hip), nvcc through HIP's NVIDIA backend
  portable-cuda  ``hipify-py convert --portable`` output, nvcc directly
  portable-hip   the same files, nvcc through HIP's NVIDIA backend (-D__HIP_PLATFORM_NVIDIA__)

HIP on NVIDIA needs the HIP/hipother rocm-6.0.2 headers patched for CUDA 13 (the recipe in
the project's shared tools, not shipped here): pass their folder with ``--hipinc``.

  prepare  (here)  pick programs, convert them both ways into WORK (sources only)
  build    (here)  build every variant with nvcc (no GPU needed; the CUDA runtime linked
                   shared, so WORK stays small enough to carry to the GPU machine)
  run      (GPU)   run the built variants (building any that is missing), the original first:
                   a program whose original does not finish costs one run; results are
                   rewritten after every program (a run cut off still counts), and no program
                   starts after --deadline seconds

One call of the GPU machine, after ``prepare`` and ``build`` here (WORK under the repository's
git-ignored .benchmarks/, carried with the working tree):

  python3 benchmarks/runtime_equivalence.py run --work .benchmarks/runtime \
      --out $OUT/results.json --jobs 6 --timeout 30 --deadline 500
  torch    (GPU)   the PyTorch extension example, original and --portable, built with torch's
                   own CUDA build (cpp_extension.load), run on the same tensors, compared
  report           the per-variant same/different/crash/timeout table as Markdown
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

VARIANTS = ("cuda", "hip", "portable-cuda", "portable-hip")
_NVCC = "/usr/local/cuda/bin/nvcc"
# 40 KB a program instead of 1 MB: the built variants travel to the GPU machine (nvcc 13 there)
_SHARED_CUDART = ["-cudart", "shared", "-Xlinker", "-rpath=/usr/local/cuda/lib64"]
# run-to-run noise: timings, bandwidths, rates and the like
_TIMING = re.compile(
    r"time|elapsed|throughput|bandwidth|gb/s|gflop|tflop|\bms\b|\bus\b|\bsec|second|"
    r"speed|perf|cycles|clock|/s\b",
    re.IGNORECASE,
)
_RUN_LINE = re.compile(r"^run:.*\n\t\$\(LAUNCHER\) \./\$\(program\)(.*)$", re.MULTILINE)
_LIBRARY = re.compile(
    r"#include\s*[<\"](cub/|thrust/|cublas|cufft|curand|cusparse|cooperative_groups|mma\.h|"
    r"cuda/|nvToolsExt)"
)


def _programs(hecbench: Path, limit: int) -> list[tuple[str, str]]:
    """Single-file HeCBench CUDA programs with a ``run`` line and no CUDA library or data
    file: they build with one nvcc command and run from their arguments alone."""
    found = []
    for d in sorted((hecbench / "src").glob("*-cuda")):
        make = d / "Makefile"
        files = {p.name for p in d.iterdir()}
        if not make.is_file() or {p for p in files if p.endswith((".cu", ".cpp", ".c"))} != {
            "main.cu"
        }:
            continue
        extra = files - {"main.cu", "Makefile", "README.md", "CMakeLists.txt", "LICENSE"}
        if any(not p.endswith((".h", ".cuh", ".hpp")) for p in extra):
            continue
        text = make.read_text(errors="replace")
        run = _RUN_LINE.search(text)
        if run is None or re.search(r"-l(cublas|cufft|curand|cusparse|nvrtc)|\.\./", text):
            continue
        code = "".join(p.read_text(errors="replace") for p in d.iterdir() if p.name in extra)
        if _LIBRARY.search(code + (d / "main.cu").read_text(errors="replace")):
            continue
        found.append((d.name.removesuffix("-cuda"), run.group(1).strip()))
    return found[:limit]


def selection(hecbench: Path, dev: int, held_out: int) -> list[tuple[str, Path, str, str]]:
    """(name, CUDA tree, run arguments, part): the examples that run alone, then the first
    ``dev`` HeCBench programs alphabetically (the ones fixes were made on) and the last
    ``held_out`` (measured only)."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    items = [(f"example-{n}", examples / n, "", "example") for n in ("warp_reduce", "make_project")]
    found = _programs(hecbench, 999)
    held = found[max(dev, len(found) - held_out) :]
    for part, chosen in (("dev", found[:dev]), ("held-out", held)):
        items += [(n, hecbench / "src" / f"{n}-cuda", a, part) for n, a in chosen]
    return items


def prepare(args: argparse.Namespace) -> None:
    work: Path = args.work
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    programs = []
    for name, src, run_args, part in selection(args.hecbench, args.dev, args.held_out):
        base = work / name
        shutil.copytree(src, base / "cuda", ignore=shutil.ignore_patterns("*.md", "LICENSE"))
        ok = _hipify(["convert", str(base / "cuda"), "--out-dir", str(base / "hip")])
        ok &= _hipify(["convert", "--portable", str(base / "cuda"), "--out-dir", str(base / "p")])
        programs.append({"name": name, "args": run_args.split(), "converted": ok, "part": part})
    (work / "programs.json").write_text(json.dumps(programs, indent=1))
    print(f"{len(programs)} programs prepared in {work}")


def _hipify(argv: list[str]) -> bool:
    exe = Path(sys.executable).with_name("hipify-py")
    proc = subprocess.run([str(exe), *argv, "-q"], capture_output=True, text=True)
    return proc.returncode == 0


def _sources(tree: Path, suffixes: tuple[str, ...]) -> list[str]:
    return sorted(str(p) for p in tree.rglob("*") if p.suffix in suffixes)


def _build(base: Path, variant: str, hipinc: Path | None) -> tuple[str, str]:
    """nvcc command for one variant; returns (status, log), also kept in ``<variant>.build``
    so that ``run`` on another machine knows what ``build`` here found."""
    exe, record = base / f"{variant}.exe", base / f"{variant}.build"
    if record.is_file():
        status, log = json.loads(record.read_text())
        if status != "built" or exe.is_file():
            return status, log
    if variant in ("hip", "portable-hip") and hipinc is None:
        return "build-failed", "no --hipinc given"
    status, log = _compile(base, variant, hipinc, exe)
    record.write_text(json.dumps([status, log]))
    return status, log


def _compile(base: Path, variant: str, hipinc: Path | None, exe: Path) -> tuple[str, str]:
    tree, hip_flags = {
        "cuda": (base / "cuda", []),
        "hip": (base / "hip", ["-D__HIP_PLATFORM_NVIDIA__", f"-I{hipinc}"]),
        "portable-cuda": (base / "p", []),
        "portable-hip": (base / "p", ["-D__HIP_PLATFORM_NVIDIA__", f"-I{hipinc}"]),
    }[variant]
    srcs = _sources(tree, (".hip",) if variant == "hip" else (".cu",))
    incs = sorted({f"-I{Path(s).parent}" for s in _sources(tree, (".h", ".cuh", ".hpp"))})
    incs += [f"-I{tree}", f"-I{tree / 'include'}"]
    cmd = [_NVCC, "-x", "cu", "-std=c++17", "-O3", "-arch=sm_90", "-w", *hip_flags, *incs]
    cmd += [*srcs, "-o", str(exe), *_SHARED_CUDART]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
    except subprocess.TimeoutExpired:
        return "build-timeout", ""
    return ("built" if proc.returncode == 0 else "build-failed"), proc.stderr[-1500:]


def _output(base: Path, variant: str, args: list[str], timeout: float) -> tuple[str, str]:
    try:
        proc = subprocess.run(
            [str(base / f"{variant}.exe"), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=base / "cuda",
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        return "timeout", ""
    text = "\n".join(line for line in proc.stdout.splitlines() if not _TIMING.search(line))
    return ("ran" if proc.returncode == 0 else f"crash({proc.returncode})"), text


def _built(base: Path, hipinc: Path | None) -> dict[str, tuple[str, str]]:
    with ThreadPoolExecutor(4) as pool:
        return dict(
            zip(VARIANTS, pool.map(lambda v: _build(base, v, hipinc), VARIANTS), strict=True)
        )


def _one(work: Path, prog: dict, hipinc: Path | None, timeout: float) -> dict:
    base = work / prog["name"]
    res: dict = {"name": prog["name"], "part": prog.get("part", "")}
    built = _built(base, hipinc)
    outputs = {}
    for v in VARIANTS:
        status, log = built[v]
        if status != "built":
            res[v] = status
            res[f"{v}-log"] = log
            continue
        if v != "cuda" and res["cuda"] != "ran":
            res[v] = "not-run"  # nothing to compare with
            continue
        res[v], outputs[v] = _output(base, v, prog["args"], timeout)
        if (
            v == "cuda" and res[v] == "ran"
        ):  # an output that differs from run to run compares nothing
            again = _output(base, "cuda", prog["args"], timeout)
            if again != ("ran", outputs["cuda"]):
                res["cuda"] = "nondeterministic"
    for v in VARIANTS[1:]:
        if res[v] == "ran" and res["cuda"] == "ran":
            res[v] = "same" if outputs[v] == outputs["cuda"] else "different"
    return res


def build(args: argparse.Namespace) -> None:
    work: Path = args.work.resolve()
    programs = json.loads((work / "programs.json").read_text())
    with ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(lambda p: _built(work / p["name"], args.hipinc), programs))
    for v in VARIANTS:
        n = sum(b[v][0] == "built" for b in done)
        print(f"{v}: {n} of {len(programs)} built")


def run(args: argparse.Namespace) -> None:
    work: Path = args.work.resolve()
    programs = json.loads((work / "programs.json").read_text())
    if args.skip:  # programs an earlier (cut-off) run already measured
        done = {r["name"] for r in json.loads(args.skip.read_text())}
        programs = [p for p in programs if p["name"] not in done]
    results: list[dict] = []
    out = args.out
    stop = time.monotonic() + args.deadline

    def one(prog: dict) -> dict:
        if time.monotonic() > stop:
            return {"name": prog["name"], "part": prog.get("part", ""), "cuda": "not-reached"}
        return _one(work, prog, args.hipinc, args.timeout)

    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, p) for p in programs]
        for fut in as_completed(futures):
            try:
                results.append(fut.result())
            except OSError as exc:  # one broken program must not lose the others
                results.append({"name": "?", "cuda": f"error: {exc}"})
            out.write_text(json.dumps(sorted(results, key=lambda r: r["name"]), indent=1))
    print(f"{len(results)} of {len(programs)} programs done")


def torch_extension(args: argparse.Namespace) -> None:
    import torch  # only on the GPU machine
    from torch.utils.cpp_extension import load

    torch.manual_seed(0)
    x = torch.randn(1 << 20, device="cuda")
    mask = (torch.rand(1 << 20, device="cuda") > 0.5).float()
    outs = []
    for tag, tree in (("original", args.original), ("portable", args.portable)):
        sources = [str(tree / "masked_add.cpp"), str(tree / "masked_add_kernel.cu")]
        ext = load(f"masked_add_{tag}", sources, extra_cuda_cflags=["-O3", "--use_fast_math"])
        outs.append(ext.masked_add(x, mask))
    same = torch.equal(outs[0], outs[1])
    reference = torch.equal(outs[0], torch.where(mask > 0.5, x + 1.0, x))
    print(json.dumps({"portable_equals_original": same, "original_equals_torch": reference}))


def report(args: argparse.Namespace) -> None:
    results = json.loads(args.results.read_text())
    ran = sum(r.get("cuda") == "ran" for r in results)
    print(f"{len(results)} programs; {ran} CUDA originals ran (twice, the same output)")
    for part in ("", "example", "dev", "held-out"):
        chosen = [r for r in results if not part or r.get("part") == part]
        if chosen:
            print(f"\n{part or 'all'} ({len(chosen)} programs)\n" + _table(chosen))
    for r in results:
        odd = {v: r.get(v) for v in VARIANTS[1:] if r.get(v) != "same"}
        if odd or r.get("cuda") != "ran":
            print(
                f"- {r['name']}: cuda={r.get('cuda')} "
                + " ".join(f"{k}={s}" for k, s in odd.items())
            )


def _table(results: list[dict]) -> str:
    """same/different/crash/timeout/build failed per variant, over the programs whose
    original ran; "same %" is of the variant's runs that finished (same + different)."""
    rows = ["| variant | same | different | crash | timeout | build failed | same % |"]
    rows.append("|---" * 7 + "|")
    for v in VARIANTS[1:]:
        states = [r.get(v, "") for r in results if r.get("cuda") == "ran"]
        n = {
            k: sum(s.startswith(k) for s in states)
            for k in ("same", "different", "crash", "timeout", "build")
        }
        finished = n["same"] + n["different"]
        share = f"{100 * n['same'] / finished:.0f}" if finished else "-"
        rows.append(
            f"| {v} | {n['same']} | {n['different']} | {n['crash']} | {n['timeout']} "
            f"| {n['build']} | {share} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--hecbench", type=Path, required=True, help="a HeCBench checkout")
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--dev", type=int, default=26, help="first HeCBench programs: tuned on")
    p.add_argument("--held-out", type=int, default=26, help="last HeCBench programs: measured")
    b = sub.add_parser("build")
    b.add_argument("--work", type=Path, required=True)
    b.add_argument("--hipinc", type=Path, required=True, help="patched HIP-on-NVIDIA headers")
    b.add_argument("--jobs", type=int, default=1, help="programs at a time (4 nvcc each)")
    r = sub.add_parser("run")
    r.add_argument("--work", type=Path, required=True)
    r.add_argument("--hipinc", type=Path, help="patched HIP-on-NVIDIA headers (if not built)")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--jobs", type=int, default=4, help="programs at a time (4 nvcc each)")
    r.add_argument("--skip", type=Path, help="an earlier results file: its programs are done")
    r.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    r.add_argument("--deadline", type=float, default=1e9, help="no program starts after it (s)")
    x = sub.add_parser("torch")
    x.add_argument("--original", type=Path, required=True)
    x.add_argument("--portable", type=Path, required=True)
    t = sub.add_parser("report")
    t.add_argument("results", type=Path)
    args = parser.parse_args()
    cmds = {"prepare": prepare, "build": build, "run": run, "torch": torch_extension}
    cmds["report"] = report
    cmds[args.cmd](args)


if __name__ == "__main__":
    main()
