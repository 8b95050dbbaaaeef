"""Do converted Makefiles still parse? ``make -n`` before and after ``hipify-py convert``.

For every project directory given, the tree is converted with the real CLI into a scratch
directory; then each Makefile (``Makefile*``, ``makefile``, ``GNUmakefile``; ``*.mk`` are read
through the Makefiles that include them) is read by GNU make in its own directory, before and
after, with a goal that does nothing (``make -n --eval '<goal>: ;'``), so what is measured is
Make's parse of the whole file, its includes and its ``$(...)`` expansions, not whether the
sources or compilers exist. Make remakes included makefiles even under ``-n`` (a ``%.d`` rule
runs the compiler), so both sides are read in scratch copies, never in the project itself.
The projects stay outside the repository (fetch them with the ``fetch`` tool or git; see
docs/buildfiles.md for the ones measured).

    python benchmarks/buildfiles_bench.py /work/ext-bf/cs124 /work/ext-bf/hec ...
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_GOAL = "__hipify_parse_check__"
_NAMES = ("Makefile", "makefile", "GNUmakefile")


def makefiles(root: Path) -> list[Path]:
    """Makefiles under ``root``, relative to it."""
    found = (p for p in root.rglob("*") if p.is_file() and p.name.startswith(_NAMES))
    return sorted(p.relative_to(root) for p in found)


def parse_error(makefile: Path) -> str | None:
    """None when GNU make reads ``makefile`` without error, else its first error line."""
    cmd = ["make", "-n", "-f", makefile.name, "--eval", f"{_GOAL}: ;", _GOAL]
    try:
        proc = subprocess.run(
            cmd, cwd=makefile.parent, capture_output=True, text=True, timeout=60
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode == 0:
        return None
    lines = [x for x in proc.stderr.splitlines() if "***" in x] or proc.stderr.splitlines()
    return lines[0] if lines else f"exit {proc.returncode}"


def convert(src: Path, out: Path) -> None:
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(src), "--out-dir", str(out)]
    subprocess.run([*cmd, "-q", "--no-hazards", "-j", "2"], capture_output=True, check=False)


@dataclass
class Result:
    total: int = 0  # Makefiles in the project
    changed: int = 0  # ... that the conversion rewrote
    before: int = 0  # ... that parse as written
    after: int = 0  # ... that parse once converted
    broken: list[tuple[str, str]] = field(default_factory=list)  # parsed before, not after


def measure(project: Path, scratch: Path) -> Result:
    out = scratch / f"{project.name}-hip"
    convert(project, out)
    original = scratch / project.name
    shutil.copytree(project, original, symlinks=True)
    r = Result()
    for rel in makefiles(project):
        ok_before = parse_error(original / rel) is None
        error = parse_error(out / rel) if (out / rel).exists() else "not written"
        r.total += 1
        written = (out / rel).read_bytes() if (out / rel).exists() else None
        r.changed += written is not None and written != (project / rel).read_bytes()
        r.before += ok_before
        r.after += error is None
        if ok_before and error is not None:
            r.broken.append((str(rel), error))
    return r


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+", type=Path)
    args = parser.parse_args()
    print("| project | Makefiles | converted | parse before | parse after | broken |")
    print("|---|---|---|---|---|---|")
    causes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for project in args.projects:
            r = measure(project.resolve(), Path(tmp))
            counts = (r.total, r.changed, r.before, r.after, len(r.broken))
            print(f"| {project.name} | " + " | ".join(map(str, counts)) + " |")
            for rel, error in r.broken:
                causes[error.split("***")[-1].strip()[:80]] += 1
                print(f"  broken: {project.name}/{rel}: {error}", file=sys.stderr)
    for cause, n in causes.most_common():
        print(f"- {n} x {cause}")


if __name__ == "__main__":
    main()
