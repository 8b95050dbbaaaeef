"""The manifest ``convert`` keeps in an output tree: how the tree was made and what it holds.

``.hipify-py-manifest.json`` records the input roots (relative to the output tree), the
conversion options, and for every generated file its source and the sha256 of the bytes
written.  It lets ``check --in-sync DIR`` reproduce the conversion with no repeated flags, map
each CUDA file to its HIP file the way ``convert`` did, find HIP files whose source is gone,
and lets a re-run of ``convert`` refuse to overwrite a generated file edited by hand.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context import Options
from ..untrusted import UntrustedInputError, decode_utf8, read_regular
from .files import write_file

MANIFEST_NAME = ".hipify-py-manifest.json"
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
    _by_source: dict[Path, str] | None = field(default=None, repr=False)

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

    def output_for(self, source: Path) -> str | None:
        """The output path (relative to the tree) ``convert`` gave ``source``, if it did."""
        if self._by_source is None:
            self._by_source = {self.source_of(rel): rel for rel in self.files}
        return self._by_source.get(source.resolve())

    def rel_in_roots(self, source: Path) -> Path | None:
        """``source``'s path in the mirrored layout of the recorded input roots."""
        wanted = source.resolve()
        for root in self.roots:
            base = Path(os.path.normpath(self.out_root / root["path"]))
            if wanted.is_relative_to(base):
                return Path(root["prefix"]) / wanted.relative_to(base)
        return None

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


def options_from_record(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """Options keyword arguments from a manifest's record (unknown names are refused)."""
    known = {f.name: f for f in dataclasses.fields(Options)}
    out: dict[str, Any] = {}
    for key, value in record.items():
        if key not in known:
            raise ManifestError(f"{path}: unknown option {key!r} (written by a newer hipify-py?)")
        if key == "target_rocm":
            value = tuple(int(p) for p in str(value).split(".") if p.isdigit())
        elif isinstance(value, list):
            value = tuple(str(v) for v in value)
        out[key] = value
    return out


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
