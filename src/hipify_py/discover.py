"""Which files a run looks at, which of them are CUDA, and where each one's output goes.

One policy for every command: ``discover`` gives the files ``convert`` writes, ``check``
checks, ``report`` lists and ``verify`` compiles, and ``classify`` decides once per file
whether it is a CUDA source, a build file (the build systems' own modules say which names are
theirs: ``buildfiles/registry.py``) or neither.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .buildfiles.registry import build_kind
from .context import Renames
from .project_backends import (
    cuda_backends_of,
    cuda_named_headers,
    library_copies_of,
    retired_dirs_of,
)
from .project_declarations import both_declarations, vector_members
from .project_gated_includes import GatedIncludes
from .project_host_headers import HostHeaders
from .project_index import ProjectIndex, index_of
from .project_launches import LaunchBlocks
from .project_masks import MaskWidths
from .project_reach import IncludeReach
from .project_switches import WRAPPING_MACROS, SwitchUses, is_build_text
from .project_templates import ClosedTemplates
from .project_tiles import TileConstants
from .project_unbuilt import BuildTexts
from .project_wavefronts import WavefrontUses

if TYPE_CHECKING:
    from .mappings.index import MappingIndex

CUDA_SUFFIXES = frozenset({".cu", ".cuh", ".hu"})  # .hu: LightGBM's CUDA headers
C_LIKE_SUFFIXES = frozenset(
    {
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".h++",
        ".inl",
        ".inc",
        ".ipp",
        ".tpp",
        ".tcc",
        ".hip",
    }
)
# the record ``convert`` keeps in an output tree: it describes that tree, never an input
MANIFEST_NAME = ".hipify-py-manifest.json"
HEAD_BYTES = 65536  # how much of a build file says whether it is about CUDA
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules"})
# What makes a C/C++ file CUDA (APIs, headers, syntax), as one search per literal start: a
# pattern that opens with a literal is scanned for at C speed, while one alternation behind a
# leading \b is tried at every byte (190 instructions per byte, 5% of a tree conversion).
# ``(?<=\bcu)`` after the literal is the \b that would stand before it.
_CUDA_USES = tuple(
    re.compile(pattern)
    for pattern in (
        rb"cu(?<=\bcu)(?:da[A-Z_]\w*|(?:blas|rand|sparse|fft|solver|dnn|Ctx|Mem|Stream|Device"
        rb"|Launch)\w*|b::|(?:Double|Float)?Complex)\b",
        rb"nccl(?<=\bnccl)\w+\b",
        # the driver API's types (`typedef struct CUstream_st* GPUstream;`, warp-ctc's ctc.h)
        rb"CU(?<=\bCU)(?:stream|event|context|ctx|device|function|module|result|graph|array"
        rb"|texObject|surfObject|mem|tensorMap)\w*\b",
        rb"__(?<=\b__)(?:global|device|shared)__\b",
        # nvcc's own macros: Open3D's `Macro.h` tests `__CUDA_ARCH__` and nothing else CUDA
        # (round 28 of the compile benchmark: copied unconverted, 3 TUs failed for it)
        rb"__(?<=\b__)(?:CUDACC|CUDA_ARCH|NVCC)__\b",
        rb"threadIdx(?<=\bthreadIdx)\b",
        rb"blockIdx(?<=\bblockIdx)\b",
        rb"CUDA_(?<=\bCUDA_)[A-Z_]+\b",
        # CUDA's half/bf16 types and __NV_ macros: headers that use nothing else (issue 23)
        rb"__(?<=\b__)(?:nv_bfloat16\w*|NV_[A-Z0-9_]+|half2?)\b",
        rb"nv_(?<=\bnv_)bfloat16\w*\b",
        rb"<<<",
        # inline PTX: a header of asm macros (ldmatrix, mma.sync, cp.async) has no other sign
        # (PTX mnemonics carry dotted suffixes, `mov.u32`, `cp.async.wait_all`; x86's do not)
        rb"asm(?:(?<=\basm)|(?<=\b__asm)__)(?:\s+(?:volatile|__volatile__))?\s*\(\s*\"\s*\{?\s*"
        rb"(?:[a-z][a-z0-9_]*\.[a-z0-9_]|\.reg\b|[^\"\n]*?%(?:laneid|warpid|n?smid|clock|globaltimer))",
        rb"#\s*include\s*(?:[<\"](?:cuda|cu[a-z]+[._]|cublas|curand|cusparse|cufft|cusolver|cudnn"
        rb"|nccl|ATen/cuda|c10/cuda|thrust|cub/|vector_types\.h|vector_functions\.h"
        # the toolkit's headers without a `cu` prefix (cuda_lbm's `var.h` includes
        # <builtin_types.h> and nothing else of CUDA's: compile round 43, 4 silent TUs)
        rb"|builtin_types\.h|device_launch_parameters\.h|device_functions\.h|driver_types\.h"
        rb"|math_functions\.h|host_defines\.h|texture_types\.h|surface_types\.h|mma\.h"
        rb"|channel_descriptor\.h|sm_[0-9]+_\w+\.h|common_functions\.h|cooperative_groups"
        rb"|device_(?:atomic|double)_functions\.h|texture_fetch_functions\.h"
        # cuda_pspin's `disorder.h`: <cuComplex.h> and `cuDoubleComplex` (compile round 44)
        rb"|cuComplex\.h)"
        rb'|"[^"\n]*\.cu")',  # includes a .cu file, whose name changes
    )
)


class UsageError(Exception):
    """A problem with what the user asked for: reported as one line, exit code 2."""


@dataclass(frozen=True)
class Candidate:
    path: Path  # the file to read
    rel: Path  # its path relative to the input root (for output mirroring)
    root: Path  # the input root it was found under
    # found by walking ``root``: the real path of ``root``, which reading it must not leave
    within: Path | None = None
    real: Path | None = None  # found by walking: ``path`` with symlinks resolved

    def real_path(self) -> Path:
        return self.real or self.path.resolve()


def _matches(rel: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(os.path.basename(rel), g) for g in globs)


def _kind(path: Path) -> tuple[bool, int]:
    """Whether ``path`` is a symlink, and the mode of what it names (0 when nothing)."""
    try:
        info = os.lstat(path)
        link = stat.S_ISLNK(info.st_mode)
        return link, (os.stat(path) if link else info).st_mode
    except (OSError, ValueError):
        return False, 0


def _real(path: Path) -> Path:
    """``path`` with symlinks resolved; never raises (a symlink loop stays unresolved)."""
    return Path(os.path.realpath(path))


def walk(
    paths: Sequence[Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip: Sequence[Path] = (),
) -> Iterator[Candidate]:
    """Every regular file under ``paths`` (symlinked directories are not followed; a link to
    a file is followed only when the file is inside the tree).

    The one walk of every command: ``convert`` writes, ``check`` checks and ``verify``
    compiles exactly these files.  It skips version-control and tool directories
    (``SKIP_DIRS``) and CMake build trees (a directory holding ``CMakeCache.txt``: generated
    files such as ``CMakeCUDACompilerId.cu``), and walks every other directory, hidden ones too.
    """
    skip_real = {_real(p) for p in skip}
    for root in paths:
        if not os.path.lexists(root):
            raise UsageError(f"no such file or directory: {root}")
        if root.is_file():
            yield Candidate(root, Path(root.name), root.parent)
            continue
        if not root.is_dir():
            raise UsageError(f"not a regular file or directory: {root}")
        yield from _walk_tree(root, include, exclude, skip_real)


def _walk_tree(
    root: Path, include: Sequence[str], exclude: Sequence[str], skip_real: set[Path]
) -> Iterator[Candidate]:
    """``walk`` under one directory ``root``, in sorted order."""
    root_real = _real(root)
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if _walked(here / d, skip_real))
        # per directory, not per file: its path in the tree, and its real path (the
        # directories on the way are real, symlinked ones are not walked)
        rel_dir = here.relative_to(root)
        real_dir = root_real / rel_dir
        prefix = "" if rel_dir.parts == () else rel_dir.as_posix() + "/"
        for name in sorted(filenames):
            if not _selected(prefix + name, include, exclude):
                continue
            path = here / name
            link, kind = _kind(path)
            if not stat.S_ISREG(kind):
                continue  # FIFOs, sockets, devices, dangling links, link loops
            real = _real(path) if link else real_dir / name
            if link and not real.is_relative_to(root_real):
                continue  # never follow a link out of the tree
            yield Candidate(path, rel_dir / name, root, within=root_real, real=real)


def _walked(directory: Path, skip_real: set[Path]) -> bool:
    """Whether ``walk`` enters ``directory``: not a tool directory, a symlink, a CMake build
    tree (generated sources) or a directory the command writes or compares with.  A build in
    the source directory (its CMakeCache.txt beside its CMakeLists.txt: imhd-CUDA's
    `examples/old/library_test`, compile round 41, whose `main.cu` went unconverted) keeps
    the sources: only its `CMakeFiles/` is generated."""
    built = (directory / "CMakeCache.txt").exists() and not (directory / "CMakeLists.txt").exists()
    in_source = directory.name == "CMakeFiles" and (directory.parent / "CMakeCache.txt").exists()
    return (
        directory.name not in SKIP_DIRS
        and not directory.is_symlink()
        and not built
        and not in_source
        and _real(directory) not in skip_real
    )


def _selected(rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """``--include``/``--exclude`` on a path in the tree: excluded wins."""
    if exclude and _matches(rel, exclude):
        return False
    return not include or _matches(rel, include)


def discover(
    paths: Sequence[Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip: Sequence[Path] = (),
) -> list[Candidate]:
    """The files a command works on: ``walk``'s files but an output tree's manifest, laid out
    as the output tree mirrors them (``mirror_layout``).  ``skip``: directories never walked
    (the output tree a run writes into, the HIP tree ``check`` compares with)."""
    found = [c for c in walk(paths, include, exclude, skip) if c.path.name != MANIFEST_NAME]
    return mirror_layout(found, paths)


def mirror_layout(items: Sequence[Candidate], paths: Sequence[Path]) -> list[Candidate]:
    """Output-relative paths: with several input directories each keeps its own subdirectory
    (``out/kernels/...``, ``out/third_party/...``) so same-named files do not collide."""
    if len(paths) < 2:
        return list(items)
    dirs = {p.resolve() for p in paths if p.is_dir()}
    return [
        replace(c, rel=Path(c.root.name) / c.rel) if c.root.resolve() in dirs else c for c in items
    ]


@dataclass(frozen=True)
class FileKind:
    """What a file is to a run, decided once (``classify``) and carried with its outcome."""

    build: str | None = None  # the build system of a build file that mentions CUDA
    cuda: bool = False  # a CUDA source (by extension, or a C/C++ file that uses CUDA)

    @property
    def converted(self) -> bool:
        """Whether the pipeline runs on the file (else it is copied, or passed over)."""
        return self.cuda or self.build is not None


def classify(path: Path, data: bytes) -> FileKind:
    """A build file by its build system's names and its first ``HEAD_BYTES`` bytes, else a
    CUDA source by the whole of ``data``: a long licence or comment can hide the first CUDA
    call past any prefix."""
    build = build_kind(path, data[:HEAD_BYTES])
    if build is not None:
        return FileKind(build=build)
    return FileKind(cuda=is_cuda_source(path, data))


def is_cuda_source(path: Path, head: bytes) -> bool:
    """CUDA by extension, or a C/C++ file whose text uses CUDA APIs, headers or syntax."""
    suffix = path.suffix.lower()
    if suffix in CUDA_SUFFIXES:
        return True
    return suffix in C_LIKE_SUFFIXES and any(use.search(head) for use in _CUDA_USES)


def output_name(rel: Path, keep_names: bool) -> Path:
    """Mirrored output path: ``.cu`` becomes ``.hip`` unless names are kept."""
    if not keep_names and rel.suffix == ".cu":
        return rel.with_suffix(".hip")
    return rel


def renames_of(items: Sequence[Candidate], paths: Sequence[Path]) -> Renames:
    """The ``.cu`` inputs a run over directories writes as ``.hip``, for build files to follow.
    A run over single files knows no tree: every ``.cu`` name is taken to be renamed."""
    if not any(p.is_dir() for p in paths):
        return Renames()
    return Renames(frozenset(str(c.real_path()) for c in items if c.path.suffix == ".cu"))


# how much of one source the project index reads (a definition past it is not seen)
INDEX_BYTES = 4 << 20


class _TreeTexts:
    """The texts of a tree's C-like sources, read again at each iteration (the project index
    reads them twice when a header defines PTX macros)."""

    def __init__(self, items: Sequence[Candidate]) -> None:
        self.items = items

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for c in self.items:
            if c.path.suffix in CUDA_SUFFIXES or c.path.suffix in C_LIKE_SUFFIXES:
                try:
                    with open(c.path, "rb") as f:
                        yield str(c.path), f.read(INDEX_BYTES)
                except OSError:
                    continue  # the run reports an unreadable file where it converts it


def project_index_of(
    items: Sequence[Candidate], paths: Sequence[Path], mappings: MappingIndex
) -> ProjectIndex:
    """The API names the tree's sources define (``project_index``); empty for a run over
    single files, which knows no tree."""
    if not any(p.is_dir() for p in paths):
        return ProjectIndex()

    files = [c.path.absolute() for c in items]
    wavefronts = WavefrontUses()
    masks = MaskWidths()
    switches = SwitchUses()
    gated = GatedIncludes()
    launches = LaunchBlocks()
    reach = IncludeReach()
    closed = ClosedTemplates()
    tiles = TileConstants()
    host_headers = HostHeaders()
    both: set[tuple[str, str]] = set()  # the headers' __host__ __device__ declarations
    vectors: set[tuple[str, int]] = set()  # the tree's members of CUDA vector types

    def also(path: str, data: bytes) -> None:
        wavefronts.add(path, data)
        masks.add(path, data)
        switches.add_source(data)
        gated.add(path, data)
        launches.add(path, data)
        reach.add(path, data)
        host_headers.add(path, data)
        closed.add(path, data)
        tiles.add(data)
        both.update(both_declarations(path, data))
        vectors.update(vector_members(data))

    index = index_of(_TreeTexts(items), mappings, also=also, launches=launches)
    builds = BuildTexts()
    for c in items:
        if switches.full:
            builds.give_up()
            break  # past its bound the tree's switches are unknown: read no more
        if c.path.suffix not in C_LIKE_SUFFIXES and is_build_text(str(c.path)):
            try:
                with open(c.path, "rb") as f:
                    data = f.read(INDEX_BYTES)
            except OSError:
                builds.give_up()
                continue
            switches.add_build_text(data)
            builds.add(c.path, data)
    edges = reach.edges()
    return replace(
        index,
        unset_switches=switches.unset(mappings),
        wraps_thrust=switches.sets_any(WRAPPING_MACROS),
        skipped_headers=gated.skipped_only(index.includes, index.hip_settings),
        wavefront_constants=wavefronts.uses(mappings),
        warp_constants=wavefronts.constants(),
        warp_constant_homes=wavefronts.homes(),
        wide_masks=masks.wide(),
        narrow_masks=masks.narrow(),
        cuda_backends=cuda_backends_of(files),
        library_copies=library_copies_of(files),
        retired=retired_dirs_of(files) | builds.unbuilt(),
        unreached=reach.unreached(),
        include_paths=edges,
        clang_headers=host_headers.compiled(edges, _is_cuda_file),
        closed_templates=closed.found(),
        tile_constants=tiles.found(),
        both_declarations=frozenset(both),
        vector_members=frozenset(vectors),
        own_cuda_named=cuda_named_headers(files, mappings),
    )


def _is_cuda_file(path: str) -> bool:
    """A file of the tree is a CUDA source (``is_cuda_source``, read again: asked only of the
    includers of a header that needs clang's fixes, ``HostHeaders.compiled``)."""
    try:
        with open(path, "rb") as f:
            return is_cuda_source(Path(path), f.read(INDEX_BYTES))
    except OSError:
        return False


def default_out_root(root: Path) -> Path:
    """``src/`` -> ``src-hip/`` beside it; the input itself is never written to."""
    root = root.resolve()
    return root.with_name(root.name + "-hip")


def single_file_output(path: Path, keep_names: bool) -> Path:
    """Where ``convert FILE`` writes when no output is named: beside it, under the name a tree
    gives it (``k.cu`` -> ``k.hip``), and when that is its own name (``k.cuh``, any file with
    ``--keep-names``), with ``_hip`` before the suffix (``k_hip.cuh``): never the input."""
    named = path.with_name(output_name(Path(path.name), keep_names).name)
    return named if named != path else path.with_name(f"{path.stem}_hip{path.suffix}")
