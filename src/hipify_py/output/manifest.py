"""The manifest ``convert`` keeps in an output tree: how the tree was made and what it holds.

``.hipify-py-manifest.json`` records the input roots (relative to the output tree), the
conversion options, and for every generated file its source and the sha256 of the bytes
written.  It lets ``check --in-sync DIR`` reproduce the conversion with no repeated flags
(each recorded option checked: the file is committed, so untrusted) and find HIP files whose
source is gone, and lets a re-run of ``convert`` refuse to overwrite a generated file edited
by hand.  Which HIP file a CUDA file must match is never read from it (``gate.Layout``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context import Options
from ..discover import MANIFEST_NAME
from ..files import write_file
from ..rule_ids import rule_patterns
from ..untrusted import UntrustedInputError, decode_utf8, is_under, read_regular

FORMAT = 1
LIMIT = 256 * 1024 * 1024


class ManifestError(ValueError):
    """An unreadable manifest (one line)."""


@dataclass
class Manifest:
    out_root: Path
    roots: list[dict[str, str]] = field(default_factory=list)  # {"path": rel, "prefix": rel}
    options: dict[str, Any] = field(default_factory=dict)
    files: dict[str, dict[str, str]] = field(default_factory=dict)  # out rel -> source, sha256
    # the tree's manifest as it was read (document and bytes): a run that changed nothing
    # sees that without encoding the document again
    on_disk: tuple[dict[str, Any], bytes] | None = field(default=None, repr=False)
    _recorded: set[str] = field(default_factory=set, repr=False)  # files this run put in place

    @classmethod
    def load(cls, out_root: Path) -> Manifest | None:
        """The manifest of ``out_root``; None when there is none."""
        path = out_root / MANIFEST_NAME
        if not os.path.lexists(path):
            return None
        try:
            data = read_regular(path, LIMIT, root=Path(os.path.realpath(out_root)))
            doc = json.loads(decode_utf8(path, data))
        except (UntrustedInputError, ValueError, RecursionError) as exc:
            raise ManifestError(f"cannot read {path}: {exc}") from None
        ok = (
            isinstance(doc, dict)
            and doc.get("format") == FORMAT
            and isinstance(doc.get("roots"), list)
            and isinstance(doc.get("options"), dict)
            and isinstance(doc.get("files"), dict)
        )
        if not ok:
            raise ManifestError(f"cannot read {path}: not a hipify-py manifest (format {FORMAT})")
        files = doc["files"]
        return cls(out_root.resolve(), doc["roots"], doc["options"], files, (doc, data))

    def save(self) -> None:
        doc = {
            "format": FORMAT,
            "generator": "hipify-py convert",
            "roots": self.roots,
            "options": self.options,
            "files": {
                rel: entry
                for rel, entry in sorted(self.files.items())
                if rel in self._recorded or os.path.exists(os.path.join(self.out_root, rel))
            },  # without the outputs that are gone
        }
        path = self.out_root / MANIFEST_NAME
        try:  # a run that changed nothing leaves the file (and its mtime) alone
            current = read_regular(path, LIMIT, root=Path(os.path.realpath(self.out_root)))
        except UntrustedInputError:
            current = None
        if self.on_disk is not None and current == self.on_disk[1] and doc == self.on_disk[0]:
            return
        data = (json.dumps(doc, indent=1) + "\n").encode("utf-8")
        if current != data:
            write_file(path, data, root=self.out_root)

    def set_roots(self, paths: list[Path], prefixed: bool) -> None:
        self.roots = [
            {"path": _rel(p.resolve(), self.out_root), "prefix": p.name if prefixed else ""}
            for p in paths
            if p.is_dir()
        ]

    def record(self, rel: Path, real_source: Path, digest: str) -> None:
        """``rel`` was written from the file whose real path is ``real_source``."""
        key = rel.as_posix()
        self.files[key] = {"source": _rel(real_source, self.out_root), "sha256": digest}
        self._recorded.add(key)

    def source_of(self, rel: str) -> Path:
        return Path(os.path.normpath(self.out_root / self.files[rel]["source"]))

    def orphans(self) -> list[tuple[str, Path]]:
        """Generated files whose source no longer exists: (out rel, source)."""
        return [
            (rel, self.source_of(rel)) for rel in self.files if not self.source_of(rel).exists()
        ]


def options_record(options: Options) -> dict[str, Any]:
    """The Options that shaped the tree, as JSON values."""
    record = dataclasses.asdict(options)
    record["target_rocm"] = ".".join(str(p) for p in options.target_rocm)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in record.items()}


def options_from_record(
    record: dict[str, Any], path: Path, project: Sequence[Path]
) -> dict[str, Any]:
    """Options keyword arguments from a manifest's record.  A manifest is committed, so a pull
    request can edit it: each value is checked against its option's type, unknown names are
    refused, include directories must lie inside ``project`` (the folders being checked),
    and compiler arguments are limited to ``-D``, ``-U``, ``-I`` (inside ``project``) and
    ``-std=`` (``-include <fifo>`` would hang libclang).  ManifestError (one line) otherwise."""
    known = {f.name: f for f in dataclasses.fields(Options)}
    if len(record) > len(known):
        raise ManifestError(f"{path}: too many options")
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key not in known:
            raise ManifestError(f"{path}: unknown option {key!r} (written by a newer hipify-py?)")
        try:
            out[key] = _option_value(key, value, project)
        except ValueError as exc:
            raise ManifestError(f"{path}: option {key!r}: {exc}") from None
    return out


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_DEFINE = re.compile(rf"{_NAME}(?:=[^\0\n\r]{{0,1024}})?")
_ARCH = re.compile(r"gfx[0-9a-f]{2,4}[a-z0-9:+-]{0,32}")
_STD = re.compile(r"-std=(?:c|gnu)\+\+(?:11|14|17|20|23|2a|2b|2c)")
_LIST_LIMIT = 256
_FLAGS = frozenset(
    ("roc", "miopen", "experimental", "hip_data_types", "skip_inactive", "keep_names", "fix")
) | {"unsafe_fixes", "annotate", "portable"}


def _option_value(key: str, value: Any, project: Sequence[Path]) -> Any:
    """One recorded option, checked; ValueError says what is wrong with it."""
    if key in _FLAGS or key == "pytorch":
        if not isinstance(value, bool) and not (key == "pytorch" and value is None):
            raise ValueError("expected true or false")
        return value
    if key == "launch_syntax":
        if value not in ("hip", "cuda"):
            raise ValueError("expected 'hip' or 'cuda'")
        return value
    if key == "target_rocm":
        if not isinstance(value, str) or not re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){0,2}", value):
            raise ValueError("expected a version such as 7.2")
        return tuple(int(p) for p in value.split("."))
    if not isinstance(value, list) or len(value) > _LIST_LIMIT:
        raise ValueError(f"expected a list of at most {_LIST_LIMIT} strings")
    if not all(isinstance(v, str) and len(v) <= 4096 for v in value):
        raise ValueError("expected strings")
    checks: dict[str, Callable[[str], object]] = {
        "include_dirs": functools.partial(_inside, project=project),
        "defines": _DEFINE.fullmatch,
        "offload_arch": _ARCH.fullmatch,
        "extra_clang_args": functools.partial(_clang_arg, project=project),
        "enable": _rule_patterns,
    }
    bad = next((v for v in value if not checks[key](v)), None)
    if bad is not None:
        raise ValueError(f"{bad!r} is not allowed")
    return tuple(value)


def _rule_patterns(text: str) -> bool:
    try:
        rule_patterns(text)
    except ValueError:
        return False
    return True


def _clang_arg(arg: str, project: Sequence[Path]) -> bool:
    if arg.startswith(("-D", "-U")):
        return bool(_DEFINE.fullmatch(arg[2:]))
    if arg.startswith("-I"):
        return _inside(arg[2:], project)
    return bool(_STD.fullmatch(arg))


def _inside(directory: str, project: Sequence[Path]) -> bool:
    """An existing directory (not a FIFO or a device) under one of the ``project`` folders."""
    if not directory or "\0" in directory:
        return False
    real = os.path.realpath(directory)
    if not os.path.isdir(real):
        return False
    return any(is_under(real, os.path.realpath(p)) for p in project)


def _rel(path: Path, out_root: Path) -> str:
    """``path`` relative to ``out_root`` (both absolute: a Manifest's root is resolved when it
    is made)."""
    directory, name = os.path.split(path)
    if not name or path == out_root:
        return Path(os.path.relpath(path, out_root)).as_posix()
    return _rel_dir(directory, str(out_root)) + name


@functools.lru_cache(maxsize=4096)  # the files of one directory share its relative path
def _rel_dir(directory: str, out_root: str) -> str:
    rel = Path(os.path.relpath(directory, out_root)).as_posix()
    return "" if rel == "." else rel + "/"
