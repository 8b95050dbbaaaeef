"""What the commands that convert or check code share: the Context their options build, the
project config, and how a report is written."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from ..config import Config, ConfigFileError, unknown_pattern
from ..context import Context, Options
from ..files import WriteError, write_file
from ..mappings import load_index
from ..mappings.load import RulesText
from ..mappings.schema import MappingError
from ..user_mappings import user_rules
from .option_table import from_config, options_fields


class ConfigError(click.ClickException):
    """Bad mapping rules or project configuration: one line, exit code 2 like a usage error."""

    exit_code = 2


def write_or_fail(path: Path, text: str) -> None:
    """Write a report, diff or baseline the way every output is written (a regular file
    replaced atomically, or written through to a FIFO/device); a failure is the one-line
    ``cannot write PATH: reason`` (exit 1)."""
    if str(path) == "-":
        stream = sys.stdout.buffer
        stream.write(text.encode("utf-8", "surrogateescape"))
        stream.flush()
        return
    try:
        write_file(path, text.encode("utf-8", "surrogateescape"))  # a diff keeps raw bytes
    except WriteError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None


def load_config(
    paths: Sequence[Path], *, config_path: Path | None = None, no_config: bool = False
) -> Config:
    """The project config, loaded once: ``--config FILE``, else the one for the first path."""
    try:
        if no_config:
            return Config()
        if config_path is not None:
            return Config.load(config_path)
        return Config.find(paths[0] if paths else Path.cwd())
    except ConfigFileError as exc:
        raise ConfigError(str(exc)) from None


def build_options_context(
    values: dict[str, Any], config: Config, *, overrides: dict[str, Any] | None = None
) -> tuple[Context, list[RulesText]]:
    """The ``Options`` the current command's option ``values`` set (the project config filling
    in what the command line left out; ``overrides``: fields recorded elsewhere, e.g. in a HIP
    tree's manifest), and the mapping tables with the project config's and ``--mapping`` rules
    (returned too, for the worker processes)."""
    command = click.get_current_context().command.name or ""
    from_config(values, config)
    options = replace(Options(**options_fields(command, values)), **(overrides or {}))
    unknown = unknown_pattern(options.enabled)
    if unknown is not None:
        raise ConfigError(
            f"--enable / enable: no rule ID starts with {unknown!r} (see `hipify-py rules`)"
        )
    try:
        rules = user_rules(config, values["mapping_files"])
        index = load_index(options, rules)
    except MappingError as exc:
        raise ConfigError(str(exc)) from None
    ignores = config if config.ignore or config.per_file else None
    return Context(options, index, ignores=ignores), rules
