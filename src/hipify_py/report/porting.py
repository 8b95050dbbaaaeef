"""The porting report: one document a person reviews a whole port with (``hipify-py report``).

``collect`` turns the outcomes of a conversion into a ``PortReport``: per file the lines of
its diff that matter (changes, and the lines findings or compiler errors point at, with some
context), its findings, its verify result when one is given, and the risky flag changes of
build files.  Formats (``porting_<name>.py``, registered with ``register_port_format``) are
pure functions from a ``PortReport`` to text, like the ``check`` formats in ``formats.py``.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..discover import output_name
from ..findings import Finding
from ..result import Outcome
from ..rules import RULES
from .registry import Registry

CONTEXT = 3  # unchanged lines shown around a change, a finding or a compiler error
MAX_ROWS = 4000  # diff rows kept per file; a larger diff is cut (``FileEntry.cut``)
SEVERITIES = ("error", "warning", "info")  # the order a person should work in

# Build-flag changes a reviewer must look at: they change numerics or the GPUs code runs on.
RISKY_FLAGS: dict[str, re.Pattern[str]] = {
    "fast-math": re.compile(
        r"fast[-_]?math|-ffp-contract|-funsafe-math|-fgpu-flush-denormals|--?ftz\b"
        r"|-prec-(?:div|sqrt)|--?fmad\b|denormal",
        re.IGNORECASE,
    ),
    "GPU architectures": re.compile(
        r"\bsm_\d|\bcompute_\d|\bgfx\d|-arch\b|--?gpu-architecture|-gencode|--generate-code"
        r"|offload-arch|_ARCHITECTURES|GPU_TARGETS|ARCH_LIST|ROCM_ARCH",
        re.IGNORECASE,
    ),
}


@dataclass
class Row:
    """One line of a diff: ``tag`` " " (both sides), "-" (input only), "+" (output only), or
    "~" for ``skipped`` unchanged lines not shown."""

    tag: str
    old: int  # 1-based line in the input (0: none)
    new: int  # 1-based line in the output (0: none)
    text: str = ""
    skipped: int = 0


@dataclass
class RiskyChange:
    path: str
    category: str  # the keys of RISKY_FLAGS it matches, comma-separated
    tag: str  # "-" removed or "+" added
    line: int  # in the input ("-") or the output ("+")
    text: str


@dataclass
class FileEntry:
    path: str  # the input as the user named it (under the given paths)
    out: str  # where convert writes it, relative to the output tree
    status: str  # runner.Outcome status: converted, unchanged, copied, binary, failed
    kind: str | None = None  # build system of a build file; None for a source
    message: str = ""  # why it failed
    rows: list[Row] = field(default_factory=list)
    cut: int = 0  # diff rows left out past MAX_ROWS
    added: int = 0
    removed: int = 0
    findings: list[Finding] = field(default_factory=list)  # open and fixed, by line
    verify: dict | None = None  # this file's entry of a ``verify --format json`` report
    risky: list[RiskyChange] = field(default_factory=list)

    @property
    def open_findings(self) -> list[Finding]:
        return [f for f in self.findings if not f.fixed]

    @property
    def worst(self) -> str | None:
        """The highest severity of the open findings (None when there is none)."""
        ranked = sorted(self.open_findings, key=lambda f: -f.severity.rank)
        return ranked[0].severity.value if ranked else None

    @property
    def needs_review(self) -> bool:
        """Shown on its own in the report: changed, or with something to look at."""
        failed_verify = self.verify is not None and self.verify.get("status") == "failed"
        return bool(self.rows or self.findings or self.risky or failed_verify) or self.status in (
            "failed",
            "binary",
        )


@dataclass
class PortReport:
    title: str
    tool_version: str
    options: list[str]  # the conversion options that differ from the defaults
    files: list[FileEntry] = field(default_factory=list)
    verify: dict | None = None  # the verify run (toolchain, mode, summary) when one was given
    verify_source: str = ""  # where it came from (a file name)
    unmatched_verify: list[str] = field(default_factory=list)  # verified files not in the tree

    def findings(self) -> Iterable[Finding]:
        for entry in self.files:
            yield from entry.findings

    def rule_pages(self) -> dict[str, str]:
        """The ``hipify-py explain`` page of each rule a finding names, by rule ID."""
        ids = sorted({f.rule for f in self.findings()})
        return {i: RULES[i].page if i in RULES else f"# {i}\n\n(no page)\n" for i in ids}

    def status_counts(self) -> Counter:
        return Counter(e.status for e in self.files)

    def verify_counts(self) -> Counter:
        return Counter(e.verify["status"] for e in self.files if e.verify is not None)

    def needs_human(self) -> list[tuple[str, str, str, int, int]]:
        """What a person must still look at, most severe first: (severity, key, what, count,
        files).  ``key`` is a rule ID or one of ``failed``, ``verify-failed``,
        ``not-checkable``, ``risky``: the report's filters take it."""
        items: list[tuple[str, str, str, int, int]] = []
        failed = [e for e in self.files if e.status in ("failed", "binary")]
        if failed:
            items.append(("error", "failed", "files not converted", len(failed), len(failed)))
        verdicts = self.verify_counts()
        if verdicts["failed"]:
            n = verdicts["failed"]
            items.append(("error", "verify-failed", "files that do not compile", n, n))
        by_rule: dict[str, list[Finding]] = {}
        for f in self.findings():
            if not f.fixed:
                by_rule.setdefault(f.rule, []).append(f)
        for rule, found in by_rule.items():
            sev = max((f.severity for f in found), key=lambda s: s.rank).value
            name = RULES[rule].name if rule in RULES else rule
            items.append((sev, rule, name, len(found), len({f.path for f in found})))
        risky = [r for e in self.files for r in e.risky]
        if risky:
            files = len({r.path for r in risky})
            items.append(("warning", "risky", "risky build-flag changes", len(risky), files))
        if verdicts["not-checkable"]:
            n = verdicts["not-checkable"]
            items.append(("warning", "not-checkable", "files verify could not check", n, n))
        rank = {s: i for i, s in enumerate(SEVERITIES)}
        blocking = ("failed", "verify-failed")  # no working output yet: before any finding
        return sorted(items, key=lambda i: (rank[i[0]], i[1] not in blocking, -i[3], i[1]))


