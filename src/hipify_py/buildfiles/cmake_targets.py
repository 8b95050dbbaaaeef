"""What a CMake project gets implicitly from CUDA and must be given explicitly for HIP.

- nvcc links the CUDA runtime into every target with ``.cu`` sources, and a ``.cpp`` beside them
  finds ``cuda_runtime.h`` in the toolkit's include dir. A ``.cpp`` that now includes
  ``hip/hip_runtime.h`` is compiled as plain C++ and needs ``hip::host`` for
  ``__HIP_PLATFORM_AMD__`` and the ROCm include dir, else ``#error "Must define exactly one of
  __HIP_PLATFORM_AMD__..."``.
- ``project(p LANGUAGES CUDA)`` enables no C++: ``find_package(hip)`` (through FindThreads)
  needs C or CXX, so CXX (and C, where the file names C sources) joins HIP.
- Clang as the HIP compiler searches the ROCm root's ``include/`` after the system dirs, so an
  older HIP in ``/usr/include/hip`` would win silently: the converted file puts
  ``hip_INCLUDE_DIRS`` first for HIP sources.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from .unit import BuildFile

if TYPE_CHECKING:
    from .cmake_commands import Command

# CMake drops include_directories() entries it takes for the compiler's own (it lists ROCm's
# include dir among clang's, though clang reads it last), so the flag goes in CMAKE_HIP_FLAGS,
# whose final value applies to every target of the directory; never -isystem /usr/include,
# which would break libstdc++'s #include_next
ROCM_INCLUDES_FIRST = (
    'if(hip_INCLUDE_DIRS AND NOT hip_INCLUDE_DIRS STREQUAL "/usr/include")',
    '  string(APPEND CMAKE_HIP_FLAGS " -isystem ${hip_INCLUDE_DIRS}")',
    "endif()",
)
_PROJECT_KEYWORDS = frozenset({"VERSION", "DESCRIPTION", "HOMEPAGE_URL", "LANGUAGES"})
_TARGET_KEYWORDS = frozenset(
    {"STATIC", "SHARED", "MODULE", "OBJECT", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE"}
)
_NOT_BUILT = frozenset({"IMPORTED", "ALIAS", "INTERFACE", "UNKNOWN"})
_LINK_KEYWORDS = frozenset(
    {"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES"}
)
_RUNTIME = frozenset({"CUDA::cudart", "CUDA::cudart_static", "cudart", "hip::host", "hip::device"})
_DEVICE_SOURCE = re.compile(r".*\.(?:cu|hip)")
_HOST_SOURCE = re.compile(r".*\.(?:cpp|cc|cxx|c\+\+|C|c)")
_C_SOURCE = re.compile(r"[^\s;\"]*\.c(?![\w+])")
_USES_CUDA = re.compile(rb"cuda|hip_runtime|__global__", re.IGNORECASE)
_HEAD = 1 << 20


def project_languages(unit: BuildFile, cmd: Command) -> str:
    """What replaces ``CUDA`` among the languages of a ``project()``: HIP, with CXX (and C)
    added where the project enables no C++."""
    names = [a.text for a in cmd.args[1:]]
    if "LANGUAGES" in names:
        first = names.index("LANGUAGES") + 1
        rest = names[first:]
        languages = rest[: next((i for i, n in enumerate(rest) if n in _PROJECT_KEYWORDS), None)]
    elif any(n in _PROJECT_KEYWORDS for n in names):
        return "HIP"
    else:
        languages = names
    added = [] if "C" in languages or not _C_SOURCE.search(_code(unit)) else ["C"]
    added += [] if "CXX" in languages else ["CXX"]
    return " ".join([*added, "HIP"])


def host_link(unit: BuildFile, cmd: Command, cmds: list[Command]) -> str:
    """``target_link_libraries(<target> PRIVATE hip::host)`` for a target built from C/C++
    sources that use the runtime (or that sit beside .cu sources), "" where none is needed."""
    names = [a.text for a in cmd.args]
    if cmd.name not in ("add_executable", "add_library") or not names:
        return ""
    if any(n in _NOT_BUILT for n in names[1:]):
        return ""
    target, sources = names[0], [n for n in names[1:] if n not in _TARGET_KEYWORDS]
    host = [s for s in sources if _HOST_SOURCE.fullmatch(s)]
    device = any(_DEVICE_SOURCE.fullmatch(s) for s in sources)
    if not host or not (device or any(_uses_cuda(unit.base_dir / s) for s in host)):
        return ""
    links = [c for c in cmds if c.name == "target_link_libraries" and c.args[:1]]
    links = [c for c in links if c.args[0].text == target]
    if any(a.text in _RUNTIME for c in links for a in c.args[1:]):
        return ""
    plain = any(len(c.args) > 1 and c.args[1].text not in _LINK_KEYWORDS for c in links)
    return f"target_link_libraries({target} {'' if plain else 'PRIVATE '}hip::host)"


def _uses_cuda(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return bool(_USES_CUDA.search(f.read(_HEAD)))
    except OSError:
        return False


def _code(unit: BuildFile) -> str:
    """The file without its comments (a ``.c`` named in a comment is no C source)."""
    text, out, k = unit.text, [], 0
    for c in unit.comments:
        out.append(text[k : c.start])
        k = c.end
    return "".join([*out, text[k:]])
