"""``hipcc`` as a toolchain: found in ``$ROCM_PATH/bin``, ``$HIP_PATH/bin``, ``/opt/rocm/bin`` or
``PATH``; the HIP version comes from ``<prefix>/include/hip/hip_version.h`` (or ``hipcc
--version``), the clang it drives from ``HIPCC_VERBOSE=1``."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .arch import arch_family, choose_fallback
from .toolchain import (
    Toolchain,
    ToolchainError,
    clang_info,
    has_hip_headers,
    read_hip_version,
    run_tool,
    which,
)


def hipcc_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    out["HIP_PLATFORM"] = "amd"  # otherwise hipcc picks nvcc when one is installed
    return out


def find_hipcc(env: Mapping[str, str], rocm_path: str | None = None) -> str | None:
    roots = [rocm_path, env.get("ROCM_PATH"), env.get("HIP_PATH"), "/opt/rocm"]
    for root in roots:
        if root:
            candidate = Path(root) / "bin" / "hipcc"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return which("hipcc", env)


def hipcc_prefix_include(hipcc: str) -> str | None:
    real = Path(os.path.realpath(hipcc))
    for prefix in (real.parent.parent, real.parent.parent.parent):
        if has_hip_headers(prefix / "include"):
            return str(prefix / "include")
    return None


def _probe_source() -> str:
    fd, path = tempfile.mkstemp(suffix=".hip", prefix="hipify-py-probe-")
    with os.fdopen(fd, "w") as fh:
        fh.write("__global__ void hipify_py_probe() {}\n")
    return path


def _hipcc_probe(hipcc: str, arch: str, env: Mapping[str, str]) -> tuple[bool, str, str | None]:
    """(ok, stderr, backend clang) for a -fsyntax-only compile of a tiny kernel for ``arch``."""
    src = _probe_source()
    try:
        penv = hipcc_env(env)
        penv["HIPCC_VERBOSE"] = "1"
        proc = run_tool([hipcc, f"--offload-arch={arch}", "-fsyntax-only", "-x", "hip", src], penv)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, str(exc), None
    finally:
        os.unlink(src)
    out = proc.stdout + proc.stderr
    m = re.search(r"hipcc-cmd:\s*(\S+)", out)
    backend = m.group(1).strip('"') if m else None
    return proc.returncode == 0, out, backend


@functools.lru_cache(maxsize=8)
def _hipcc_version_from_cli(hipcc: str) -> tuple[int, int] | None:
    try:
        out = run_tool([hipcc, "--version"], hipcc_env(), timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"HIP version:\s*(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def hipcc_toolchain(hipcc: str, arch: str, env: Mapping[str, str]) -> Toolchain:
    include = hipcc_prefix_include(hipcc)
    version = read_hip_version(include) if include else _hipcc_version_from_cli(hipcc)
    tc = Toolchain(
        "hipcc",
        compiler=hipcc,
        hip_include=include,
        hip_version=version,
        arch_requested=arch,
        arch=arch,
    )
    ok, out, backend = _hipcc_probe(hipcc, arch, env)
    if backend:
        tc.clang = backend
        tc.clang_version, tc.resource_dir, tc.known_archs = clang_info(backend)
    if ok:
        return tc
    fallback = choose_fallback(arch, tc.known_archs, hipcc) if tc.known_archs else None
    if fallback and fallback != arch:
        ok2, out2, _ = _hipcc_probe(hipcc, fallback, env)
        if ok2:
            tc.arch = fallback
            tc.warnings.append(
                f"{Path(hipcc).name} (HIP {tc.hip_version_text}) does not know {arch}; "
                f"checking for {fallback} instead, the newest {arch_family(arch)} arch it knows"
            )
            return tc
        out = out2
    raise ToolchainError(f"{hipcc} cannot compile for {arch}: {first_error(out)}")


def first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "no output"
