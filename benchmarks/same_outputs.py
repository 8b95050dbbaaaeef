"""Do two revisions of hipify-py give the same outputs on real trees?  (issue 27: a refactor
changes no output byte.)

    python benchmarks/same_outputs.py --base main DIR [DIR ...]

Each revision (``--base``, and ``--head``, default the working tree) runs, over each input
directory, from the input's parent and with a cache of its own and ``--no-cache``:
``convert DIR --out-dir OUT --json S``, ``check DIR --format json``, ``check DIR`` (text),
``convert DIR --dry-run --diff-file D`` and ``report DIR --format markdown``, and the
``--help`` of every command.  The converted trees are compared with each other file by file,
the other outputs byte by byte (both revisions write to the same path, so the paths they
print are the same).  Exit 1 and the list of what differs when anything does.

Use inputs kept outside the repository (public CUDA projects fetched for the purpose).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("convert", "check", "report", "verify")


def checkout(rev: str | None, into: Path) -> Path:
    """The ``src`` directory of revision ``rev`` (None: the working tree as it is)."""
    if rev is None:
        return ROOT / "src"
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def run_all(src: Path, inputs: list[Path], out: Path) -> None:
    """Every output of one revision under ``out``: ``NAME.stdout``/``.stderr`` and files."""
    env = {**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(out / "cache")}
    env.pop("FORCE_COLOR", None)

    def hipify(name: str, cwd: Path, *args: str) -> None:
        cmd = [sys.executable, "-m", "hipify_py", *args]
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
        (out / f"{name}.stdout").write_bytes(done.stdout)
        (out / f"{name}.stderr").write_bytes(done.stderr + f"\nexit {done.returncode}\n".encode())

    for tree in inputs:
        n, cwd, rel = tree.name, tree.parent, tree.name
        hipify(f"{n}-convert", cwd, "convert", rel, "--out-dir", str(out / f"{n}-hip"),
               "--json", str(out / f"{n}-summary.json"), "--no-cache", "-q")  # fmt: skip
        hipify(f"{n}-check-json", cwd, "check", rel, "--format", "json", "--no-cache")
        hipify(f"{n}-check-text", cwd, "check", rel, "--no-cache")
        hipify(f"{n}-dry-run", cwd, "convert", rel, "--dry-run", "--no-cache", "-q",
               "--diff-file", str(out / f"{n}.diff"))  # fmt: skip
        hipify(f"{n}-report", cwd, "report", rel, "--format", "markdown", "--no-cache",
               "-o", str(out / f"{n}-report.md"))  # fmt: skip
    for command in COMMANDS:
        hipify(f"help-{command}", ROOT, command, "--help")


def differences(a: Path, b: Path) -> list[str]:
    """What differs between two revisions' outputs (names relative to their directories)."""
    out: list[str] = []
    for name in sorted(({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()}) - {"cache"}):
        x, y = a / name, b / name
        if not (x.exists() and y.exists()):
            out.append(f"{name}: only in {'base' if x.exists() else 'head'}")
        elif x.is_dir():
            out += [f"{name}/{d}" for d in _tree_differences(x, y)]
        elif x.read_bytes() != y.read_bytes():
            out.append(name)
    return out


def _tree_differences(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b)
    out = [*cmp.left_only, *cmp.right_only, *cmp.funny_files]
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    out += mismatch + errors
    for sub in cmp.common_dirs:
        out += [f"{sub}/{d}" for d in _tree_differences(a / sub, b / sub)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path, help="CUDA trees to convert")
    ap.add_argument("--base", required=True, help="git revision to compare with (e.g. main)")
    ap.add_argument("--head", default=None, help="git revision (default: the working tree)")
    args = ap.parse_args()
    inputs = [p.resolve() for p in args.inputs]
    with tempfile.TemporaryDirectory(prefix="same-outputs-") as tmp:
        outs = []
        for side, rev in (("base", args.base), ("head", args.head)):
            src = checkout(rev, Path(tmp) / f"{side}-src")
            # one output path for both sides, so paths printed in the outputs are the same
            work = Path(tmp) / "out"
            work.mkdir()
            run_all(src, inputs, work)
            work.rename(Path(tmp) / side)
            outs.append(Path(tmp) / side)
        diff = differences(*outs)
    for line in diff:
        print(f"differs: {line}")
    verdict = f"{len(diff)} difference(s)" if diff else "identical"
    head = args.head or "working tree"
    print(f"{verdict}: {args.base} vs {head} on {', '.join(map(str, inputs))}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
