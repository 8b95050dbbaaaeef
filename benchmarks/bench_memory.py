"""Wall time and peak memory of ``hipify-py convert`` and ``check`` on one adversarial file per
generator and size (issue 24's goal: every input up to 16 MB within 10 s and 20x its size).

Usage: python benchmarks/bench_memory.py [--sizes 1 4 16] [--generators NAME ...]
                                         [--commands convert check] [--timeout 120] [--json FILE]

Each run is a fresh process that calls the CLI in-process (``convert FILE --out-dir X -j 1
--no-cache -q`` or ``check FILE -j 1 --no-cache``) and reports its own peak RSS (VmHWM) and
that of its children apart (the capped libclang parse child, when a risky file is parsed in
one; a forked child's figure includes the pages it shares with the worker).  ``grow`` is
the worker's peak minus that of the same command on the 4-line kernel every generator starts
with (the interpreter, modules and mapping tables: about 100 MiB that do not depend on the
input); ``x`` is ``grow`` divided by the input's size, the figure the 20x goal is about.  A run
that passes ``--timeout`` seconds of wall time is killed and shown as such.  Wall time on a
shared machine measures the neighbours too; CPU seconds are printed beside it.  Inputs come
from ``adversarial.py`` (``sized``), so a row is reproduced from its generator and size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adversarial import BY_NAME, KERNEL, sized  # noqa: E402

# Runs in the child: the CLI in this process, then its own and its children's peaks.
_CHILD = r"""
import json, resource, sys, time
from hipify_py.cli import main
sys.argv = ["hipify-py", *sys.argv[1:]]
t0, c0 = time.perf_counter(), time.process_time()
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking process
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"rc": code, "wall": time.perf_counter() - t0,
                  "cpu": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
                  "rss": hwm * 1024, "child_rss": kids.ru_maxrss * 1024}),
      file=sys.stderr)
"""

MIB = 1 << 20


def run(command: str, path: Path, out: Path, timeout: float) -> dict:
    """One command on ``path`` in a fresh interpreter: its measurements (or a timeout)."""
    if command == "convert":
        argv = ["convert", str(path), "--out-dir", str(out), "-j", "1", "--no-cache", "-q"]
    else:
        argv = ["check", str(path), "-j", "1", "--no-cache", "--format", "json"]
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *argv],
            capture_output=True,
            timeout=timeout,
            text=True,
        )
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    try:
        found = json.loads(last)
    except json.JSONDecodeError:  # it died (a signal: a negative code) before its report
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-200:]}"}
    if command == "check":
        found["not_analysed"] = "not analysed" in done.stdout
        found["degraded"] = "degraded" in done.stdout
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1, 4, 16], help="MB")
    ap.add_argument("--generators", nargs="+", default=list(BY_NAME), choices=list(BY_NAME))
    ap.add_argument("--commands", nargs="+", default=["convert", "check"])
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json", type=Path, help="also write every row as JSON")
    args = ap.parse_args()
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="hipify-mem-") as tmp:
        work = Path(tmp)
        base_file = work / "base.cu"
        base_file.write_text(KERNEL)
        base = {c: run(c, base_file, work / "base-out", args.timeout) for c in args.commands}
        for c in args.commands:
            print(f"# {c} on the 4-line kernel: {base[c].get('rss', 0) / MIB:.0f} MiB", flush=True)
        head = "generator           MB  command   wall_s   cpu_s  peak_MiB  grow_MiB      x"
        print(head + "  child_MiB  note", flush=True)
        for name in args.generators:
            for mb in args.sizes:
                data = sized(name, int(mb * 1_000_000))
                path = work / f"{name}.cu"
                path.write_bytes(data)
                for c in args.commands:
                    got = run(c, path, work / f"out-{name}", args.timeout)
                    row = {"generator": name, "bytes": len(data), "command": c, **got}
                    rows.append(row)
                    print(_line(row, base[c].get("rss", 0)), flush=True)
                path.unlink()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def _line(row: dict, base: int) -> str:
    lead = f"{row['generator']:18} {row['bytes'] / 1e6:4.1f}  {row['command']:8}"
    if "timeout" in row:
        return f"{lead} killed after {row['timeout']:.0f} s"
    if "error" in row:
        return f"{lead} error: {row['error']!r}"
    grow = max(0, row["rss"] - base)
    ratio = grow / max(1, row["bytes"])
    note = []
    if row["rc"]:
        note.append(f"exit {row['rc']}")
    if row.get("not_analysed"):
        note.append("not analysed")
    if row.get("degraded"):
        note.append("degraded")
    return (
        f"{lead} {row['wall']:7.2f} {row['cpu']:7.2f} {row['rss'] / MIB:9.0f} {grow / MIB:9.0f}"
        f" {ratio:6.1f}  {row['child_rss'] / MIB:9.0f}  {', '.join(note)}"
    )


if __name__ == "__main__":
    sys.exit(main())
