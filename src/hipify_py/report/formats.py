"""The registry of ``hipify-py check`` report formats.

Each format is one module ``findings_<name>.py`` in this package whose ``render`` registers
itself with ``@register_format("name")``; ``--format`` offers exactly the registered
names, so adding a format is adding that module (and its test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .findings_common import CheckReport
from .registry import Registry


@dataclass(frozen=True)
class Style:
    """Where the report goes: ``terminal`` when a person reads it on a terminal (colours,
    source context), ``quiet`` for the findings and failures alone (no summary, no context)."""

    terminal: bool = False
    quiet: bool = False


Render = Callable[[CheckReport, Style], str]


_REGISTRY: Registry[Render] = Registry("findings_", "report format")
FORMATS = _REGISTRY.by_name  # format name -> its renderer
register_format = _REGISTRY.register
load_formats = _REGISTRY.load


def render(report: CheckReport, name: str, style: Style = Style()) -> str:
    """The report as text in the format ``name``."""
    return load_formats()[name](report, style)
