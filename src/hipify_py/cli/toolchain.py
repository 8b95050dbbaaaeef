"""``hipify-py toolchain fetch``: get the ROCm 7 header set ``verify`` checks gfx942 with."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("toolchain")
def toolchain() -> None:
    """Get what `verify` needs to check for gfx942 without a ROCm install."""


@toolchain.command("fetch")
@click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to unpack (default: $XDG_CACHE_HOME/hipify-py/rocm-7.2.4, where verify looks).",
)
@click.option("--force", is_flag=True, help="Fetch again even when the set is there.")
def fetch(dest: Path | None, force: bool) -> None:
    """Download Debian's ROCm 7.2.4 -dev packages (HIP, hipBLAS, hipSPARSE, hipRAND, hipCUB,
    RCCL, MIOpen, ...; about 35 MB) and LLVM 17 device libraries with `apt-get download`
    through a private apt configuration, and unpack them with dpkg into the cache `verify`
    reads. Nothing is installed. Needs apt-get and dpkg (Debian/Ubuntu) and network access;
    pair it with `apt-get install clang-19 lld-19`."""
    from ..verify.fetch import FetchError
    from ..verify.fetch import fetch as run_fetch

    try:
        prefix = run_fetch(dest, force=force, log=lambda line: click.echo(line, err=True))
    except FetchError as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        sys.exit(1)
    click.echo(str(prefix))
