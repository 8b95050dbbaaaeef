"""Per-rule finding counts of `check` on a held-out CUDA corpus, a reproducible sample to judge
by hand, and precision per rule from the judgements.

Usage:
  python benchmarks/hazard_precision.py count CORPUS [--rules HZ1]      # counts, worst files
  python benchmarks/hazard_precision.py sample CORPUS OUT.jsonl [--per-rule 8] [--seed 1]
                                            [--exclude GLOB ...]
  python benchmarks/hazard_precision.py score JUDGED.jsonl              # precision per rule
  python benchmarks/hazard_precision.py rescore JUDGED.jsonl            # ... of today's rules
  python benchmarks/hazard_precision.py answer IN.jsonl OUT.jsonl --ports GIT_DIR [--rev HEAD]

The corpus stays outside the repo (e.g. HeCBench's `src/*-cuda` under /work/ext-hazards-hecbench);
none of it was used to develop the rules.  `sample` writes one JSON line per finding (rule, file,
line, message, the source line); a person adds `"verdict": "true"|"false"` and a short `"why"`,
and `score` counts them.  Rules with findings are sampled `--per-rule` at most each, so
rare rules are all judged and frequent ones do not dominate.  `--exclude` leaves out files
whose path matches a glob: a project's vendored copy of a library an earlier round judged
(ThunderKittens, CUTLASS) is not held out.

`answer` adds the answer key of HeCBench-style corpora, whose programs come as
`src/NAME-cuda` with a human HIP port `src/NAME-hip` in one git repository:
`"answer_key": "changed"` when the port edited (or removed) the finding's line, `"unchanged"`
when it kept it, `"no-port"` when there is no port of that file.  A changed line is evidence,
not a verdict (ports also rename APIs): a person still decides.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import fnmatch
import json
import random
import re
import subprocess
import sys
from pathlib import Path


def _findings(corpus: Path, rules: str | None) -> list[dict]:
    """`check`'s findings, one run per project (each folder of the corpus is one project, the
    tree a user would check: what one project defines says nothing about another's code)."""
    projects = sorted(p for p in corpus.iterdir() if p.is_dir()) if corpus.is_dir() else []
    return [f for tree in projects or [corpus] for f in _check(tree, rules)]


def _check(tree: Path, rules: str | None) -> list[dict]:
    """`check`'s findings on one tree (a project, or a single file)."""
    cmd = [sys.executable, "-m", "hipify_py", "check", str(tree), "--format", "json"]
    if rules:
        cmd += ["--select", rules]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if not proc.stdout.strip():
        raise SystemExit(f"check gave no report: {proc.stderr.strip()[-400:]}")
    return list(json.loads(proc.stdout)["findings"])


def count(args: argparse.Namespace) -> None:
    found = _findings(args.corpus, args.rules)
    by_rule = collections.Counter(f["rule"] for f in found)
    per_file = collections.Counter((f["rule"], f["path"]) for f in found)
    files = len({f["path"] for f in found})
    print(f"{len(found)} findings in {files} files")
    print("rule   findings  files  max-in-one-file")
    for rule, n in sorted(by_rule.items()):
        worst = max(v for (r, _), v in per_file.items() if r == rule)
        nfiles = sum(1 for (r, _) in per_file if r == rule)
        print(f"{rule}  {n:8d}  {nfiles:5d}  {worst:15d}")


def sample(args: argparse.Namespace) -> None:
    found = [
        f
        for f in _findings(args.corpus, args.rules)
        if not any(fnmatch.fnmatch(f["path"], g) for g in args.exclude)
    ]
    rng = random.Random(args.seed)
    by_rule: dict[str, list[dict]] = collections.defaultdict(list)
    for f in found:
        by_rule[f["rule"]].append(f)
    with open(args.out, "w") as out:
        for rule in sorted(by_rule):
            items = sorted(by_rule[rule], key=lambda f: (f["path"], f["line"]))
            for f in rng.sample(items, min(args.per_rule, len(items))):
                lines = Path(f["path"]).read_text(errors="replace").splitlines()
                src = lines[f["line"] - 1].strip() if 0 < f["line"] <= len(lines) else ""
                row = {k: f[k] for k in ("rule", "path", "line", "message")} | {"source": src}
                out.write(json.dumps(row) + "\n")


def score(args: argparse.Namespace) -> None:
    _print_precision(_rows(args.judged))


def _rows(judged: Path) -> list[dict]:
    return [json.loads(line) for line in Path(judged).read_text().splitlines() if line]


