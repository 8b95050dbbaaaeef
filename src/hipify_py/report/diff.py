"""Unified diffs of conversions: coloured on a terminal, plain when piped or saved."""

from __future__ import annotations

import difflib

from rich.console import Console
from rich.text import Text


def unified_diff(original: str, converted: str, path: str, new_path: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(keepends=True),
        converted.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{new_path}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def print_diff(console: Console, diff: str) -> None:
    """Piped: the diff's bytes as they are (bytes that were not UTF-8 in the input included);
    on a terminal: coloured, such bytes shown as U+FFFD."""
    if not console.is_terminal:
        console.file.flush()
        buffer = getattr(console.file, "buffer", None)
        if buffer is not None:
            buffer.write(diff.encode("utf-8", "surrogateescape"))
            buffer.flush()
        else:
            console.file.write(_printable(diff))
        return
    for line in _printable(diff).splitlines():
        style = (
            "bold"
            if line.startswith(("+++", "---"))
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else "cyan"
            if line.startswith("@@")
            else ""
        )
        console.print(Text(line, style=style), highlight=False, soft_wrap=True)


def _printable(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