# ------------------------------------------------------------------------------ building


def printable(text: str) -> str:
    """``text`` as valid UTF-8: bytes of the tree that were not (kept as surrogates in names
    and code) become U+FFFD, so a report is never an invalid page or comment."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def diff_rows(
    original: str, converted: str, marks_old: set[int], marks_new: set[int]
) -> tuple[list[Row], int, int]:
    """The rows worth showing of the diff from ``original`` to ``converted`` (changed lines,
    the input lines in ``marks_old``, the output lines in ``marks_new``, CONTEXT lines around
    each; the rest folded into "~" rows), with the counts of added and removed lines."""
    a, b = original.splitlines(), converted.splitlines()
    full: list[Row] = []
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            full += [Row(" ", i + 1, j1 + k + 1, a[i]) for k, i in enumerate(range(i1, i2))]
            continue
        full += [Row("-", i + 1, 0, a[i]) for i in range(i1, i2)]
        full += [Row("+", 0, j + 1, b[j]) for j in range(j1, j2)]
        removed += i2 - i1
        added += j2 - j1
    keep = [False] * len(full)
    for n, row in enumerate(full):
        if row.tag != " " or row.old in marks_old or row.new in marks_new:
            for k in range(max(0, n - CONTEXT), min(len(full), n + CONTEXT + 1)):
                keep[k] = True
    rows: list[Row] = []
    for n, row in enumerate(full):
        if keep[n]:
            rows.append(row)
        elif rows and rows[-1].tag == "~":
            rows[-1].skipped += 1
        else:
            rows.append(Row("~", row.old, row.new, skipped=1))
    if rows and not any(r.tag != "~" for r in rows):
        return [], 0, 0
    return rows, added, removed


def risky_changes(path: str, rows: list[Row]) -> list[RiskyChange]:
    """The changed lines of a build file that touch numerics or the GPU architecture list."""
    out = []
    for row in rows:
        if row.tag not in ("-", "+"):
            continue
        found = [name for name, pattern in RISKY_FLAGS.items() if pattern.search(row.text)]
        if found:
            line = row.old if row.tag == "-" else row.new
            out.append(RiskyChange(path, ", ".join(found), row.tag, line, row.text.strip()))
    return out


def entry_of(outcome: Outcome, keep_names: bool, verify: VerifyIndex | None = None) -> FileEntry:
    """The report's view of one conversion outcome (with its texts loaded), with its entry of
    the ``verify`` report if there is one (the lines of its errors are shown in the diff)."""
    cand = outcome.candidate
    result = outcome.result
    out = output_name(cand.rel, keep_names) if result is not None else cand.rel
    entry = FileEntry(
        path=str(cand.path),
        out=out.as_posix() if out.parts else cand.path.name,
        status=outcome.status,
        kind=outcome.kind,
        message=outcome.message,
    )
    if verify is not None:
        entry.verify = verify.find(entry.path, entry.out)
    if result is None:
        return entry
    entry.findings = sorted(result.findings, key=lambda f: (f.line, f.column, f.rule))
    if outcome.status == "failed" and result.error:
        entry.message = entry.message or result.error
    show_diff(entry, result.printable_original, printable(result.text))
    if entry.kind is not None:
        entry.risky = risky_changes(entry.path, entry.rows)
    return entry


def show_diff(entry: FileEntry, original: str, converted: str) -> None:
    """Set the rows of ``entry``'s diff: the changes, and the lines its findings and its
    compiler errors (``entry.verify``) point at."""
    rows, entry.added, entry.removed = diff_rows(
        original, converted, {f.line for f in entry.findings}, _error_lines(entry)
    )
    entry.rows, entry.cut = rows[:MAX_ROWS], max(0, len(rows) - MAX_ROWS)


def hidden_error_lines(entry: FileEntry) -> bool:
    """Whether a compiler error of ``entry`` points at an output line its rows do not show."""
    return not _error_lines(entry) <= {r.new for r in entry.rows if r.tag != "~"}


def _error_lines(entry: FileEntry) -> set[int]:
    """The output lines ``entry``'s compiler errors point at."""
    errors = (entry.verify or {}).get("errors") or []
    return {d["anchor"][0] for d in errors if isinstance(d, dict) and d.get("anchor")}


