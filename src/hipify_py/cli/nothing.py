"""A run with nothing to do is an error, not a quiet success (as ruff and clang-tidy do): a
wrong path or glob otherwise passes a CI gate and writes an empty or copied tree."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from ..discover import discover
from ..runner import has_work


def refuse_when_nothing_to_convert(
    paths: Sequence[Path], include: Sequence[str], exclude: Sequence[str]
) -> None:
    """Exit 1, before anything is written, when no file under ``paths`` is CUDA (a source, or
    a build file that mentions CUDA)."""
    if not has_work(discover(paths, include, exclude)):
        _fail(f"no CUDA sources or CUDA build files in {_where(paths)}: nothing converted, "
              "nothing written")  # fmt: skip


def refuse_when_nothing_checked(paths: Sequence[Path]) -> None:
    _fail(f"no CUDA or HIP sources in {_where(paths)}: nothing checked")


def _where(paths: Sequence[Path]) -> str:
    return ", ".join(str(p) for p in paths)


def _fail(message: str) -> None:
    click.echo(f"hipify-py: error: {message}", err=True)
    sys.exit(1)
