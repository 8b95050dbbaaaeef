"""The click types and checks the declared options use (``cli/option_table.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

import click

from ..arch_names import arch_name_error


class PathArg(click.Path):
    """``click.Path`` that refuses an empty path: ``-o ''`` would name the working directory
    (``Path('')`` is ``.``), which is a usage error, not a failed write."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str | bytes) and not value:
            self.fail("an empty path", param, ctx)
        return super().convert(value, param, ctx)


class LazyChoice(click.Choice):  # type: ignore[type-arg]
    """A ``click.Choice`` whose names are read when first needed, so declaring ``--format``
    or ``--toolchain`` does not import every format (or the verifier) for every run."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._names = names
        self.case_sensitive = True

    @cached_property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(self._names())

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if param is not None and value == param.default:
            return value  # one of the names by declaration: no need to load them
        return super().convert(value, param, ctx)


def check_arch(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """click callback: ``--arch`` must look like an AMD GPU name (gfx942, gfx90a:xnack+).
    The default needs no check (and no import of the verifier)."""
    if value == param.default:
        return value
    error = arch_name_error(value)
    if error is not None:
        raise click.BadParameter(error)
    return value


def parse_shard(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    """click callback: ``--shard I/N`` as (I, N)."""
    if value is None:
        return None
    from ..shard import ShardError
    from ..shard import parse_shard as parse

    try:
        return parse(value)
    except ShardError as exc:
        raise click.BadParameter(str(exc)) from None


def cuda_include(cuda_path: Path | None) -> dict[str, tuple[str, ...]]:
    """``--cuda-path DIR``: parse with DIR/include."""
    return {"include_dirs": (str(Path(cuda_path) / "include"),)} if cuda_path else {}


def compile_db_flags(build_dir: Path | None) -> dict[str, tuple[str, ...]]:
    """``-p DIR``: the union of -I/-D flags in DIR/compile_commands.json (paths absolute)."""
    if not build_dir:
        return {}
    from ..verify.compdb import CompileDatabaseError, union_flags

    try:
        flags = union_flags(build_dir)
    except CompileDatabaseError as exc:
        raise click.UsageError(str(exc)) from None
    return {"include_dirs": tuple(flags.include_dirs), "defines": tuple(flags.defines)}
