"""The registry of ``hipify-py check`` report formats.

Each format is one module ``findings_<name>.py`` in this package whose ``render`` registers
itself with ``@register_format("name")``; ``--format`` offers exactly the registered
names, so adding a format is adding that module (and its test).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .findings_common import CheckReport


@dataclass(frozen=True)
class Style:
    """Where the report goes: ``terminal`` when a person reads it on a terminal (colours,
    source context), ``quiet`` for the findings and failures alone (no summary, no context)."""

    terminal: bool = False
    quiet: bool = False


Render = Callable[[CheckReport, Style], str]


FORMATS: dict[str, Render] = {}  # format name -> its renderer
_loaded = False


def register_format(name: str) -> Callable[[Render], Render]:
    """Register the decorated ``render(report, style) -> str`` as the format ``name``."""

    def register(render: Render) -> Render:
        if name in FORMATS:
            raise ValueError(f"report format {name!r} is registered twice")
        FORMATS[name] = render
        return render

    return register


def load_formats() -> dict[str, Render]:
    """Import every ``findings_*`` module once so that each format registers itself."""
    global _loaded
    if not _loaded:
        for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
            if mod.name.startswith("findings_"):
                importlib.import_module(f"{__name__.rpartition('.')[0]}.{mod.name}")
        _loaded = True
    return FORMATS


def render(report: CheckReport, name: str, style: Style = Style()) -> str:
    """The report as text in the format ``name``."""
    return load_formats()[name](report, style)
