"""Time and memory of converting ONE file as it grows: 1k, 10k, 100k and 1M lines.

Usage: python benchmarks/bench_scaling.py [--lines 1000 10000 100000 1000000] [--no-hazards]
                                          [--profile N]

The file is the realistic ~200-line unit of ``bench_convert.py`` (kernels, launches, runtime
and cuBLAS calls, macros) repeated with different names until it has the requested number of
lines.  Each size runs in a fresh process, so the peak RSS printed is that conversion's own
(``convert_text`` in-process, with hazard rules, as a worker does it); CPU time is printed
beside wall time because on a shared machine wall time measures the neighbours too.  Time and
memory should grow linearly: CPU us/line should stay flat.  ``--profile N`` prints a cProfile of
the N-line conversion instead.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_convert import TEMPLATE  # noqa: E402


def source(lines: int) -> str:
    parts: list[str] = []
    count = i = 0
    while count < lines:
        part = TEMPLATE.format(i=i, block=128 << (i % 3), scale=i % 7)
        parts.append(part)
        count += part.count("\n")
        i += 1
    return "".join(parts)


def measure(lines: int, hazards: bool) -> dict:
    """Convert an N-line file in this process; seconds and peak RSS."""
    from hipify_py.context import Context, Options
    from hipify_py.mappings import load_index
    from hipify_py.pipeline import convert_text

    ctx = Context(Options(), load_index())
    convert_text(TEMPLATE.format(i=0, block=128, scale=1), "warm.cu", ctx)  # imports, tables
    text = source(lines)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    result = convert_text(text, "big.cu", ctx, with_hazards=hazards)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert result.error is None and result.changed
    return {
        "lines": text.count("\n"),
        "mb": len(text) / 1e6,
        "seconds": seconds,
        "cpu": cpu,
        "peak_mib": peak / 1024,
        "before_mib": before / 1024,
        "findings": len(result.findings),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, nargs="+", default=[1000, 10_000, 100_000, 1_000_000])
    ap.add_argument("--no-hazards", action="store_true")
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    hazards = not args.no_hazards
    if args.child:
        print(json.dumps(measure(args.child, hazards)))
        return 0
    if args.profile:
        import cProfile
        import pstats

        cProfile.runctx("measure(args.profile, hazards)", globals(), locals(), "/tmp/scaling.prof")
        pstats.Stats("/tmp/scaling.prof").sort_stats("tottime").print_stats(25)
        return 0
    print(f"{'lines':>9} {'MB':>6} {'wall s':>8} {'CPU s':>8} {'CPU us/line':>11} {'peak MiB':>9}")
    for n in args.lines:
        cmd = [sys.executable, __file__, "--child", str(n)]
        if args.no_hazards:
            cmd.append("--no-hazards")
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        r = json.loads(out)
        print(
            f"{r['lines']:>9,} {r['mb']:>6.1f} {r['seconds']:>8.1f} {r['cpu']:>8.1f} "
            f"{r['cpu'] / r['lines'] * 1e6:>11.0f} {r['peak_mib']:>9.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
