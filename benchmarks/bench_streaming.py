"""How soon a long ``convert`` run puts finished files on disk.

A tree of N small CUDA files plus one large file that sorts first (the case where an in-order
pool held every result back until the large file was done).  Prints the seconds until the first
converted file appears, until half of the small files are written, and the whole run.

    python benchmarks/bench_streaming.py [--files 300] [--big-copies 12000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL = """#include <cuda_runtime.h>
__global__ void add(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}
void run(float* a, int n) {
  add<<<(n + 255) / 256, 256>>>(a, n);
  cudaDeviceSynchronize();
}
"""


def make_tree(root: Path, files: int, big_copies: int) -> Path:
    src = root / "src"
    src.mkdir()
    body = KERNEL + "".join(f"void f{n}(float* p) {{ cudaFree(p); }}\n" for n in range(40))
    for n in range(files):
        (src / f"k{n:04d}.cu").write_text(body)
    big = "".join(KERNEL.replace("add", f"add{i}") for i in range(big_copies))
    (src / "a_big.cu").write_text(big)
    return src


def measure(src: Path, jobs: int, files: int) -> tuple[float | None, float | None, float]:
    out = src.with_name("src-hip")
    shutil.rmtree(out, ignore_errors=True)
    started = time.monotonic()
    command = [sys.executable, "-m", "hipify_py", "convert", str(src), "-j", str(jobs), "-q"]
    proc = subprocess.Popen([*command, "--no-hazards"], env=os.environ)
    first = half = None
    while proc.poll() is None:
        written = sum(1 for _ in out.glob("k*.hip")) if out.exists() else 0
        now = time.monotonic() - started
        if written and first is None:
            first = now
        if written >= files // 2 and half is None:
            half = now
        time.sleep(0.05)
    return first, half, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--big-copies", type=int, default=12000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = make_tree(Path(tmp), args.files, args.big_copies)
        size = (src / "a_big.cu").stat().st_size
        first, half, total = measure(src, args.jobs, args.files)
    print(f"{args.files} small files + one {size / 1e6:.1f} MB file, -j {args.jobs}")
    print(f"first file written: {first:.1f} s" if first is not None else "first file: never")
    print(f"half written:       {half:.1f} s" if half is not None else "half: never")
    print(f"whole run:          {total:.1f} s")


if __name__ == "__main__":
    main()
