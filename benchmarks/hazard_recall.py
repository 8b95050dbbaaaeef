"""Recall of the hazard reporter against human HIP ports: which AMD-specific edits that people
made by hand does hipify-py make itself or point at?

Usage:
  python benchmarks/hazard_recall.py hunks CORPUS OUT.jsonl --ports GIT_DIR [--programs a-m]
  python benchmarks/hazard_recall.py score KEY.jsonl CORPUS [--removed-corpus DIR]
                 [--split dev|held-out|fresh|unseen|all] [--show-missed | --show]

CORPUS is HeCBench's tree of CUDA programs (`CORPUS/src/NAME-cuda`), kept outside the repo;
GIT_DIR is a git repository holding the human ports `src/NAME-hip` (read with `git show`).

`hunks` converts each program with hipify-py (`--keep-names --launch-syntax cuda`, so the
output lines up with the port) and diffs the converted files against the port, whitespace
ignored: what remains are edits a person made and hipify-py did not.  Hunks that touch
AMD-specific ground (warp size, lane masks, LDS, FP8, cooperative groups, `__HIP_PLATFORM_*`,
...) are written one JSON line each, with CUDA line numbers, for a person to label.

The answer key (`benchmarks/hazard_recall_hecbench.jsonl`) holds the labelled edits: program,
file, CUDA `lines` [first, last], `class` (what the edit is about), `required` (without it the
port fails to compile or computes wrong on gfx942), `amd` (false: not AMD-specific, e.g. a
bug fix; such rows are not scored) and a `note`; optionally `at`, the CUDA lines a finding
should point at when they differ from the edited ones (a port that pins `#define warpSize 32`
at the top of the file fixes the kernels below), and `converted_if`, a pattern whose presence
in the converted file shows hipify-py made an equivalent change itself in other words than the
port (its `cg::reduce` shim).

`score` converts and checks each labelled program with today's hipify-py.  An edit is caught
when the conversion now makes it (no remaining hunk overlaps its lines) or when an error or
warning finding of a rule of its class (`CLASS_RULES`) lies within its lines or in the
function that encloses them (the CUDA lines of the function are taken from braces).
Programs whose name starts with n-z are the held-out split: labelled and scored only after the
fixes that the a-m split motivated; the programs HeCBench has since deleted (`REMOVED`) are the
fresh split, labelled and scored once, after the fixes of both; `unseen` is held-out + fresh.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from hazard_precision import git_show  # beside this script

SOURCE = re.compile(r"\.(cu|cuh|h|hpp|cpp|cc|c|inl)$")

# what each class of edit is, and the rules whose findings point at it
CLASS_RULES: dict[str, frozenset[str]] = {
    "launch-geometry": frozenset({"HZ109", "HZ107", "HZ101"}),
    "warp-size-constant": frozenset({"HZ107", "HZ104", "HZ101", "HZ102", "HZ103", "HZ109"}),
    "lane-arithmetic": frozenset({"HZ101", "HZ107", "HZ108"}),
    "lane-mask-64": frozenset({"HZ105", "HZ106", "HZ108", "HZ317"}),
    "shuffle-width": frozenset({"HZ102", "HZ103"}),
    "fp8": frozenset({"HZ319"}),
    "cg-reduce": frozenset({"HZ300"}),
    "cg-tiles": frozenset({"HZ207", "HZ314", "HZ300"}),
    "lds": frozenset({"HZ401"}),
    "inline-ptx": frozenset({"HZ310"}),
    "wmma": frozenset({"HZ313"}),
    "unsupported-api": frozenset({"HZ300", "HZ301", "HZ302", "HZ312", "HZ320", "HP001"}),
    "sync": frozenset({"HZ201", "HZ202", "HZ203", "HZ205", "HZ206"}),
    "launch-bounds": frozenset({"HZ204"}),
    "arch-macro": frozenset({"HZ501", "HZ502"}),
    "intrinsic-overload": frozenset({"HZ317", "HZ318", "HZ330", "HZ340", "HZ315"}),
}

# a hunk that mentions one of these touches AMD-specific ground
_SIGNAL = re.compile(
    r"warpSize|warp_size|WARP|wave|WAVE|__AMDGCN|HIP_PLATFORM|amdgcn|gfx|__lane_id|lane|"
    r"mask|ballot|shfl|__ffs|__popc|__clz|tiled_partition|cg::|reduce|cluster|SharedMemory|"
    r"__shared__|fp8|e4m3|e5m2|fnuz|asm|wmma|__launch_bounds__|\b(32|31|64|63|0x1f|0x3f)\b|"
    r"0x[fF]{8}|ULL|\bll\b|long long|int64_t|__syncwarp|activemask|threadIdx\.x\s*[%&]"
)


_MASKED = re.compile(
    r"\b(__shfl(?:_up|_down|_xor)?|__ballot|__any|__all)_sync"
    r"\s*\(\s*[^,()]*(?:\([^()]*\))?[^,()]*,"
)


def _norm(line: str) -> str:
    """A line as the diff compares it: whitespace, `cuda`/`hip` spellings (`CHECK_CUDA` and
    `CHECK_HIP`) and the masks of `*_sync` intrinsics (HIP's maskless forms are the same
    operation) do not count."""
    line = _MASKED.sub(lambda m: m.group(1) + "(", line)
    return re.sub(r"cuda|hip", "X", re.sub(r"\s+", "", line), flags=re.I)


# programs HeCBench deleted before `--rev`: the last commit that had both versions and where
# the port lived then (the fresh split, labelled and scored only after the dev/held-out work;
# extract `DIR/NAME-cuda` of that commit into REMOVED_CORPUS/src to score them)
REMOVED: dict[str, tuple[str, str]] = {
    "agsg": ("92b8b3e4d", ""),
    "alp": ("ff8bf8dcb", ""),
    "copy": ("d678b5df5", "src/"),
    "dxtc1": ("d1c2778d6", "src/"),
    "frechet": ("8380be1ff", "src/"),
    "swish": ("102c3fef8", "src/"),
    "tc": ("aa0334553", "src/"),
    "voxelizer": ("767e1730e", "src/"),
    "warpselect": ("5166dff80", "src/"),
}


def port_text(git_dir: str, rev: str, program: str, rel: str) -> str | None:
    """The human port of CUDA file ``rel`` of ``program`` (ports keep `.cu`, some use `.hip`)."""
    rev, top = REMOVED.get(program, (rev, "src/"))
    for name in (rel, re.sub(r"\.cu$", ".hip", rel), re.sub(r"\.cuh$", ".h", rel)):
        plain = Path(git_dir, f"{program}-hip", name)  # a directory of ports, not a git mirror
        if plain.is_file():
            return plain.read_text(errors="replace")
        text = git_show(git_dir, rev, f"{top}{program}-hip/{name}")
        if text is not None:
            return text
    return None


def convert(programs: list[Path], out: Path) -> None:
    """Convert the programs' directories into ``out/NAME-cuda`` with hipify-py."""
    cmd = [sys.executable, "-m", "hipify_py", "convert", *map(str, programs), "--out-dir"]
    cmd += [str(out), "--keep-names", "--launch-syntax", "cuda", "--no-hazards", "-q"]
    subprocess.run(cmd, capture_output=True, text=True, check=False)
    if len(programs) == 1:  # a single input directory is written into out itself
        single = out / programs[0].name
        single.mkdir(exist_ok=True)
        for p in list(out.iterdir()):
            if p != single:
                p.rename(single / p.name)


