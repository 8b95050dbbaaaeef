"""Pick the toolchain ``verify`` compiles with: hipcc or clang + HIP headers, whichever knows the
arch and has the newer headers; when neither exists, a libclang syntax check (``kind ==
"libclang"``).  Discovery reads an ``env`` mapping (default ``os.environ``) so tests can simulate
a machine without ROCm.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .arch import UnknownArchFamilyError, arch_family
from .clang_hip import clang_toolchain, find_hip_include
from .hipcc import find_hipcc, hipcc_prefix_include, hipcc_toolchain
from .toolchain import Toolchain, ToolchainError, read_hip_version

KINDS = ("auto", "hipcc", "clang", "libclang")


@dataclass
class _Probes:
    """What probing the compilers found: toolchains that run, why the others do not, and the
    compilers that do not know the arch's family at all."""

    candidates: list[Toolchain] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    family_errors: list[UnknownArchFamilyError] = field(default_factory=list)

    def probe(self, name: str, make: Callable[[], Toolchain]) -> None:
        """Run one compiler's probe, keeping its toolchain or why it cannot be used."""
        try:
            self.candidates.append(make())
        except UnknownArchFamilyError as exc:
            self.family_errors.append(exc)
        except ToolchainError as exc:
            self.errors.append(f"{name}: {exc}")


def discover(
    arch: str = "gfx942",
    kind: str = "auto",
    *,
    env: Mapping[str, str] | None = None,
    rocm_path: str | None = None,
    hip_include: str | None = None,
    min_hip: tuple[int, ...] | None = None,
) -> Toolchain:
    """Pick the toolchain to verify with: ``auto`` takes the newest HIP headers among those
    that can judge the tree.  One that would check for another arch, or with HIP older than
    ``min_hip`` (the ROCm the tree targets), is never chosen: with no other, that is a
    ``ToolchainError`` saying why, as is no AMD compiler at all (``kind="libclang"`` asks for
    a syntax-only check)."""
    env = dict(os.environ if env is None else env)
    if kind not in KINDS:
        raise ToolchainError(f"unknown toolchain {kind!r} (choose from {', '.join(KINDS)})")
    if kind == "libclang":
        return _libclang(env, arch, hip_include, rocm_path, reason=None)
    probes = _Probes()
    if kind in ("auto", "clang"):
        probes.probe(
            "clang",
            lambda: clang_toolchain(env, arch, hip_include=hip_include, rocm_path=rocm_path),
        )
    if kind in ("auto", "hipcc"):
        hipcc = find_hipcc(env, rocm_path)
        if kind == "auto" and _clang_is_newer(probes.candidates, hipcc, arch, min_hip):
            return probes.candidates[0]  # clang knows the arch and has newer headers: no probe
        if hipcc is None:
            probes.errors.append(
                "hipcc: not found in $ROCM_PATH/bin, $HIP_PATH/bin, /opt/rocm/bin or PATH"
            )
        else:
            probes.probe("hipcc", lambda: hipcc_toolchain(hipcc, arch, env))
    return _choose(probes, arch, kind, min_hip)


def _clang_is_newer(
    candidates: list[Toolchain], hipcc: str | None, arch: str, min_hip: tuple[int, ...] | None
) -> bool:
    """Whether the clang toolchain found fits and has HIP headers at least as new as those
    beside ``hipcc``: then probing hipcc (which runs it) cannot change the choice."""
    if hipcc is None or not candidates or _unfit(candidates[0], arch, min_hip):
        return False
    include = hipcc_prefix_include(hipcc)
    older = read_hip_version(include) if include else None
    newest = candidates[0].hip_version
    return bool(older and newest and older <= newest)


def _choose(probes: _Probes, arch: str, kind: str, min_hip: tuple[int, ...] | None) -> Toolchain:
    """The newest fitting toolchain (hipcc on a tie), or the error that says why none is."""
    usable = [tc for tc in probes.candidates if not _unfit(tc, arch, min_hip)]
    if usable:
        return max(usable, key=lambda tc: (tc.hip_version or (0, 0), tc.kind == "hipcc"))
    if probes.candidates:
        raise ToolchainError(
            "no toolchain here can check this tree: "
            + "; ".join([*(_unfit(tc, arch, min_hip) for tc in probes.candidates), *probes.errors])
            + f". {FETCH_HINT}"
        )
    if probes.family_errors:
        # The compilers exist but none knows the family: a usage error, not a reason to
        # quietly fall back to a syntax-only check.
        raise _family_error(probes.family_errors)
    if kind != "auto":
        raise ToolchainError("; ".join(probes.errors))
    raise ToolchainError(
        "no AMD toolchain found (" + "; ".join(probes.errors) + f"). {FETCH_HINT}; or ask for "
        "a syntax-only check that cannot see HIP API errors with --toolchain libclang"
    )


def _family_error(family_errors: list[UnknownArchFamilyError]) -> UnknownArchFamilyError:
    """One error for the compilers that do not know the arch's family (their families
    merged)."""
    if len(family_errors) == 1:
        return family_errors[0]
    first = family_errors[0]
    families = sorted({f for e in family_errors for f in e.families}, key=lambda f: int(f[3:]))
    return UnknownArchFamilyError(
        first.arch, " or ".join(e.compiler for e in family_errors), families
    )


FETCH_HINT = (
    "To check for gfx942 without a ROCm install: `apt-get install clang-19 lld-19` and "
    "`hipify-py toolchain fetch` (ROCm 7.2.4 headers into the cache verify reads)"
)


def _unfit(tc: Toolchain, arch: str, min_hip: tuple[int, ...] | None) -> str:
    """Why ``tc`` cannot judge a tree for ``arch`` targeting ROCm ``min_hip`` ("" if it can)."""
    why = []
    if tc.arch != arch:
        why.append(
            f"does not know {arch} (the newest {arch_family(arch)} arch it knows is {tc.arch}: "
            f"--arch {tc.arch} checks for that GPU instead)"
        )
    if min_hip and (tc.hip_version is None or tuple(tc.hip_version) < tuple(min_hip[:2])):
        target = ".".join(map(str, min_hip[:2]))
        why.append(
            f"is older than the ROCm {target} the tree targets (--target-rocm "
            f"{tc.hip_version_text} if it was converted for that ROCm)"
        )
    name = f"{Path(tc.compiler or tc.kind).name} (HIP {tc.hip_version_text})"
    return f"{name} " + " and ".join(why) if why else ""


def _libclang(
    env: Mapping[str, str],
    arch: str,
    hip_include: str | None,
    rocm_path: str | None,
    reason: str | None,
) -> Toolchain:
    include = find_hip_include(env, hip_include, rocm_path)
    tc = Toolchain(
        "libclang",
        hip_include=include,
        hip_version=read_hip_version(include) if include else None,
        arch_requested=arch,
        arch=arch,
    )
    tc.resource_dir = _any_resource_dir()
    if reason:
        tc.warnings.append(reason)
    if include is None:
        tc.warnings.append("no HIP headers given: only syntax errors are reported")
    return tc


def _any_resource_dir() -> str | None:
    """A clang resource directory on disk, for libclang wheels that ship none."""
    hits = sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/include/stddef.h"), reverse=True)
    return str(hits[0].parent.parent) if hits else None
