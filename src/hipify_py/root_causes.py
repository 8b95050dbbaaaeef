"""One diagnosis per root cause: the findings of one hazard rule in one file that the rule says
share a cause (``extra["root_cause"]``: the names of one library the target lacks, the texture
fetches of a target without image instructions, the same PTX line) are one finding at the
first place, listing the others as its dependent lines.

Each such finding is true, but a user acts once (a shim, a port of that library's use, a
replacement for image reads), and fifty copies of it bury the other findings of the file.
Findings without a declared cause stay apart: two reads of `prop.major` are two places to fix.
The merged finding keeps every line as ``extra["related_lines"]`` (SARIF shows them as related
locations) and lists the first twenty in its message.  Findings that carry a fix stay apart
(each fix edits its own place), and so do findings that already list dependent lines of their
own."""

from __future__ import annotations

from dataclasses import replace

from .findings import Finding


def one_per_root_cause(findings: list[Finding]) -> list[Finding]:
    """``findings`` (of one file, in file order) with the findings of one declared root cause
    (and no fix of their own) folded into the first."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for f in findings:
        if _foldable(f):
            key = str(f.extra["root_cause"])
            groups.setdefault((f.rule, f.severity.value, key), []).append(f)
    folded = {id(g[0]): _fold(g) for g in groups.values() if len(g) > 1}
    repeats = {id(f) for g in groups.values() if len(g) > 1 for f in g[1:]}
    return [folded.get(id(f), f) for f in findings if id(f) not in repeats]


def _foldable(f: Finding) -> bool:
    return "root_cause" in f.extra and f.fix is None and "related_lines" not in f.extra


def _fold(group: list[Finding]) -> Finding:
    first = group[0]
    lines = sorted({f.line for f in group} - {first.line})
    listed = ", ".join(map(str, lines[:_LISTED]))
    if len(lines) > _LISTED:  # every line stays in related_lines (SARIF, JSON)
        listed += f" and {len(lines) - _LISTED} more"
    names = list(dict.fromkeys(_subject(f) for f in group[1:] if f.message != first.message))
    names = [n for n in names if n and n != _subject(first)]
    if names:
        shown = ", ".join(f"`{n}`" for n in names[:_SHOWN])
        more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
        note = f"; the same holds for {shown}{more}" + (f" (lines {listed})" if lines else "")
    elif lines:
        note = f" (also at lines {listed})"
    else:  # the same thing twice on one line
        return first
    extra = {**first.extra, "related_lines": ",".join(map(str, lines))} if lines else first.extra
    return replace(first, message=first.message + note, extra=extra)


_SHOWN = 8  # names listed in a folded message
_LISTED = 20  # lines listed in it (a file of 300 cuDNN calls: the message stays readable)


def _subject(f: Finding) -> str:
    """What a finding is about: the first `name` its message quotes."""
    parts = f.message.split("`")
    return parts[1] if len(parts) > 2 else ""
