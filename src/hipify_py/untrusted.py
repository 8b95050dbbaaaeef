"""Reading input the user (or a stranger's repository) controls: config files, mapping files
and sources.

Every reader here refuses what could hang, exhaust memory or leak another file's content into
the output: non-regular files (FIFOs, devices), files above a size limit, links that lead out of
the tree being read, YAML aliases and documents nested deeper than any config needs.  Problems
are ``UntrustedInputError`` with a one-line message naming the file.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

CONFIG_LIMIT = 1024 * 1024  # bytes: a project config or a user mapping file
MAX_DEPTH = 16  # nesting of YAML/TOML collections in a config or mapping file


class UntrustedInputError(ValueError):
    """A file that is unsafe or malformed: one line, naming the file."""


class TooLarge(UntrustedInputError):
    """A file over the size limit of its reader."""


def _inside(fd: int, root: Path) -> bool:
    """Whether the open file ``fd`` lies under the real path ``root`` (checked on the opened
    file itself, so a file swapped for a symlink after it was listed is caught)."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc (not Linux): fall back to the path the caller resolved
        return True
    return is_under(real, str(root))


def is_under(real: str, top: str) -> bool:
    """Whether the real path ``real`` is ``top`` or lies under it (both real paths, so it is a
    matter of prefixes: no Path objects on a per-file path)."""
    return real == top or real.startswith(top if top.endswith(os.sep) else top + os.sep)


def read_regular(path: Path, limit: int, *, root: Path | None = None) -> bytes:
    """The bytes of ``path``, opened once; refuses a non-regular file, a file larger than
    ``limit`` bytes and (with ``root``) a file that is not under ``root`` once opened.

    ``root`` must be a real path (symlinks resolved, as ``os.path.realpath`` gives): a tree's
    files are read with the root resolved once, not once per file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UntrustedInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedInputError(f"cannot read {path}: not a regular file")
        if root is not None and not _inside(fd, root):
            raise UntrustedInputError(f"cannot read {path}: it links outside {root}")
        if info.st_size > limit:
            raise TooLarge(f"cannot read {path}: {info.st_size} bytes is over the limit of {limit}")
        data = _read_fd(fd, min(info.st_size, limit) + 1, limit)
    except OSError as exc:
        raise UntrustedInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TooLarge(f"cannot read {path}: over the limit of {limit} bytes")
    return data


def _read_fd(fd: int, first: int, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``fd``, asking first for ``first`` (the size fstat gave,
    plus one to see the end): a buffered read of ``limit + 1`` would allocate the whole limit
    (16 MiB for a source) for every file, 7x the cost of reading a typical one."""
    chunks = []
    total = 0
    want = first
    while total <= limit:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = min(limit + 1 - total, _CHUNK)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_CHUNK = 1 << 16  # what a file that grew after fstat is read in


def decode_utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start : exc.start + 1].hex()
        raise UntrustedInputError(
            f"cannot read {path}: not UTF-8 (byte 0x{byte} at offset {exc.start})"
        ) from None


def load_yaml(path: Path, data: bytes) -> Any:
    """A YAML document from ``data`` with aliases refused and nesting limited."""
    import yaml

    text = decode_utf8(path, data)
    loader = _yaml_loader()
    try:
        return yaml.load(text, Loader=loader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise UntrustedInputError(f"cannot read {path}{where}: invalid YAML: {problem}") from None
    except RecursionError:
        raise UntrustedInputError(f"cannot read {path}: nested too deeply") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer with 5,000 digits
        raise UntrustedInputError(f"cannot read {path}: {' '.join(str(exc).split())}") from None


_LOADER: Any = None


def _yaml_loader() -> Any:
    global _LOADER
    if _LOADER is None:
        import yaml

        class Loader(yaml.SafeLoader):
            """SafeLoader (the Python composer) without aliases (an alias bomb is a few
            hundred bytes) and with a depth limit (deep nesting exhausts the stack)."""

            depth = 0

            def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
                if self.check_event(yaml.AliasEvent):
                    mark = self.peek_event().start_mark
                    raise yaml.YAMLError(
                        f"line {mark.line + 1}: YAML aliases (*name) are not allowed"
                    )
                self.depth += 1
                try:
                    if self.depth > MAX_DEPTH:
                        raise yaml.YAMLError(f"nested deeper than {MAX_DEPTH} levels")
                    return super().compose_node(parent, index)
                finally:
                    self.depth -= 1

        _LOADER = Loader
    return _LOADER


def load_toml(path: Path, data: bytes) -> dict[str, Any]:
    """A TOML document from ``data``, nesting limited."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    text = decode_utf8(path, data)
    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UntrustedInputError(f"cannot read {path}: invalid TOML: {exc}") from None
    if _depth(doc) > MAX_DEPTH:
        raise UntrustedInputError(f"cannot read {path}: nested deeper than {MAX_DEPTH} levels")
    return doc


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level
