"""The ``hipify-py`` command: a root click group; each subcommand lives in its own module.

Subcommands are imported only when they run, so ``hipify-py mappings show X`` or a pre-commit
``check`` does not pay for importing every other command (rich's Markdown, the verifier, ...).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

import click

from .. import __version__, interrupts

# command name -> (module in this package, attribute)
COMMANDS = {
    "convert": ("convert", "convert"),
    "check": ("check", "check"),
    "verify": ("verify", "verify"),
    "mappings": ("mappings", "mappings"),
    "rules": ("rules", "rules"),
    "explain": ("rules", "explain"),
    "merge-reports": ("merge", "merge_reports"),
    "report": ("report", "report"),
    "toolchain": ("toolchain", "toolchain"),
}
_SUMMARIES = {
    "convert": "Convert CUDA sources to HIP.",
    "check": "CI gate: hazards, unsupported APIs, stale HIP output.",
    "verify": "Compile-check HIP sources for an AMD GPU.",
    "mappings": "Query the CUDA -> HIP mapping tables.",
    "rules": "List the hazard rules.",
    "explain": "Print the page of one rule.",
    "merge-reports": "Merge the JSON/SARIF reports of --shard runs.",
    "report": "One porting report to review: HTML page or PR comment.",
    "toolchain": "Fetch the ROCm 7 headers verify checks gfx942 with.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, _SUMMARIES[name]) for name in COMMANDS])


def _color(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--color`` as the environment every console reads: NO_COLOR / FORCE_COLOR (the
    conventions of no-color.org and force-color.org, which rich and our terminal checks honour
    when the flag is ``auto``)."""
    if value == "never":
        os.environ.pop("FORCE_COLOR", None)
        os.environ["NO_COLOR"] = "1"
    elif value == "always":
        os.environ.pop("NO_COLOR", None)
        os.environ["FORCE_COLOR"] = "1"
    return value


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipify-py")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_color,
    help="Colour output: auto (on a terminal, unless NO_COLOR; FORCE_COLOR forces it), "
    "always or never. Goes before the command: hipify-py --color never check src/.",
)
def root() -> None:
    """Port CUDA sources to HIP for AMD GPUs, and report what needs a human."""


def main() -> None:
    """Run a command.  Errors are one line on stderr (``hipify-py: error: ...``, exit 2 for
    usage and 1 otherwise); Ctrl-C exits 130 (click's own handling would exit 1)."""
    from .compat import normalize_argv

    # The process holds the mapping tables (tens of thousands of rows) for its whole life and
    # makes few reference cycles: with the default threshold (700 new containers) the cyclic
    # collector runs thousands of times per tree; a higher one saves ~3% of a conversion for
    # ~2 MB.  Library callers (convert_text) keep their own settings.
    gc.set_threshold(20_000, 20, 100)
    argv = sys.argv[1:]
    if argv and argv[0] == "convert":
        argv = ["convert", *normalize_argv(argv[1:])]
    interrupts.watch()
    try:
        code = root.main(argv, prog_name="hipify-py", standalone_mode=False)
        if interrupts.requested():  # a Ctrl-C that something swallowed: never a clean exit
            raise KeyboardInterrupt
    except SystemExit:
        if interrupts.requested():
            click.echo("hipify-py: interrupted", err=True)
            sys.exit(130)
        raise
    except KeyboardInterrupt:
        click.echo("hipify-py: interrupted", err=True)
        sys.exit(130)
    except click.exceptions.Abort:
        click.echo("hipify-py: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"hipify-py: error: {one_line(exc)}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # `hipify-py check | head`: the reader left; not an error
        sys.stderr.close()
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)


def one_line(exc: click.ClickException) -> str:
    """A click error as one line: ``Invalid value for '--arch': ...`` with no usage block."""
    message = " ".join(exc.format_message().split())
    if isinstance(exc, click.UsageError) and exc.ctx is not None and exc.ctx.command_path:
        command = exc.ctx.command_path.removeprefix("hipify-py").strip()
        if command and isinstance(exc, click.NoSuchOption | click.BadParameter):
            message += f" (see `hipify-py {command} --help`)"
    return message