class VerifyIndex:
    """The files of a ``hipify-py verify --format json`` report, found by the CUDA file each
    was converted from (``cuda_path``, with ``--from``), else by the end of its HIP path
    (``.../dir/k.hip`` is the output ``dir/k.hip``)."""

    def __init__(self, data: dict) -> None:
        self.run = {k: data.get(k) for k in ("toolchain", "mode", "summary", "ok", "warnings")}
        self.items = [i for i in data.get("files", []) if isinstance(i, dict) and "status" in i]
        self.by_cuda = {
            os.path.realpath(str(i["cuda_path"])): n
            for n, i in enumerate(self.items)
            if i.get("cuda_path")
        }
        self.by_name: dict[str, list[tuple[str, int]]] = {}  # file name -> ("/" + path, index)
        for n, i in enumerate(self.items):
            hip = "/" + str(i.get("path", "")).replace(os.sep, "/")
            self.by_name.setdefault(hip.rpartition("/")[2], []).append((hip, n))
        self.used: set[int] = set()

    def find(self, path: str, out: str) -> dict | None:
        n = self.by_cuda.get(os.path.realpath(path))
        if n is None:
            tail = "/" + out
            candidates = self.by_name.get(tail.rpartition("/")[2], [])
            n = next((k for hip, k in candidates if hip.endswith(tail)), None)
        if n is None:
            return None
        self.used.add(n)
        return self.items[n]

    def unmatched(self) -> list[str]:
        return [str(i.get("path", "?")) for n, i in enumerate(self.items) if n not in self.used]


# ------------------------------------------------------------------------------ formats

PortRender = Callable[[PortReport], str]
_PORT_REGISTRY: Registry[PortRender] = Registry("porting_", "porting report format")
register_port_format = _PORT_REGISTRY.register
load_port_formats = _PORT_REGISTRY.load
