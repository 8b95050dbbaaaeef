"""Shared test policy: a test that needs an external tool skips locally but FAILS in CI.

CI (env ``CI=true``) installs every toolchain the tests use, so a missing one there is a broken
CI setup, not a reason to pass quietly.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hipify_py.verify.fetch import cache_root, default_dest

IN_CI = os.environ.get("CI", "").lower() == "true"
# ROCm 7.2.4 headers + libraries + device libs, the gfx942 toolchain of the tests with clang-19:
# `hipify-py toolchain fetch` unpacks them into the cache verify reads (the env var overrides)
ROCM7_CANDIDATES = (
    os.environ.get("HIPIFY_PY_ROCM7", ""),
    str(default_dest() / "usr"),
)
# a HIP 7 include directory: the ROCm 7.2.4 set's, else the HIP 7.1 runtime headers of the
# triton wheel if a machine still has them (no longer fetched by .ci/run)
HIP7_CANDIDATES = (
    os.environ.get("HIPIFY_PY_HIP7_INCLUDE", ""),
    *(str(Path(c) / "include") for c in ROCM7_CANDIDATES if c),
    str(cache_root() / "hip-7.1" / "include"),
)
# the read-only shared/ folder laid beside the repository (reference tables, tools, bench)
SHARED = Path(__file__).resolve().parents[2] / "shared"
NVIDIA_ROOTS = (
    os.environ.get("HIPIFY_PY_NVIDIA_ROOT", ""),  # holds <lib>/include or nvidia/<lib>/include
    str(cache_root() / "nvidia"),
)


def missing(reason: str) -> None:
    """Skip the calling test, or fail it when running in CI."""
    if IN_CI:
        pytest.fail(f"needed in CI but missing: {reason}")
    pytest.skip(reason)


def require_tool(name: str, *fallbacks: str) -> str:
    """Absolute path of an executable on PATH (or one of ``fallbacks``), else skip/fail."""
    found = shutil.which(name)
    if found:
        return found
    for path in fallbacks:
        if path and os.access(path, os.X_OK):
            return path
    missing(f"{name} not found on PATH")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def hip7_include() -> str:
    """A directory with HIP 7 headers (hip/hip_runtime.h, hip/hip_version.h)."""
    for cand in HIP7_CANDIDATES:
        if cand and (Path(cand) / "hip" / "hip_runtime.h").is_file():
            return cand
    missing("HIP 7 headers not found (run `hipify-py toolchain fetch`)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def rocm7() -> Path:
    """The ROCm 7.2.4 ``usr`` dir: include/{hip,hipblas,...} and the gfx942 device libraries."""
    for cand in ROCM7_CANDIDATES:
        if cand and (Path(cand) / "include" / "hip" / "hip_runtime.h").is_file():
            return Path(cand)
    missing("ROCm 7.2.4 headers not found (run `hipify-py toolchain fetch`)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def hipcc() -> str:
    return require_tool("hipcc", "/opt/rocm/bin/hipcc")


@pytest.fixture(scope="session")
def gfx942_check(clang19: str, rocm7: Path) -> Callable[..., subprocess.CompletedProcess]:
    """``gfx942_check(path, standard="c++17")``: clang-19's syntax check of a HIP file for
    gfx942 against the ROCm 7.2.4 headers (searched before Debian's HIP 5.2 in /usr/include)."""

    def check(path: Path, standard: str = "c++17") -> subprocess.CompletedProcess:
        cmd = [clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only"]
        cmd += [f"-std={standard}", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include")]
        return subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=300)

    return check


@pytest.fixture(scope="session")
def rocwmma_check(rocm7: Path) -> Callable[[Path], subprocess.CompletedProcess]:
    """``rocwmma_check(path)``: a gfx942 syntax check of a HIP file that includes rocWMMA.

    Debian's librocwmma-dev 7.2.4 (what `hipify-py toolchain fetch` unpacks) leaves out
    rocWMMA's ``internal/`` headers, so ``<rocwmma/rocwmma.hpp>`` is not found from it, and
    rocWMMA's internals call AMD builtins newer than clang-19 knows.  ``HIPIFY_PY_ROCWMMA``
    names a ``usr`` directory whose ``include/rocwmma`` is whole and ``HIPIFY_PY_ROCWMMA_CLANG``
    a clang that parses it; without them this skips, also in CI (no package provides them).
    """
    root = Path(os.environ.get("HIPIFY_PY_ROCWMMA", str(rocm7)))
    if not (root / "include" / "rocwmma" / "internal" / "accessors.hpp").is_file():
        pytest.skip(f"rocWMMA's internal/ headers are not in {root} (set HIPIFY_PY_ROCWMMA)")
    clang = os.environ.get("HIPIFY_PY_ROCWMMA_CLANG", "") or require_tool("clang-19")

    def check(path: Path) -> subprocess.CompletedProcess:
        cmd = [clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only"]
        cmd += ["-std=c++17", f"--rocm-path={root}", "-isystem", str(root / "include")]
        return subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=300)

    return check


@pytest.fixture(scope="session")
def nvcc() -> str:
    return require_tool("nvcc", "/usr/local/cuda/bin/nvcc")


@pytest.fixture(scope="session")
def clang19() -> str:
    return require_tool("clang-19", "/usr/lib/llvm-19/bin/clang")


@pytest.fixture(scope="session")
def nvidia_include():
    """``nvidia_include("curand")``: the include dir of an NVIDIA PyPI header wheel."""

    def find(lib: str) -> str:
        roots = [r for r in NVIDIA_ROOTS if r]
        try:
            import nvidia  # type: ignore[import-not-found]  # the wheels' namespace package

            roots += [str(Path(p).parent) for p in nvidia.__path__]
        except ImportError:
            pass
        for root in roots:
            for inc in (Path(root) / lib / "include", Path(root) / "nvidia" / lib / "include"):
                if inc.is_dir():
                    return str(inc)
        missing(f"NVIDIA {lib} headers not found (pip wheel nvidia-{lib}-cu12; see .ci/run)")
        raise AssertionError("unreachable")

    return find


@pytest.fixture
def terminal_sigint() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in a terminal, also when the suite was started as a
    background job (which starts with SIGINT ignored, so Ctrl-C would never arrive)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
