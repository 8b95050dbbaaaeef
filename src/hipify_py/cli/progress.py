"""The progress bar of a long run: advances per finished file, names a file that is slow."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from ..discover import Candidate

if TYPE_CHECKING:
    from rich.progress import Progress


class Bar:
    """Callbacks for the runner and the write loop; no-ops when the bar is not shown."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress = progress
        self.task = progress.add_task("converting", total=total) if progress else None

    def advance(self, candidate: Candidate, written: Path | None = None) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=1, description="converting")

    def slow(self, candidate: Candidate) -> None:
        """The runner waited a while for ``candidate``: say which file it is."""
        if self.progress is not None and self.task is not None:
            name = escape(candidate.rel.as_posix())
            self.progress.update(self.task, description=f"converting {name} (slow)")


@contextmanager
def progress(console: Console, total: int, shown: bool) -> Iterator[Bar]:
    """A rich bar on a terminal when ``shown``; stopped (and removed) on the way out, also on
    Ctrl-C."""
    if not shown:
        yield Bar(None, total)
        return
    from rich.progress import (  # imported only for a bar that shows
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with bar:
        yield Bar(bar, total)
