"""Feature switches nothing in the tree sets: a name its sources test with `#ifdef NAME` (or
`defined(NAME)`) that no source defines and no build file, script or configuration template
of the tree names.  No build of the project turns such a branch on, so the HIP build skips it
as the CUDA build does, and a hazard inside is none of the port's: altis vendors darknet's
`yolo` sources, whose `#ifdef CUDNN` branches its CMake build never enables (round 31: four
false HZ300 at cuDNN calls).  The branch is still converted.

Names a compiler, a system or SDK header or the HIP build may define are never switches: those
that start with `_` or name a version, the HIP build's own and its switches (``hip_build``),
names of the mapping tables (CUDA's macros), names under an SDK's or a common library's
prefix, and names the code uses as values (`#ifdef LLONG_MIN` before a use of `LLONG_MIN`).
A tree whose build texts exceed ``_BUILD_BYTES`` has no switches: what it sets is not known.
Pure: the texts come from the caller."""

from __future__ import annotations

import re
from pathlib import PurePath

from .frontend.directives import DEFINED_NAME
from .frontend.hip_build import DEVICE_PASS, HIP_BUILD, HOST_PASS, hip_switch
from .mappings import MappingIndex

_TESTED = re.compile(
    rb"^[ \t]*#[ \t]*(?:ifdef[ \t]+|(?:el)?if[ \t!(]*defined[ \t]*\(?[ \t]*)([A-Z][A-Z0-9_]*)\b",
    re.M,
)
_WORD = re.compile(rb"[A-Za-z_]\w*")
_FLAG = re.compile(rb"[-/]D[ \t]*([A-Za-z_]\w*)")  # `-DNAME`, MSVC's `/DNAME`
# what is not code: preprocessor lines, comments (an unclosed one runs to the end, so each match
# ends where the next starts) and string literals
_NOT_CODE = re.compile(
    rb'^[ \t]*#[^\n]*|//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"', re.M | re.S
)

# the files that may set a macro for the compiler: build files, scripts, configuration
# templates (`config.h.in`'s `#cmakedefine`), compile databases, CI and project settings
_BUILD_NAMES = frozenset(
    {"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile", "BUILD", "WORKSPACE", "SConstruct"}
    | {"SConscript", "configure", "meson.build", "meson_options.txt", "setup.py", "Kbuild"}
)
_BUILD_SUFFIXES = frozenset(
    {".cmake", ".mk", ".mak", ".make", ".bzl", ".bazel", ".py", ".sh", ".bash", ".in", ".ac"}
    | {".am", ".json", ".yml", ".yaml", ".toml", ".cfg", ".ini", ".props", ".vcxproj", ".txt"}
    | {".gn", ".gni", ".pro", ".pri", ".ninja", ".bat", ".ps1", ".cmd", ".nix", ".spec"}
)
_BUILD_BYTES = 64 << 20

# the macros with which a build puts Thrust and CUB in a namespace of its own (HZ323)
WRAPPING_MACROS = frozenset(
    {"THRUST_CUB_WRAPPED_NAMESPACE", "THRUST_WRAPPED_NAMESPACE", "CUB_WRAPPED_NAMESPACE"}
    | {"CUB_NS_PREFIX", "CUB_NS_QUALIFIER"}
)

# defined by compilers, platforms or the headers of SDKs and libraries a tree builds against
_GIVEN = frozenset({"NDEBUG", "DEBUG", "WIN32", "WIN64", "UNICODE", "MSVC", "APPLE", "UNIX"})
_PREFIXES = (
    "CUDA", "CUDART", "CU_", "CUB_", "THRUST", "NV", "CUTLASS", "CUTE", "CUBLAS", "CUDNN_",
    "CUFFT", "CURAND", "CUSPARSE", "CUSOLVER", "NCCL", "HIP", "ROCM", "RCCL", "TORCH", "AT_",
    "C10", "PYBIND11", "PY_", "EIGEN", "BOOST", "CV_", "OPENCV", "GTEST", "GOOGLE", "TENSORFLOW",
    "TF_", "MKL", "OMP", "MPI", "OPENMPI", "MPICH", "GLIBC", "LINUX", "WIN", "DOXYGEN", "QT",
    "GL_", "VK_", "OPTIX", "FMT_", "SPDLOG", "ABSL", "PROTOBUF", "LLVM", "GCC", "CLANG",
)  # fmt: skip


def is_build_text(path: str) -> bool:
    """A file that may pass `-D` flags or generate a configuration header."""
    p = PurePath(path)
    return p.name in _BUILD_NAMES or p.suffix.lower() in _BUILD_SUFFIXES


class SwitchUses:
    """Collects, file by file, the names the sources test and define and the words of the
    build texts; ``unset`` then says which tested names nothing sets."""

    def __init__(self) -> None:
        self.tested: set[str] = set()
        self.defined: set[str] = set()
        self.code_words: set[bytes] = set()
        self.build_words: set[bytes] = set()
        self.build_bytes = 0

    def add_source(self, data: bytes) -> None:
        self.tested.update(m.group(1).decode("ascii") for m in _TESTED.finditer(data))
        self.defined.update(m.group(1).decode("ascii") for m in DEFINED_NAME.finditer(data))
        self.code_words.update(_WORD.findall(_NOT_CODE.sub(b" ", data)))

    @property
    def full(self) -> bool:
        """Past the bound: nothing more is read, and no switch is known."""
        return self.build_bytes > _BUILD_BYTES

    def add_build_text(self, data: bytes) -> None:
        self.build_bytes += len(data)
        if not self.full:
            self.build_words.update(_WORD.findall(data))
            self.build_words.update(_FLAG.findall(data))

    def sets_any(self, names: frozenset[str]) -> bool:
        """Whether a build text names one of ``names`` or a source defines one; True past the
        bound, where what the builds set is not known."""
        return (
            self.full
            or not self.defined.isdisjoint(names)
            or any(name.encode("ascii") in self.build_words for name in names)
        )

    def unset(self, mappings: MappingIndex) -> frozenset[str]:
        if self.full:
            return frozenset()
        named = self.build_words | self.code_words
        candidates = {
            name
            for name in self.tested - self.defined
            if name.encode("ascii") not in named and _may_be_a_switch(name)
        }
        return frozenset(candidates - mappings.known(candidates).keys())


def _may_be_a_switch(name: str) -> bool:
    return not (
        name in _GIVEN
        or name in HIP_BUILD
        or name in DEVICE_PASS
        or name in HOST_PASS
        or name.startswith(_PREFIXES)
        or "VERSION" in name
        or hip_switch(name)
    )
