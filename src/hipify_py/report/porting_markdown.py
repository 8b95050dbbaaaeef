"""The porting report as a pull-request comment: the summary, what needs a human, the risky
build-flag changes and the findings of the worst files, cut to fit one comment (GitHub takes
65,536 characters); the HTML report has the rest."""

from __future__ import annotations

import html
import re
from collections import Counter

from .porting import SEVERITIES, FileEntry, PortReport, printable, register_port_format

MAX_CHARS = 60_000  # the comment, footer included
MAX_RISKY = 20
MAX_PER_FILE = 10  # findings listed under one file
_ICON = {"error": "🔴", "warning": "🟠", "info": "🔵"}


def _text(text: object) -> str:
    """Prose from the tree on one line, with nothing Markdown or HTML would act on; what a
    message quotes in backticks stays a code span (whose text Markdown does not read)."""
    parts = re.split(r"(`[^`]+`)", " ".join(str(text).split()))
    return "".join(
        _code(part[1:-1]) if n % 2 else re.sub(r"([\\`*_\[\]|#~<>&])", r"\\\1", part)
        for n, part in enumerate(parts)
    )


def _code(text: object) -> str:
    """A code span holding ``text`` as it is (on one line), whatever backticks it has."""
    flat = " ".join(str(text).split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _counts(report: PortReport) -> str:
    files = report.status_counts()
    sev = Counter(f.severity.value for f in report.findings() if not f.fixed)
    fixed = sum(f.fixed for f in report.findings())
    parts = [
        f"**{len(report.files)} files**: {files['converted']} converted, "
        f"{files['unchanged']} unchanged, {files['copied']} copied (not CUDA), "
        f"{files['failed'] + files['binary']} not converted",
        "open findings: " + ", ".join(f"{sev[s]} {s}" for s in SEVERITIES),
        f"{fixed} fixed by the conversion",
    ]
    if report.verify is not None:
        v = report.verify_counts()
        parts.append(
            f"verify: {v['passed']} passed, {v['failed']} failed, "
            f"{v['not-checkable']} not checkable"
        )
    else:
        parts.append("no verify result given")
    return " · ".join(parts)


def _file_block(entry: FileEntry) -> list[str]:
    found = entry.open_findings
    counts = Counter(f.severity.value for f in found)
    what = ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts[s])
    if entry.verify is not None:
        what += f"{', ' if what else ''}verify {_text(entry.verify.get('status'))}"
    if entry.status in ("failed", "binary"):
        what = f"not converted: {_text(entry.message)}"
    path = html.escape(" ".join(entry.path.split()))  # an HTML block: no Markdown in it
    out = ["<details>", f"<summary><code>{path}</code> — {what}</summary>", ""]
    errors = [d for d in (entry.verify or {}).get("errors") or [] if isinstance(d, dict)]
    for d in errors[:MAX_PER_FILE]:
        line = (d.get("anchor") or ["?"])[0]
        out.append(f"- 🔴 compiler, HIP line {line}: {_text(d.get('message', ''))}")
    for f in found[:MAX_PER_FILE]:
        out.append(f"- {_ICON[f.severity.value]} `{f.rule}` line {f.line}: {_text(f.message)}")
    hidden = max(0, len(found) - MAX_PER_FILE) + max(0, len(errors) - MAX_PER_FILE)
    if hidden:
        out.append(f"- … {hidden} more")
    return [*out, "", "</details>"]


def _blocked(entry: FileEntry) -> bool:
    """Not converted, or converted into code that does not compile."""
    failed = entry.verify is not None and entry.verify.get("status") == "failed"
    return failed or entry.status in ("failed", "binary")


@register_port_format("markdown")
def render(report: PortReport) -> str:
    footer = [
        "",
        "The HTML report (`hipify-py report`) has every file's diff with its findings inline; "
        "`hipify-py explain ID` prints a rule's page.",
    ]
    out = [f"## {_text(report.title)}", "", _counts(report), ""]
    items = report.needs_human()
    if items:
        out += [
            "### Needs a human",
            "",
            "| | What | Count | Files |",
            "| --- | --- | ---: | ---: |",
        ]
        out += [
            f"| {_ICON[sev]} {sev} | {_code(key)} {_text(what)} | {count} | {files} |"
            for sev, key, what, count, files in items
        ]
        out.append("")
    risky = [r for e in report.files for r in e.risky]
    if risky:
        out += ["### Risky build-flag changes", ""]
        out += [
            f"- {_text(r.category)}: {_code(f'{r.path}:{r.line}')} {_code(f'{r.tag} {r.text}')}"
            for r in risky[:MAX_RISKY]
        ]
        if len(risky) > MAX_RISKY:
            out.append(f"- … {len(risky) - MAX_RISKY} more")
        out.append("")
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    worst_first = sorted(
        (e for e in report.files if e.open_findings or _blocked(e)),
        key=lambda e: (not _blocked(e), rank.get(e.worst or "info"), e.path),
    )
    if worst_first:
        out += ["### Files", ""]
    budget = MAX_CHARS - len("\n".join(footer)) - 200
    size = len("\n".join(out))
    for n, entry in enumerate(worst_first):
        block = _file_block(entry)
        cost = len("\n".join(block)) + 1
        if size + cost > budget:
            out.append(f"_… {len(worst_first) - n} more files with findings: see the HTML report._")
            break
        out += block
        size += cost
    return printable("\n".join(out + footer) + "\n")
