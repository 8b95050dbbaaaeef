"""The ``hipify-py`` command: a root click group; each subcommand lives in its own module."""

from __future__ import annotations

import sys

import click

from .. import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipify-py")
def root() -> None:
    """Port CUDA sources to HIP for AMD GPUs, and report what needs a human."""


def _register() -> None:
    from . import check, convert, mappings, rules, verify

    for command in (
        convert.convert,
        check.check,
        verify.verify,
        mappings.mappings,
        rules.rules,
        rules.explain,
    ):
        root.add_command(command)


def main() -> None:
    from .compat import normalize_argv

    _register()
    argv = sys.argv[1:]
    if argv and argv[0] == "convert":
        argv = ["convert", *normalize_argv(argv[1:])]
    try:
        root.main(argv, prog_name="hipify-py", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("hipify-py: interrupted", err=True)
        sys.exit(130)
