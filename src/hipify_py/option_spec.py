"""How an ``Options`` field is set from the command line and the project config, declared on
the field itself: ``field(default=..., metadata=cli(...))`` in ``context.py``.

An option that sets one field is then one declaration: the dataclass gives its type and
default, ``cli`` its flag, help, commands, config key and place in ``--help``.  The CLI layer
(``cli/option_table.py``) turns each such field into a click option; options that only steer a
command (where output goes, a report format) or derive fields from other input (``--cuda-path``,
``-p``) are declared there instead.  Plain data, no click: ``context`` is imported by every
worker process, and the core does not depend on the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import Field, dataclass, fields
from typing import Any

CONVERT = frozenset({"convert"})
CHECK = frozenset({"check"})
REPORT = frozenset({"report"})
VERIFY = frozenset({"verify"})
TREE = frozenset({"convert", "check", "report"})  # the commands that convert or check a tree
WRITES = frozenset({"convert", "report"})  # the commands whose conversion is written or shown

_KEY = "hipify_py.cli"  # the field-metadata key


@dataclass(frozen=True)
class CliFlag:
    """The command-line face of one ``Options`` field.

    What kind of option it is follows from the field: ``--x/--no-x`` in ``decls`` is an on/off
    flag (not given: the field keeps its default, or the project config's value), a bool
    default a flag, a tuple default a repeatable option, anything else an option with a value
    (``choices`` to restrict it).  ``parse`` turns the text given into the field's value (a
    ``ValueError`` is a usage error naming the flag); ``default_text`` is the field's default
    as it is written on the command line (shown by ``--help``, parsed when not given).
    ``also``: bool fields a given flag sets too (``--unsafe-fixes`` implies ``--fix``).
    ``section`` places the option in ``--help`` (``option_table.py`` places the sections; an
    unplaced one comes last).  ``conversion``: whether a porting report names the option.
    """

    decls: tuple[str, ...]
    commands: frozenset[str]
    help: str
    section: str = ""
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    parse: Callable[[str], Any] | None = None
    default_text: str | None = None
    also: tuple[str, ...] = ()
    config: str | None = None
    conversion: bool = True


def cli(*decls: str, commands: frozenset[str], help: str, **more: Any) -> Mapping[str, CliFlag]:
    """The field metadata that declares an ``Options`` field's option (see ``CliFlag``)."""
    return {_KEY: CliFlag(decls, commands, help, **more)}


def cli_fields(cls: type) -> Iterator[tuple[Field[Any], CliFlag]]:
    """The fields of dataclass ``cls`` that declare an option, in field order."""
    for f in fields(cls):
        flag = f.metadata.get(_KEY)
        if isinstance(flag, CliFlag):
            yield f, flag
