"""Read -I/-D/-isystem/-include/-std flags per file from a compile_commands.json."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from .compile import Flags

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
        path = Path(build_dir)
        if path.is_dir():
            path = path / "compile_commands.json"
        if not path.is_file():
            raise FileNotFoundError(f"no compile_commands.json in {build_dir}")
        self.path = path
        self.entries: list[dict] = json.loads(path.read_text())
        self._by_path: dict[str, dict] = {}
        self._by_name: dict[str, list[dict]] = {}
        for entry in self.entries:
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


def parse_flags(entry: dict, remap: tuple[Path, Path] | None = None) -> Flags:
    args = entry.get("arguments") or shlex.split(entry.get("command", ""))
    directory = entry.get("directory", "")
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
            value = os.path.normpath(os.path.join(directory, value))
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
