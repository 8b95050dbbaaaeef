"""Read a mapping table written one entry per line, as PyYAML would, without PyYAML's
constructor.

PyYAML's C loader still builds every scalar through Python code: the shipped tables' ~150,000
scalars take about 0.75 s, the whole cost of a first run's index build and a quarter of that
run.  The tables keep each entry on one line as a flow mapping of plain or quoted scalars
(``generate.dump_yaml`` writes them so and the hand-written tables follow), and a regular
expression reads that subset exactly.  A file with anything else after its ``entries:`` line
is left to PyYAML whole, so the answer is always the one PyYAML gives (a test compares both on
every shipped table).
"""

from __future__ import annotations

import functools
import re
from typing import Any

_ENTRIES_LINE = re.compile(r"^entries:[ \t]*\n", re.MULTILINE)
# Characters YAML reads as line breaks, controls or marks: a file holding one is PyYAML's.
_SPECIAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
# A plain scalar in a flow mapping: no indicator first, no flow indicator, '#', '?' or quote
# inside, ':' only inside a C++ name (``at::cuda``), single spaces between words.
_RUN = r"[^\s,\[\]{}#?:'\"]"
_PLAIN = rf"[A-Za-z0-9_.(/+<=~$^;\\]{_RUN}*+(?:(?: |::){_RUN}++)*+"
_PAIR = rf"([A-Za-z_]\w*+): ('(?:[^'\n]|'')*+'|\"[^\"\\\n]*+\"|{_PLAIN})"
_ENTRY = re.compile(rf"- \{{{_PAIR}(?:, {_PAIR})*+\}}")
_PAIRS = re.compile(_PAIR)


def load(data: bytes, loader: Any) -> Any | None:
    """The document PyYAML (with ``loader``) reads from ``data``, or None to say "ask PyYAML":
    the file is not UTF-8 in the one-entry-per-line form."""
    import yaml

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    found = _ENTRIES_LINE.search(text)
    if found is None or _SPECIAL.search(text):
        return None
    entries = []
    for line in text[found.end() :].split("\n"):
        if not line or line.startswith("#"):
            continue
        if not _ENTRY.fullmatch(line):
            return None
        entry = {}
        quoted = "'" in line or '"' in line  # a quoted scalar may hold ", " or ": "
        pairs = _PAIRS.findall(line) if quoted else (p.split(": ") for p in line[3:-1].split(", "))
        for key, raw in pairs:
            value = _scalar(raw)
            if value is None or not _is_str(key):
                return None
            entry[key] = value
        entries.append(entry)
    if not entries:
        return None  # YAML reads an empty ``entries:`` as null
    try:
        head = yaml.load(text[: found.start()], Loader=loader)
    except yaml.YAMLError:
        return None
    if head is None:
        head = {}
    if not isinstance(head, dict) or "entries" in head:
        return None
    head["entries"] = entries
    return head


def _scalar(raw: str) -> str | None:
    """The string a quoted or plain scalar stands for; None for a plain scalar YAML reads as
    another type (``true``, ``7.0``, ``null``)."""
    if raw[0] == "'":
        return raw[1:-1].replace("''", "'")
    if raw[0] == '"':
        return raw[1:-1]
    return raw if _is_str(raw) else None


@functools.lru_cache(maxsize=4096)  # kinds, statuses, sections and versions repeat
def _is_str(plain: str) -> bool:
    """PyYAML's own implicit resolvers decide, so a bool-, number- or null-looking word is not
    taken for a string."""
    from yaml.resolver import Resolver

    resolvers = Resolver.yaml_implicit_resolvers
    candidates = resolvers.get(plain[0], []) + resolvers.get(None, [])
    return not any(pattern.match(plain) for _, pattern in candidates)
