"""The README documents every option of every command (the option tables are written by hand,
so this is what keeps them from falling behind the command line)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click

from hipify_py.cli import root

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _options(
    command: click.Command, path: str, ctx: click.Context
) -> Iterator[tuple[str, list[str]]]:
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            yield path, [*param.opts, *param.secondary_opts]
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from _options(sub, f"{path} {name}", ctx)


def _documented(names: list[str]) -> bool:
    """A long name anywhere as a whole word, or a short one opening a code span (`-q`)."""
    for name in names:
        if name == "--help" or name == "-h":
            return True
        if name.startswith("--") and re.search(re.escape(name) + r"(?![\w-])", README):
            return True
        if not name.startswith("--") and re.search("`" + re.escape(name) + r"[` ]", README):
            return True
    return False


def test_every_option_of_every_command_is_in_the_readme() -> None:
    ctx = click.Context(root)
    missing = [
        f"{path} {'/'.join(names)}"
        for path, names in _options(root, "hipify-py", ctx)
        if not _documented(names)
    ]
    assert missing == []
    assert len(list(_options(root, "hipify-py", ctx))) > 60  # the walk reached every command


def test_an_undocumented_option_is_caught() -> None:
    assert not _documented(["--no-such-option-anywhere"])
    assert _documented(["--out-dir"]) and _documented(["-q", "--quiet"])
