"""Where a tree keeps code that is not its port: the CUDA backend of a project with its own
HIP backend beside it, copies of CUB's repository, the CUDA twins of HIP sources; and the
HIP backend itself, which the project wrote for AMD.  Read from paths alone."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .mappings import MappingIndex
from .project_index import ProjectIndex

# a backend directory's name for each vendor: xmr-stak's `backend/nvidia` beside its own
# `backend/amd` (round 26, a false HZ310 in the NVIDIA one), taichi's `rhi/cuda` beside its
# `rhi/amdgpu` (round 33)
_BACKEND_NAMES = ("hip", "rocm", "amd", "amdgpu")
_CUDA_BACKEND_NAMES = ("cuda", "nvidia")


def _hip_names(name: str) -> frozenset[str]:
    """The names of the HIP directories that may stand beside a CUDA directory ``name``: a
    backend's (`hip`, `rocm`, `amd`, `amdgpu`) beside `cuda` or `nvidia`, and ``name`` with
    `hip` for `cuda` (cuda_irregular_ops' `data/cuda_code_test` beside the `hip_code_test` its
    HIP tests build, round 44: 5 false HZ313); empty for a name that says no CUDA."""
    lowered = name.lower()
    if lowered in _CUDA_BACKEND_NAMES:
        return frozenset(_BACKEND_NAMES)
    swapped = lowered.replace("cuda", "hip")
    return frozenset({swapped}) if swapped != lowered else frozenset()


def cuda_backends_of(files: Iterable[Path]) -> frozenset[str]:
    """The directories among the ancestors of ``files`` (absolute paths) whose parent also
    holds a HIP directory of theirs (``_hip_names``) with files of the tree."""
    ancestors = {d for f in files for d in f.parents}
    names = {(d.parent, d.name.lower()) for d in ancestors}
    return frozenset(
        str(d) for d in ancestors if any((d.parent, hip) in names for hip in _hip_names(d.name))
    )


def library_copies_of(files: Iterable[Path]) -> frozenset[str]:
    """The copies of CUB's repository among the ancestors of ``files`` (absolute paths): a
    directory whose name starts with `cub` and that holds `cub/cub.cuh`."""
    return frozenset(
        str(f.parent.parent)
        for f in files
        if f.name == "cub.cuh"
        and f.parent.name == "cub"
        and f.parent.parent.name.lower().startswith("cub")
    )


# directories whose names say their code is kept but built no more: pg-strom's `deadcode`,
# cuda_pspin's `OLD_CODE_ONLY4SPIN` (round 44: a false HZ320), an `attic`
_RETIRED_NAME = re.compile(r"(?i)(?:dead|old)[_-]?code(?:$|[_-])|attic$")


def retired_dirs_of(files: Iterable[Path]) -> frozenset[str]:
    """The directories among the ancestors of ``files`` (absolute paths) named as code kept
    out of the build (pg-strom's `deadcode/v3.x`, which no Makefile reaches, round 34: 3 false
    findings), not one that holds every file (the tree the user asked about)."""
    files = list(files)
    ancestors = {d for f in files for d in f.parents if _RETIRED_NAME.match(d.name)}
    return frozenset(str(d) for d in ancestors if not all(d in f.parents for f in files))


def cuda_named_headers(files: Iterable[Path], mappings: MappingIndex) -> frozenset[str]:
    """The tree's own files (absolute paths) whose names are those of CUDA headers the
    mapping tables list (`cuda.h`, `cublas.h`): a quoted include that finds one of them beside
    the file that includes it names the project's header, not CUDA's."""
    return frozenset(str(f) for f in files if mappings.header(f.name) is not None)


def not_the_projects(path: str, project: ProjectIndex) -> str:
    """Why ``path`` is no file of the project's port: it lies in one of
    ``project.cuda_backends``, ``project.library_copies`` or ``project.retired``, or is one of
    ``project.cuda_twins``, or a header only branches the HIP build skips include
    (``project.skipped_headers``), or in a directory no source reaches
    (``project.unreached``); "" when it is."""
    if Path(path).name in project.skipped_headers:
        return "a header only branches the HIP build skips include"
    if project.unreached and str(Path(path).absolute()) in project.unreached:
        return "a header in a directory no source file of the tree includes from"
    if not (
        project.cuda_backends or project.library_copies or project.cuda_twins or project.retired
    ):
        return ""
    if str(Path(path).absolute()) in project.cuda_twins:
        return "the CUDA twin of a HIP source the project builds instead"
    parents = {str(d) for d in Path(path).absolute().parents}
    if parents & project.cuda_backends:
        return "the CUDA backend of a project with its own HIP backend"
    if parents & project.library_copies:
        return "a file of a copy of CUB's repository"
    if parents & project.retired:
        return (
            "code the project keeps out of its build (a dead-code or attic directory, or one its"
            " CMake adds only in a comment or behind an architecture option that is off)"
        )
    return ""


def hip_build_only(path: str, project: ProjectIndex) -> bool:
    """``path`` lies in the HIP directory beside one of ``project.cuda_backends`` (rtp-llm's
    `bindings/rocm/kernels`, written in CUDA's spelling over its own `cuda_shims.h` beside
    `bindings/cuda`, round 31), or is one of ``project.hip_twins``: code only the project's
    HIP build compiles, so findings about CUDA code being ported do not apply there."""
    if str(Path(path).absolute()) in project.hip_twins:
        return True
    hip_dirs = {
        (str(Path(b).parent), hip)
        for b in project.cuda_backends
        for hip in _hip_names(Path(b).name)
    }
    return any((str(d.parent), d.name.lower()) in hip_dirs for d in Path(path).absolute().parents)
