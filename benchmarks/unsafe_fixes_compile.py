"""Do `--unsafe-fixes` keep a tree compiling?  Convert a corpus with the defaults and with
`--unsafe-fixes`, and compile for gfx942 every translation unit the fixes changed (or whose
program had a header changed), both ways: a fix may remove errors, never add one.

Usage:
  python benchmarks/unsafe_fixes_compile.py CORPUS_SRC [--work DIR]

CORPUS_SRC is a tree of programs (HeCBench's `src/`, kept outside the repo); its `include/`
directory is on the include path.  The check is clang-19's syntax and semantic check against
the ROCm 7.2.4 headers that `hipify-py toolchain fetch` caches (as tests/conftest.py's
gfx942_check does).  Prints, per compiled unit, the errors each side has, and a total.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import subprocess
import sys
from pathlib import Path

ROCM = Path.home() / ".cache/hipify-py/rocm-7.2.4/usr"
UNITS = (".hip", ".cu", ".cpp")


def _convert(src: Path, out: Path, *extra: str) -> None:
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(src), "--out-dir", str(out)]
    subprocess.run([*cmd, "-q", "--force", *extra], capture_output=True, check=False)


def _errors(unit: Path, src: Path) -> set[str]:
    """The error lines of clang's gfx942 check, without the tree's own prefix and columns (a
    fix that lengthens a line moves a later error on it)."""
    cmd = ["clang-19", "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only"]
    cmd += ["-std=c++17", f"--rocm-path={ROCM}", "-isystem", str(ROCM / "include"), "-w"]
    cmd += ["-I", str(unit.parent), "-I", str(src / "include"), str(unit)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return {
        re.sub(r"^(.*?:\d+):\d+:", r"\1:", line.removeprefix(str(unit.parent)))
        for line in proc.stderr.splitlines()
        if "error:" in line
    }


def _changed(a: Path, b: Path) -> list[Path]:
    out = []
    for f in sorted(a.rglob("*")):
        g = b / f.relative_to(a)
        if f.is_file() and not f.name.startswith(".") and g.is_file():
            if not filecmp.cmp(f, g, shallow=False):
                out.append(f.relative_to(a))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", type=Path)
    p.add_argument("--work", type=Path, default=Path("/tmp/unsafe-fixes-compile"))
    args = p.parse_args()
    default, unsafe = args.work / "default", args.work / "unsafe"
    _convert(args.src, default)
    _convert(args.src, unsafe, "--unsafe-fixes")
    changed = _changed(default, unsafe)
    units = {f for f in changed if f.suffix in UNITS}
    for header in (f for f in changed if f.suffix not in UNITS):
        units.update(u.relative_to(default) for u in (default / header.parts[0]).rglob("*.hip"))
    added = removed = 0
    print(f"{len(changed)} files changed by --unsafe-fixes, {len(units)} units compiled")
    for rel in sorted(units):
        before, after = _errors(default / rel, args.src), _errors(unsafe / rel, args.src)
        new, gone = after - before, before - after
        added += len(new)
        removed += len(gone)
        print(
            f"{rel}: {len(before)} -> {len(after)} errors"
            + (f"  NEW: {sorted(new)}" if new else "")
        )
    print(f"errors added by --unsafe-fixes: {added}, removed: {removed}")


if __name__ == "__main__":
    main()