def _print_precision(rows: list[dict]) -> None:
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for row in rows:
        if row.get("verdict") in ("true", "false"):
            tally[row["rule"]][row["verdict"]] += 1
    total: collections.Counter = collections.Counter()
    print("rule   judged  true  precision")
    for rule in sorted(tally):
        t = tally[rule]
        total.update(t)
        n = t["true"] + t["false"]
        print(f"{rule}  {n:6d}  {t['true']:4d}  {t['true'] / n:9.2f}")
    n = total["true"] + total["false"]
    if n:
        print(f"all    {n:6d}  {total['true']:4d}  {total['true'] / n:9.2f}")


def _project_of(path: str) -> str:
    """The project folder a row's path is in (`ext-r8/ggml/src/x.cu` -> `ext-r8/ggml`); the
    file itself for a path that is not under a corpus folder."""
    parts = Path(path).parts
    return str(Path(*parts[:2])) if len(parts) > 2 and parts[0].startswith("ext-") else path


def rescore(args: argparse.Namespace) -> None:
    """The judged rows today's rules still report (same rule, file and line; a folded finding
    keeps its lines in ``related_lines``), scored; the rows they no longer report, counted by
    verdict.  Run from the directory the rows' paths are relative to."""
    rows = _rows(args.judged)
    reported: set[tuple[str, str, int]] = set()
    # each project checked as one tree (`ext-r8/ggml`), as the rows were sampled: the project
    # index answers for definitions in other files; a row outside such a folder alone
    trees = {_project_of(row["path"]) for row in rows}
    for tree in sorted(trees):
        for f in _check(Path(tree), None):
            related = (f.get("data") or {}).get("related_lines", "")
            lines = [f["line"], *map(int, filter(None, related.split(",")))]
            reported.update((f["rule"], f["path"], line) for line in lines)
    kept = [r for r in rows if (r["rule"], r["path"], r["line"]) in reported]
    gone = collections.Counter(r["verdict"] for r in rows if r not in kept)
    print(f"no longer reported: {gone['true']} judged true, {gone['false']} judged false")
    for r in rows:  # a true finding lost is what a rule change must justify: name each
        if r["verdict"] == "true" and r not in kept:
            print(f"  lost (judged true): {r['rule']} {r['path']}:{r['line']}")
        elif args.list_false and r["verdict"] == "false" and r in kept:
            print(f"  kept (judged false): {r['rule']} {r['path']}:{r['line']}")
    _print_precision(kept)


def _normalized(line: str) -> str:
    """A line with the renames of a port undone, so only real edits differ."""
    line = re.sub(r"cuda|hip", "X", line, flags=re.I)
    return re.sub(r"\s+", "", line)


def _port_text(git_dir: str, rev: str, path: str) -> str | None:
    m = re.search(r"(src/[^/]+)-cuda/(.*)$", path)
    if m is None:
        return None
    for rel in (
        m.group(2),
        re.sub(r"\.cu$", ".hip", m.group(2)),
        re.sub(r"\.cuh$", ".h", m.group(2)),
    ):
        text = git_show(git_dir, rev, f"{m.group(1)}-hip/{rel}")
        if text is not None:
            return text
    return None


def git_show(git_dir: str, rev: str, path: str) -> str | None:
    """A file of the git mirror at ``rev`` (None when it has no such file)."""
    proc = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{rev}:{path}"],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    return proc.stdout if proc.returncode == 0 else None


def answer(args: argparse.Namespace) -> None:
    rows = _rows(args.sample)
    for row in rows:
        port = _port_text(args.ports, args.rev, row["path"])
        if port is None:
            row["answer_key"] = "no-port"
            continue
        old = Path(row["path"]).read_text(errors="replace").splitlines()
        matcher = difflib.SequenceMatcher(
            None,
            [_normalized(x) for x in old],
            [_normalized(x) for x in port.splitlines()],
            autojunk=False,
        )
        kept = {i + k for i, _, n in matcher.get_matching_blocks() for k in range(n)}
        row["answer_key"] = "unchanged" if row["line"] - 1 in kept else "changed"
    with open(args.out, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("count")
    c.add_argument("corpus", type=Path)
    c.add_argument("--rules")
    s = sub.add_parser("sample")
    s.add_argument("corpus", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--rules")
    s.add_argument("--per-rule", type=int, default=8)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    j = sub.add_parser("score")
    j.add_argument("judged", type=Path)
    r = sub.add_parser("rescore")
    r.add_argument("judged", type=Path)
    r.add_argument("--list-false", action="store_true", help="name each judged-false row kept")
    a = sub.add_parser("answer")
    a.add_argument("sample", type=Path)
    a.add_argument("out", type=Path)
    a.add_argument("--ports", required=True, help="git dir with src/NAME-hip ports")
    a.add_argument("--rev", default="HEAD")
    args = p.parse_args()
    commands = {"count": count, "sample": sample, "score": score, "rescore": rescore}
    {**commands, "answer": answer}[args.cmd](args)


if __name__ == "__main__":
    main()
