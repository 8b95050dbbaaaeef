"""Read a mapping table written one entry per line, as PyYAML would, without PyYAML's
constructor.

PyYAML's C loader still builds every scalar through Python code: the shipped tables' ~150,000
scalars took 0.62 s, two thirds of a first run's index build (this reader takes 0.09 s).  The
tables keep each entry on one line as a flow mapping of plain or quoted scalars
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
_VALUE = rf"'(?:[^'\n]|'')*+'|\"[^\"\\\n]*+\"|{_PLAIN}"
_PAIR = rf"[A-Za-z_]\w*+: (?:{_VALUE})"
# the part after ``entries:``: entry lines, comment lines and blank lines, nothing else
_ENTRY_BLOCK = re.compile(rf"(?:(?:- \{{{_PAIR}(?:, {_PAIR})*+\}}|\#[^\n]*+)?\n)*+")
_COMMENT_LINE = re.compile(r"^\#[^\n]*+\n", re.MULTILINE)
# one key and value each, in order: in a block in the form without its comment lines, each match
# runs from where the last one ended, through the blank lines and the "- {" before an entry's
# first key, to the ", " or "}" after the value
_PIECES = re.compile(rf"\n*+(- \{{)?([A-Za-z_]\w*+): ({_VALUE})(?:, |\}})")


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
    block = text[found.end() :].removesuffix("\n") + "\n"
    if not _ENTRY_BLOCK.fullmatch(block):
        return None
    entries = _entries(_COMMENT_LINE.sub("", block) if "#" in block else block)
    if not entries:  # YAML reads an empty ``entries:`` as null, or a scalar was no string
        return None
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


def _entries(block: str) -> list[dict[str, str]] | None:
    """The entries of a block in the form; None when a plain scalar is no string to YAML
    (``true``, ``7.0``, ``null``)."""
    entries: list[dict[str, str]] = []
    entry: dict[str, str] = {}
    resolvers = _resolvers()  # a plain scalar whose first character has none is a string
    for opener, key, raw in _PIECES.findall(block):
        if opener:
            entry = {}
            entries.append(entry)
        first = raw[0]
        if first == "'":
            value = raw[1:-1].replace("''", "'")
        elif first == '"':
            value = raw[1:-1]
        elif (None in resolvers or first in resolvers) and not _is_str(raw):
            return None
        else:
            value = raw
        if not _is_str(key):
            return None
        entry[key] = value
    return entries


@functools.lru_cache(maxsize=4096)  # keys, kinds, statuses and versions repeat
def _is_str(plain: str) -> bool:
    """PyYAML's own implicit resolvers decide, so a bool-, number- or null-looking word is not
    taken for a string."""
    resolvers = _resolvers()
    candidates = resolvers.get(plain[0], []) + resolvers.get(None, [])
    return not any(pattern.match(plain) for _, pattern in candidates)


@functools.lru_cache(maxsize=1)
def _resolvers() -> dict[str | None, list[tuple[str, re.Pattern[str]]]]:
    """PyYAML's implicit resolvers by the first character they apply to (None: any)."""
    from yaml.resolver import Resolver

    return Resolver.yaml_implicit_resolvers
