"""Rule ID patterns as the command line, the project config and a manifest write them: ``HZ101``
(one rule), ``HZ1`` (a prefix: every HZ1xx rule) or ``ALL``, case-insensitive, in comma lists.

A leaf module: the options (``context``) and the config read patterns without the rule registry,
which imports them; whether a pattern names a rule is the config's and the CLI's to ask
(``config.unknown_pattern``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERN = re.compile(r"ALL|[A-Z]{1,2}\d{0,3}")


def split_ids(values: Iterable[str]) -> tuple[str, ...]:
    """Comma lists of patterns -> one upper-cased pattern each."""
    out = []
    for value in values:
        out += [v.strip().upper() for v in value.split(",") if v.strip()]
    return tuple(out)


def rule_patterns(text: str) -> str:
    """A comma list of patterns, upper-cased (the ``parse`` of an option that names rules): a
    ValueError names the first item that is not one."""
    ids = split_ids([text])
    bad = next((i for i in ids if not _PATTERN.fullmatch(i)), None)
    if bad is not None or not ids:
        raise ValueError(f"{bad or text!r} is not a rule ID or prefix (e.g. HZ404, HZ5, ALL)")
    return ",".join(ids)
