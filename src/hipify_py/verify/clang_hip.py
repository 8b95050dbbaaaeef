"""A clang with the AMDGPU target (``clang-22`` ... ``clang-17``, ``clang``) plus a directory of
HIP headers as a toolchain.

The headers come from ``--hip-include``, ``--rocm-path``/include, ``$HIPIFY_PY_HIP_INCLUDE``,
``$ROCM_PATH/include``, ``$HIP_PATH/include``, ``/opt/rocm/include`` or, newest first, a set in
the download cache: ``~/.cache/hipify-py/rocm-*/usr`` as unpacked by ``hipify-py toolchain fetch``,
``~/.cache/hipify-py/hip-*/include``.  When that directory belongs to a ROCm prefix, the compile
also gets ``--rocm-path`` and, if the prefix has device libraries this clang can read,
``--rocm-device-lib-path`` for real code objects.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from .arch import arch_family, base_arch, choose_fallback
from .fetch import cache_root
from .toolchain import (
    Toolchain,
    ToolchainError,
    clang_info,
    has_hip_headers,
    read_hip_version,
    which,
)

CLANG_NAMES = tuple(f"clang-{v}" for v in range(22, 16, -1)) + ("clang", "amdclang")


def _prefix_include(root: str | os.PathLike) -> Path | None:
    """``root``/include, or ``root``/usr/include for a set ``hipify-py toolchain fetch``
    unpacked."""
    for inc in (Path(root) / "include", Path(root) / "usr" / "include"):
        if has_hip_headers(inc):
            return inc
    return None


def find_hip_include(
    env: Mapping[str, str], hip_include: str | None = None, rocm_path: str | None = None
) -> str | None:
    """The HIP header directory for a bare clang (never the system /usr/include by default)."""
    explicit = [
        hip_include,
        str(_prefix_include(rocm_path) or "") if rocm_path else None,
        env.get("HIPIFY_PY_HIP_INCLUDE"),
    ]
    for cand in explicit:
        if cand and has_hip_headers(cand):
            return os.path.abspath(cand)
    for root in (env.get("ROCM_PATH"), env.get("HIP_PATH"), "/opt/rocm"):
        inc = _prefix_include(root) if root else None
        if inc is not None:
            return str(inc)
    if env.get("HOME") or env.get("XDG_CACHE_HOME"):  # `hipify-py toolchain fetch` puts one here
        cache = cache_root(env)
        sets = [_prefix_include(p) for p in cache.glob("rocm-*")]
        sets += [p / "include" for p in cache.glob("hip-*") if has_hip_headers(p / "include")]
        found = sorted(
            (p for p in sets if p is not None),
            key=lambda p: read_hip_version(p) or (0, 0),
            reverse=True,
        )
        if found:
            return str(found[0])
    return None


_BITCODE_GLOBS = (
    "lib/llvm-*/lib/clang/*/amdgcn/bitcode",  # Debian's packages
    "lib/llvm/lib/clang/*/lib/amdgcn/bitcode",  # ROCm >= 6.2
    "amdgcn/bitcode",
    "lib/amdgcn/bitcode",
)


def rocm_prefix(include_dir: str) -> str | None:
    """The ROCm prefix of a HIP header directory (its parent has lib/ or bin/ beside it)."""
    parent = Path(include_dir).parent
    if any((parent / d).is_dir() for d in ("lib", "lib64", "bin", "amdgcn")):
        return str(parent)
    return None


def find_device_libs(prefix: str, clang_version: str | None, arch: str) -> str | None:
    """An amdgcn bitcode directory under ``prefix`` that this clang can read and that knows
    ``arch``: its LLVM version must not be newer than the clang's (bitcode is not forward
    compatible: clang 19 cannot read LLVM 22 device libraries)."""
    m = re.search(r"(\d+)", clang_version or "")
    major = int(m.group(1)) if m else None
    digits = base_arch(arch)[3:]
    best: tuple[int, str] | None = None
    for pattern in _BITCODE_GLOBS:
        for cand in Path(prefix).glob(pattern):
            if not (cand / "ockl.bc").is_file():
                continue
            if not (cand / f"oclc_isa_version_{digits}.bc").is_file():
                continue
            v = re.search(r"llvm-(\d+)|clang/(\d+)", str(cand))
            version = int(v.group(1) or v.group(2)) if v else 0
            if major is not None and version > major:
                continue
            if best is None or version > best[0]:
                best = (version, str(cand))
    return best[1] if best else None


def find_clangs(env: Mapping[str, str], rocm_path: str | None = None) -> list[str]:
    found: list[str] = []
    for root in (rocm_path, env.get("ROCM_PATH"), "/opt/rocm"):
        if root:
            cand = Path(root) / "llvm" / "bin" / "clang"
            if cand.is_file():
                found.append(str(cand))
    for name in CLANG_NAMES:
        path = which(name, env)
        if path and os.path.realpath(path) not in {os.path.realpath(p) for p in found}:
            found.append(path)
    return found


def clang_toolchain(
    env: Mapping[str, str],
    arch: str,
    *,
    hip_include: str | None = None,
    rocm_path: str | None = None,
) -> Toolchain:
    clangs = find_clangs(env, rocm_path)
    if not clangs:
        raise ToolchainError("no clang found on PATH")
    include = find_hip_include(env, hip_include, rocm_path)
    if include is None:
        raise ToolchainError(
            "no HIP headers found for clang (give --hip-include DIR, --rocm-path "
            "DIR or set HIPIFY_PY_HIP_INCLUDE)"
        )
    best: Toolchain | None = None
    for clang in clangs:
        version, resource, archs = clang_info(clang)
        if not archs:
            continue  # built without the AMDGPU target
        tc = Toolchain(
            "clang",
            compiler=clang,
            hip_include=include,
            hip_version=read_hip_version(include),
            clang=clang,
            clang_version=version,
            resource_dir=resource,
            known_archs=archs,
            arch_requested=arch,
            arch=arch,
            rocm_path=rocm_prefix(include),
        )
        if tc.rocm_path:
            tc.device_libs = find_device_libs(tc.rocm_path, version, arch)
        if base_arch(arch) in archs:
            return tc
        best = best or tc
    if best is None:
        raise ToolchainError(
            "no clang with the AMDGPU target found (tried " + ", ".join(clangs) + ")"
        )
    fallback = choose_fallback(arch, best.known_archs, best.compiler or "clang")
    if fallback is None:
        raise ToolchainError(f"{best.compiler} knows no AMD GPU arch")
    best.arch = fallback
    if best.rocm_path:
        best.device_libs = find_device_libs(best.rocm_path, best.clang_version, fallback)
    best.warnings.append(
        f"{Path(best.compiler or '').name} does not know {arch}; checking for "
        f"{fallback} instead, the newest {arch_family(arch)} arch it knows"
    )
    return best