def _line_map(cuda: list[str], converted: list[str]) -> list[int]:
    """For each converted line, the CUDA line (0-based) it came from, or the nearest before."""
    sm = difflib.SequenceMatcher(
        None, [_norm(x) for x in cuda], [_norm(x) for x in converted], False
    )
    out = [0] * (len(converted) + 1)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for k in range(j1, j2):
            out[k] = i1 + min(k - j1, max(0, i2 - i1 - 1)) if tag != "insert" else max(0, i1 - 1)
    out[len(converted)] = len(cuda)
    return out


def remaining_hunks(cuda: str, converted: str, port: str) -> list[dict]:
    """Hunks where the port differs from hipify-py's conversion, in CUDA line numbers."""
    conv = _without_shims(converted.splitlines())
    prt = port.splitlines()
    keep = [k for k, x in enumerate(conv) if _norm(x)]
    keep_p = [k for k, x in enumerate(prt) if _norm(x)]
    sm = difflib.SequenceMatcher(
        None, [_norm(conv[k]) for k in keep], [_norm(prt[k]) for k in keep_p], False
    )
    lines = _line_map(cuda.splitlines(), conv)
    hunks = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        a = lines[keep[i1]] if i1 < len(keep) else lines[len(conv)]
        b = lines[keep[i2 - 1]] if i2 > i1 else a
        hunks.append(
            {
                "lines": [a + 1, b + 1],
                "converted": "\n".join(conv[keep[k]] for k in range(i1, i2)),
                "port": "\n".join(prt[keep_p[k]] for k in range(j1, j2)),
            }
        )
    return hunks


def _without_shims(lines: list[str]) -> list[str]:
    """The converted lines with hipify-py's shim blocks blanked (kept as empty lines, so line
    numbers stay): the port writes its own code there or needs none."""
    out, depth = [], 0
    for line in lines:
        if depth == 0 and re.match(r"\s*#ifndef HIPIFY_PY_SHIM_", line):
            depth = 1
        elif depth:
            depth += bool(re.match(r"\s*#\s*if", line))
            depth -= bool(re.match(r"\s*#\s*endif", line))
        else:
            out.append(line)
            continue
        out.append("")
    return out


