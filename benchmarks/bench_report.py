"""How long the porting report of a 1,000-file tree takes to write and to load in a browser.

Usage: python benchmarks/bench_report.py [--files 1000] [--repeat 3] [--work DIR] [--keep]

The tree (generated, so nothing here was tuned on it): 70% CUDA files from
``bench_convert.py`` (~200 lines each, every one changed by the conversion and with findings:
the worst case for the report's size), 25% C++ headers the conversion leaves unchanged, and a
CMakeLists.txt with CUDA architectures and --use_fast_math in every directory of 50 files.

Measured, each the median of ``--repeat`` runs:

- write: wall time of ``hipify-py report TREE -o report.html`` (conversion included, a warm
  per-file cache after the first run), and the sizes of the HTML page and the Markdown comment;
- screenshot: wall time of ``chromium --headless --screenshot`` on the page over file://, next
  to the same on a blank page (the browser's own start and exit);
- load: ``chromium --headless --dump-dom`` on the page: the page records ``performance.now()``
  when its script has run (``data-ready``: from navigation start to a usable page, filters
  applied), and the number of elements it has then;
- filter: the same with ``#sev=error`` (the filter applied on load);
- open: the same with ``#q=file_00001.cu&open=1``: one file's diff drawn;
- open all: ``#open=1``, every file's diff drawn at once (what the page avoids on load).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_convert import generate  # noqa: E402

HEADER = """// generated host header {i}: plain C++, nothing to convert
#pragma once
#include <vector>
namespace util{i} {{
inline int clamp(int v, int lo, int hi) {{ return v < lo ? lo : v > hi ? hi : v; }}
struct Range {{ int begin, end; }};
}}  // namespace util{i}
"""
CMAKE = """cmake_minimum_required(VERSION 3.21)
project(part{d} LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 80 90)
add_library(part{d} {sources})
target_compile_options(part{d} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>)
"""


def make_tree(root: Path, count: int) -> None:
    cuda = count * 7 // 10
    per_dir = 50
    flat = root / "flat"
    flat.mkdir(parents=True)
    generate(flat, cuda)
    headers = count - cuda - (count + per_dir - 1) // per_dir
    for i in range(headers):
        (flat / f"util_{i:05d}.h").write_text(HEADER.format(i=i))
    files = sorted(flat.iterdir())
    for n, start in enumerate(range(0, len(files), per_dir - 1)):
        part = root / "src" / f"part{n:03d}"
        part.mkdir(parents=True)
        chunk = files[start : start + per_dir - 1]
        for f in chunk:
            f.rename(part / f.name)
        sources = " ".join(f.name for f in chunk if f.suffix == ".cu") or "util.h"
        (part / "CMakeLists.txt").write_text(CMAKE.format(d=n, sources=sources))
    flat.rmdir()


def chrome(chromium: str, work: Path, url: str, action: str) -> tuple[str, float]:
    """Chromium's output for ``url`` with ``action`` (--dump-dom, --screenshot=...) and the
    wall time of the whole browser run in ms."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={work / 'profile'}",
            "--window-size=1280,900",
            action,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout, (time.perf_counter() - start) * 1000


def browse(chromium: str, work: Path, page: Path, fragment: str) -> tuple[float, int]:
    """(ms from navigation to a ready page, by the page's own clock; its elements then)."""
    dom, _ = chrome(chromium, work, page.as_uri() + fragment, "--dump-dom")
    ready = re.search(r'<body[^>]*data-ready="(\d+)"', dom)
    if ready is None:
        raise SystemExit(f"the page did not finish loading ({fragment})")
    return float(ready.group(1)), len(re.findall(r"<[a-zA-Z]", dom))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the tree and the report")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("chromium not found (apt-get install chromium)")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-report-"))
    tree = work / "tree"
    if not tree.exists():
        make_tree(tree, args.files)
    files = sum(1 for p in tree.rglob("*") if p.is_file())
    page, md = work / "report.html", work / "report.md"
    hipify = [sys.executable, "-m", "hipify_py"]
    writes = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run([*hipify, "report", str(tree), "-o", str(page)], check=True)
        writes.append(time.perf_counter() - start)
    subprocess.run(
        [*hipify, "report", str(tree), "--format", "markdown", "-o", str(md)], check=True
    )
    print(f"tree: {files} files ({work})")
    print(
        f"write: {statistics.median(writes):.2f} s (runs {', '.join(f'{w:.2f}' for w in writes)})"
        f"; page {page.stat().st_size / 1e6:.2f} MB, markdown {md.stat().st_size / 1e3:.1f} kB"
    )
    blank = work / "blank.html"
    blank.write_text("<!DOCTYPE html><body>blank</body>")
    shot = f"--screenshot={work / 'shot.png'}"
    walls = {}
    for name, target in (("blank", blank), ("report", page)):
        walls[name] = statistics.median(
            chrome(chromium, work, target.as_uri(), shot)[1] for _ in range(args.repeat)
        )
    print(
        f"screenshot of the page: {walls['report']:.0f} ms wall, {walls['blank']:.0f} ms for a "
        f"blank page (browser start and exit): {walls['report'] - walls['blank']:+.0f} ms"
    )
    for label, fragment in (
        ("load", ""),
        ("filter", "#sev=error"),
        ("open one", "#q=file_00001.cu&open=1"),
        ("open all", "#open=1"),
    ):
        runs = [browse(chromium, work, page, fragment) for _ in range(args.repeat)]
        ready = statistics.median(r[0] for r in runs)
        print(f"{label:9} ready after {ready:.0f} ms (page's own clock), {runs[0][1]} elements")
    if not args.keep and args.work is None:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
