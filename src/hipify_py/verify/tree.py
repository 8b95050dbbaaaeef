"""What a converted tree says about itself: ``convert``'s manifest gives the ROCm it targets
(so ``verify`` refuses a toolchain older than that) and, per HIP file, the CUDA file it came
from and the options it was converted with (so errors map back without ``--from``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..context import Options
from ..output.manifest import MANIFEST_NAME, Manifest, ManifestError, options_from_record


def tree_manifest(path: str | os.PathLike) -> Manifest | None:
    """The manifest of the converted tree holding ``path`` (the directory itself or one above
    it); None when there is none or it cannot be read (verify works without one)."""
    start = Path(path).resolve()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        try:
            found = Manifest.load(directory)
        except (ManifestError, OSError):
            return None
        if found is not None:
            return found
    return None


def manifest_options(manifest: Manifest) -> Options | None:
    """The conversion options the manifest records (None when they cannot be rebuilt)."""
    try:
        # include directories may lie in the converted tree or the CUDA trees it records
        project = [manifest.out_root, *(manifest.out_root / r["path"] for r in manifest.roots)]
        record = options_from_record(manifest.options, manifest.out_root / MANIFEST_NAME, project)
        return Options(**record)
    except (ManifestError, TypeError, ValueError):
        return None


def target_rocm(
    paths: Sequence[str | os.PathLike], explicit: tuple[int, ...] | None
) -> tuple[tuple[int, ...], str]:
    """(the ROCm the checked files target, where that came from): ``--target-rocm``, else the
    newest target a manifest of the paths records, else convert's default."""
    if explicit:
        return explicit, "--target-rocm"
    recorded = []
    for p in paths:
        manifest = tree_manifest(p)
        options = manifest_options(manifest) if manifest else None
        if manifest is not None and options is not None:
            recorded.append((options.target_rocm, str(manifest.out_root)))
    if recorded:
        version, where = max(recorded)
        return version, f"the manifest of {where}"
    return Options().target_rocm, "convert's default --target-rocm"


def manifest_source(manifest: Manifest, hip_file: Path) -> Path | None:
    """The CUDA file ``convert`` wrote ``hip_file`` from, if it still exists."""
    try:
        rel = hip_file.resolve().relative_to(manifest.out_root).as_posix()
    except ValueError:
        return None
    if rel not in manifest.files:
        return None
    source = manifest.source_of(rel)
    return source if source.is_file() else None