def _in_range(name: str, spec: str | None) -> bool:
    if not spec:
        return True
    if spec == "removed":
        return name[: -len("-cuda")] in REMOVED
    lo, hi = spec.split("-")
    return lo <= name[0].lower() <= hi


def _programs(corpus: Path, ports: str, rev: str, spec: str | None) -> list[Path]:
    if list(Path(ports).glob("*-hip")):  # a directory of ports
        listing = [d.name for d in Path(ports).glob("*-hip")]
    else:
        listing = subprocess.run(
            ["git", "--git-dir", ports, "ls-tree", "--name-only", f"{rev}:src"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    have = {n[: -len("-hip")] for n in listing if n.endswith("-hip")} | set(REMOVED)
    return [
        d
        for d in sorted((corpus / "src").glob("*-cuda"))
        if d.name[: -len("-cuda")] in have and _in_range(d.name, spec)
    ]


def _program_hunks(prog: Path, out: Path, ports: str, rev: str) -> list[dict]:
    name = prog.name[: -len("-cuda")]
    rows = []
    for src in sorted(prog.rglob("*")):
        rel = src.relative_to(prog).as_posix()
        conv = out / prog.name / rel
        if not SOURCE.search(rel) or not conv.is_file():
            continue
        port = port_text(ports, rev, name, rel)
        if port is None:
            continue
        cuda = src.read_text(errors="replace")
        for h in remaining_hunks(cuda, conv.read_text(errors="replace"), port):
            rows.append({"program": name, "file": rel, **h})
    return rows


def hunks(args: argparse.Namespace) -> None:
    progs = _programs(args.corpus, args.ports, args.rev, args.programs)
    total = kept = 0
    with tempfile.TemporaryDirectory() as tmp, open(args.out, "w") as f:
        for k in range(0, len(progs), 40):
            batch = progs[k : k + 40]
            out = Path(tmp) / str(k)
            convert(batch, out)
            for prog in batch:
                for row in _program_hunks(prog, out, args.ports, args.rev):
                    total += 1
                    if _SIGNAL.search(row["converted"] + "\n" + row["port"]):
                        kept += 1
                        f.write(json.dumps(row) + "\n")
    print(f"{len(progs)} programs, {total} hunks, {kept} touch AMD-specific ground")


def _functions(text: str) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each top-level brace block: the functions, roughly."""
    out, depth, start, line = [], 0, 0, 1
    code = re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", _blank, text, flags=re.S)
    for ch in code:
        if ch == "\n":
            line += 1
        elif ch == "{":
            if depth == 0:
                start = line
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, line))
    return out


def _blank(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _scope(text: str, lines: list[int]) -> tuple[int, int]:
    """The lines an edit's findings may sit on: its own, widened to the enclosing function."""
    a, b = lines
    for s, e in _functions(text):
        if s <= a and b <= e and e - s < 400:  # a namespace is not a function
            return min(s - 2, a), max(e, b)
    return a, b


def _findings(dirs: list[Path], unsafe: bool) -> list[dict]:
    cmd = [sys.executable, "-m", "hipify_py", "check", *map(str, dirs), "--format", "json"]
    cmd += ["--fail-on", "info"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return json.loads(proc.stdout)["findings"] if proc.stdout.strip() else []


def _split(row: dict) -> str:
    if "split" in row:  # the in-source rows name theirs
        return str(row["split"])
    if row["program"] in REMOVED:
        return "fresh"
    return "held-out" if row["program"][0].lower() >= "n" else "dev"


def _program_dir(args: argparse.Namespace, program: str) -> Path:
    """The CUDA program's directory: REMOVED programs come from ``--removed-corpus``, the
    CUDA side of in-source ports from ``--in-source``."""
    if args.in_source and (args.in_source / "src" / f"{program}-cuda").is_dir():
        return args.in_source / "src" / f"{program}-cuda"
    top = args.removed_corpus if program in REMOVED and args.removed_corpus else args.corpus
    return top / "src" / f"{program}-cuda"


def _ports(args: argparse.Namespace, program: str) -> str:
    if args.in_source and (args.in_source / "ports" / f"{program}-hip").is_dir():
        return str(args.in_source / "ports")
    return str(args.ports)


def score(args: argparse.Namespace) -> None:
    rows = [json.loads(x) for x in Path(args.key).read_text().splitlines() if x.strip()]
    rows = [r for r in rows if r.get("amd", True)]
    if args.split == "unseen":
        rows = [r for r in rows if _split(r) != "dev"]
    elif args.split != "all":
        rows = [r for r in rows if _split(r) == args.split]
    absent = {r["program"] for r in rows if not _program_dir(args, r["program"]).is_dir()}
    if absent:  # REMOVED or in-source programs without --removed-corpus / --in-source
        print(f"not scored (no CUDA tree given): {', '.join(sorted(absent))}")
        rows = [r for r in rows if r["program"] not in absent]
    progs = sorted({r["program"] for r in rows})
    dirs = [_program_dir(args, p) for p in progs]
    by_file: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for f in _findings(dirs, False):
        m = re.search(r"src/([^/]+)-cuda/(.*)$", f["path"])
        if m and f["severity"] in ("error", "warning"):
            by_file[(m.group(1), m.group(2))].append(f)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        convert(dirs, out)
        tally = _tally(args, rows, by_file, out)
    _print(tally)


def _caught(
    row: dict, found: list[dict], at_text: str, converted: str, remaining: list[dict]
) -> str:
    a, b = row["lines"]
    if not any(h["lines"][0] <= b and a <= h["lines"][1] for h in remaining):
        return "converted"
    if row.get("converted_if") and re.search(row["converted_if"], converted):
        return "converted"
    lo, hi = _scope(at_text, row.get("at", row["lines"]))
    rules = CLASS_RULES[row["class"]]
    for f in found:
        if f["rule"] not in rules:
            continue
        # a definition's finding names the lines it makes wrong (HZ107's dependent lines)
        related = [int(x) for x in str(f.get("data", {}).get("related_lines", "")).split(",") if x]
        if any(lo <= line <= hi for line in (f["line"], *related)):
            return f["rule"]
    return ""


def _tally(
    args: argparse.Namespace, rows: list[dict], by_file: dict, out: Path
) -> dict[str, collections.Counter]:
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        src = _program_dir(args, r["program"]) / r["file"]
        conv = out / f"{r['program']}-cuda" / r["file"]
        port = port_text(_ports(args, r["program"]), args.rev, r["program"], r["file"]) or ""
        text = src.read_text(errors="replace")
        converted = conv.read_text(errors="replace")
        remaining = remaining_hunks(text, converted, port)
        at_file = r.get("at_file", r["file"])  # the port edited a header, the hazard is a use
        at_text = (_program_dir(args, r["program"]) / at_file).read_text(errors="replace")
        found = by_file[(r["program"], at_file)]
        # `converted_if` looks where the hazard is: a shim goes into the file that uses it
        at_conv = (out / f"{r['program']}-cuda" / at_file).read_text(errors="replace")
        how = _caught(r, found, at_text, at_conv, remaining)
        for key in ("all", f"class {r['class']}", *(["required"] if r["required"] else [])):
            tally[key]["edits"] += 1
            tally[key]["caught"] += bool(how)
        if r["required"]:
            tally[f"required {r['class']}"]["edits"] += 1
            tally[f"required {r['class']}"]["caught"] += bool(how)
        tally[f"caught by {how or 'nothing'}"]["edits"] += 1
        if args.show or (args.show_missed and not how):
            req = "required" if r["required"] else "optional"
            what = f"caught by {how}" if how else "missed"
            print(f"{what} {req} {r['class']}: {r['program']}/{r['file']}:{r['lines']}")
    return tally


def _print(tally: dict[str, collections.Counter]) -> None:
    print(f"{'':40s} edits  caught  recall")
    for key in sorted(tally, key=lambda k: (k.split()[0] != "all", k)):
        t = tally[key]
        if key.startswith("caught by"):
            print(f"{key:40s} {t['edits']:5d}")
        else:
            print(f"{key:40s} {t['edits']:5d}  {t['caught']:6d}  {t['caught'] / t['edits']:6.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("hunks")
    h.add_argument("corpus", type=Path)
    h.add_argument("out", type=Path)
    h.add_argument("--programs", help="first letters, e.g. a-m, or `removed` (REMOVED)")
    s = sub.add_parser("score")
    s.add_argument("key", type=Path)
    s.add_argument("corpus", type=Path)
    splits = ("dev", "held-out", "fresh", "in-source", "unseen", "all")
    s.add_argument("--split", choices=splits, default="all")
    s.add_argument("--show-missed", action="store_true")
    s.add_argument("--removed-corpus", type=Path, help="where the REMOVED programs are extracted")
    s.add_argument(
        "--in-source",
        type=Path,
        help="programs whose ROCm port lives in #ifdef USE_ROCM branches: DIR/src/NAME-cuda "
        "and DIR/ports/NAME-hip, the file with the macro undefined and defined (unifdef)",
    )
    s.add_argument("--show", action="store_true", help="every edit and what caught it")
    for q in (h, s):
        q.add_argument("--ports", default="/work/.mirror/zjin-lcf+HeCBench/repo")
        q.add_argument("--rev", default="f27000a51")
    args = p.parse_args()
    {"hunks": hunks, "score": score}[args.cmd](args)


if __name__ == "__main__":
    main()
