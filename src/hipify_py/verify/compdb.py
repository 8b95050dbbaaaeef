"""compile_commands.json, the one reader: -I/-D/-isystem/-include/-std flags per file (``verify``)
or their union over the whole database (``convert -p``, ``check -p``).

The file is untrusted input: a regular file of bounded size, UTF-8 JSON; an entry that is not
an object, or whose command does not split, gives no flags instead of failing the run.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from ..untrusted import UntrustedInputError, decode_utf8, read_regular
from .compile import Flags

COMPILE_DB_LIMIT = 512 * 1024 * 1024  # bytes of compile_commands.json


class CompileDatabaseError(ValueError):
    """A compile_commands.json that cannot be read (one line, for the user)."""


_PAIRED = {
    "-I": "include_dirs",
    "-isystem": "system_dirs",
    "-iquote": "quote_dirs",
    "-D": "defines",
    "-U": "undefines",
    "-include": "forced_includes",
}


class CompileDatabase:
    def __init__(self, build_dir: str | os.PathLike) -> None:
        self.path, self.entries = load_entries(build_dir)
        self._by_path: dict[str, dict] = {}
        self._by_name: dict[str, list[dict]] = {}
        for entry in self.entries:
            if not isinstance(entry.get("file"), str):
                continue
            full = os.path.realpath(os.path.join(entry.get("directory", ""), entry["file"]))
            self._by_path[full] = entry
            self._by_name.setdefault(Path(full).stem, []).append(entry)

    def flags_for(
        self, *paths: str | os.PathLike | None, remap: tuple[Path, Path] | None = None
    ) -> Flags | None:
        """Flags of the entry for the first of ``paths`` found (the HIP file, then its CUDA
        source, which may be None), else of the only entry with the same file stem.  ``remap`` =
        (cuda_root, hip_root) rewrites include directories inside the CUDA tree to the converted
        tree."""
        entry = None
        for p in paths:
            if p:
                entry = self._by_path.get(os.path.realpath(p))
                if entry:
                    break
        if entry is None:
            for p in paths:
                if p:
                    same = self._by_name.get(Path(p).stem, [])
                    if len(same) == 1:
                        entry = same[0]
                        break
        if entry is None:
            return None
        return parse_flags(entry, remap)


def load_entries(build_dir: str | os.PathLike) -> tuple[Path, list[dict]]:
    """(path, entries) of ``build_dir``/compile_commands.json (or of that file itself)."""
    path = Path(build_dir)
    if path.is_dir():
        path = path / "compile_commands.json"
    try:
        entries = json.loads(decode_utf8(path, read_regular(path, COMPILE_DB_LIMIT)))
    except UntrustedInputError as exc:
        raise CompileDatabaseError(f"compilation database: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise CompileDatabaseError(f"cannot read compilation database {path}: {exc}") from None
    return path, [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def union_flags(build_dir: str | os.PathLike) -> Flags:
    """The include directories and defines of every entry, each once, in order."""
    _path, entries = load_entries(build_dir)
    include_dirs: dict[str, None] = {}
    defines: dict[str, None] = {}
    for entry in entries:
        flags = parse_flags(entry)
        include_dirs.update(dict.fromkeys(flags.include_dirs))
        defines.update(dict.fromkeys(flags.defines))
    return Flags(include_dirs=tuple(include_dirs), defines=tuple(defines))


def _arguments(entry: dict) -> list[str]:
    args = entry.get("arguments")
    if isinstance(args, list):
        return [str(a) for a in args]
    try:
        return shlex.split(str(entry.get("command", "")))
    except ValueError:  # unbalanced quotes: this entry gives no flags
        return []


def parse_flags(entry: dict, remap: tuple[Path, Path] | None = None) -> Flags:
    args = _arguments(entry)
    directory = str(entry.get("directory", ""))
    found: dict[str, list[str]] = {k: [] for k in _PAIRED.values()}
    std = "c++17"
    i = 0
    while i < len(args):
        arg = args[i]
        value = None
        key = None
        for flag, name in _PAIRED.items():
            if arg == flag and i + 1 < len(args):
                key, value = name, args[i + 1]
                i += 1
                break
            if arg.startswith(flag) and len(arg) > len(flag) and flag in ("-I", "-D", "-U"):
                key, value = name, arg[len(flag) :]
                break
        if arg.startswith("-std=") or arg.startswith("--std="):
            std = arg.split("=", 1)[1]
            if not std.startswith(("c++", "gnu++")):
                std = "c++17"
        i += 1
        if key is None or value is None:
            continue
        if key in ("include_dirs", "system_dirs", "quote_dirs", "forced_includes"):
            value = os.path.abspath(os.path.join(directory, value))
            if remap:
                value = _remap(value, *remap)
        found[key].append(value)
    return Flags(**{k: tuple(v) for k, v in found.items()}, std=std)


def _remap(path: str, cuda_root: Path, hip_root: Path) -> str:
    try:
        rel = Path(path).resolve().relative_to(cuda_root.resolve())
    except ValueError:
        return path
    target = hip_root / rel
    return str(target) if target.exists() else path
