"""Find a compiler that can check HIP code for an AMD GPU, and the arch it can target.

Two kinds of real toolchain are recognised:

* ``hipcc`` (from ``$ROCM_PATH/bin``, ``$HIP_PATH/bin``, ``/opt/rocm/bin`` or ``PATH``): the HIP
  version comes from ``<prefix>/include/hip/hip_version.h`` (or ``hipcc --version``), the clang
  it drives from ``HIPCC_VERBOSE=1``.
* a clang with the AMDGPU target (``clang-22`` ... ``clang-17``, ``clang``) plus a directory of HIP
  headers (``--hip-include``, ``--rocm-path``/include, ``$HIPIFY_PY_HIP_INCLUDE``,
  ``$ROCM_PATH/include``, ``$HIP_PATH/include``, ``/opt/rocm/include`` or, newest first, a set
  in the download cache: ``~/.cache/hipify-py/rocm-*/usr`` as unpacked by
  ``get-hip-headers.sh``, ``~/.cache/hipify-py/hip-*/include``).  When that directory belongs
  to a ROCm prefix, the compile also gets ``--rocm-path`` and, if the prefix has device
  libraries this clang can read, ``--rocm-device-lib-path`` for real code objects.

When neither exists the caller falls back to a libclang syntax check (``kind == "libclang"``).
Discovery reads an ``env`` mapping (default ``os.environ``) so tests can simulate a machine
without ROCm.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("auto", "hipcc", "clang", "libclang")
CLANG_NAMES = tuple(f"clang-{v}" for v in range(22, 16, -1)) + ("clang", "amdclang")

# For each GPU family, the archs worth falling back to, best first (data-center parts first).
_FAMILY_PREFERENCE = {
    "gfx9": ("gfx950", "gfx942", "gfx941", "gfx940", "gfx90a", "gfx908", "gfx906", "gfx900"),
    "gfx10": ("gfx1030", "gfx1010"),
    "gfx11": ("gfx1100", "gfx1101", "gfx1102"),
    "gfx12": ("gfx1201", "gfx1200"),
}
_ARCH_RE = re.compile(r"^gfx(\d+)([0-9a-f])([0-9a-f])$")
# What --arch accepts: a processor (gfx + 3-4 digits/letters, e.g. gfx90a, gfx1100) or a generic
# target (gfx9-generic, gfx10-3-generic), then optional target features (:xnack+, :sramecc-).
ARCH_NAME_RE = re.compile(
    r"gfx(?:[0-9][0-9a-z]{2,3}|[0-9]{1,2}(?:-[0-9])?-generic)(?::[a-z][a-z0-9_-]*[+-])*",
    re.ASCII,
)


def arch_name_error(arch: str) -> str | None:
    """Why ``arch`` is not an AMD GPU name (None when it is well-formed, known or not)."""
    if ARCH_NAME_RE.fullmatch(arch):
        return None
    return (
        f"{arch!r} is not an AMD GPU arch (expected gfx followed by 3-4 digits/letters, "
        f"e.g. gfx942, gfx90a:xnack+, gfx1100)"
    )


def base_arch(arch: str) -> str:
    """``gfx90a:xnack+`` -> ``gfx90a`` (the processor without target features)."""
    return arch.split(":", 1)[0]


class ToolchainError(RuntimeError):
    """The toolchain the user asked for does not exist or cannot target anything useful."""


class UnknownArchFamilyError(ToolchainError):
    """``--arch`` is well-formed but its GPU family is unknown to the compiler: a usage error."""

    def __init__(self, arch: str, compiler: str, families: Sequence[str]):
        self.arch, self.compiler, self.families = arch, compiler, tuple(families)
        super().__init__(
            f"{arch}: GPU family {arch_family(arch)} is unknown to {compiler} "
            f"(it knows {', '.join(self.families) or 'no AMD GPU family'})"
        )


@dataclass
class Toolchain:
    kind: str  # "hipcc" | "clang" | "libclang"
    compiler: str | None = None  # absolute path of hipcc / clang
    hip_include: str | None = None  # directory holding hip/hip_runtime.h
    hip_version: tuple[int, int] | None = None
    clang: str | None = None  # the clang that compiles (hipcc's backend or the clang itself)
    clang_version: str | None = None
    resource_dir: str | None = None
    known_archs: tuple[str, ...] = ()
    arch_requested: str = "gfx942"
    arch: str = "gfx942"  # the arch actually used
    rocm_path: str | None = None  # the ROCm prefix the headers belong to (clang --rocm-path)
    device_libs: str | None = None  # amdgcn bitcode this clang reads: real code objects
    warnings: list[str] = field(default_factory=list)

    @property
    def hip_version_text(self) -> str:
        return ".".join(map(str, self.hip_version)) if self.hip_version else "unknown"

    def describe(self) -> str:
        if self.kind == "libclang":
            where = f", HIP {self.hip_version_text} headers" if self.hip_include else ""
            return f"libclang syntax check (no AMD compiler){where}"
        name = Path(self.compiler or "?").name
        extra = f" ({self.clang_version})" if self.clang_version else ""
        return f"{name}{extra}, HIP {self.hip_version_text}, --offload-arch={self.arch}"

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "compiler": self.compiler,
            "clang_version": self.clang_version,
            "hip_version": self.hip_version_text if self.hip_version else None,
            "hip_include": self.hip_include,
            "arch_requested": self.arch_requested,
            "arch": self.arch,
            "rocm_path": self.rocm_path,
            "device_libs": self.device_libs,
            "warnings": list(self.warnings),
        }


# ---------------------------------------------------------------------------------------------
# small helpers


def _run(cmd: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 60):
    return subprocess.run(
        list(cmd),
        capture_output=True,
        text=True,
        env=dict(env or os.environ),
        timeout=timeout,
        errors="replace",
    )


def read_hip_version(include_dir: str | os.PathLike) -> tuple[int, int] | None:
    """HIP_VERSION_MAJOR/MINOR from ``<include_dir>/hip/hip_version.h``."""
    header = Path(include_dir) / "hip" / "hip_version.h"
    try:
        text = header.read_text(errors="replace")
    except OSError:
        return None
    major = re.search(r"#\s*define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"#\s*define\s+HIP_VERSION_MINOR\s+(\d+)", text)
    if not (major and minor):
        return None
    return int(major.group(1)), int(minor.group(1))


def _has_hip_headers(include_dir: str | os.PathLike) -> bool:
    return (Path(include_dir) / "hip" / "hip_runtime.h").is_file()


_GENERIC_RE = re.compile(r"^gfx(\d+)(?:-\d)?-generic$")


def _split_arch(arch: str) -> tuple[str, str] | None:
    """``gfx942`` -> ("9", "42"), ``gfx1100`` -> ("11", "00"): the family digits and the rest.

    gfx9 and older have a 3-character suffix (family = its first character), gfx10 and newer a
    4-character one (family = its first two); a generic target (gfx10-3-generic) has rest "".
    """
    base = base_arch(arch)
    m = _GENERIC_RE.match(base)
    if m:
        return m.group(1), ""
    suffix = base[3:] if base.startswith("gfx") else ""
    if not suffix.isalnum() or not suffix[:1].isdigit():
        return None
    if len(suffix) == 3:
        return suffix[0], suffix[1:]
    if len(suffix) == 4 and suffix[:2].isdigit():
        return suffix[:2], suffix[2:]
    return None


def arch_key(arch: str) -> tuple[int, int]:
    """Order archs newest-first within a family: gfx942 > gfx940 > gfx90a > gfx908."""
    parts = _split_arch(arch)
    if parts is None:
        return (-1, -1)
    family, rest = parts
    return int(family), int(rest, 36) if rest else -1


def arch_family(arch: str) -> str:
    parts = _split_arch(arch)
    return f"gfx{parts[0]}" if parts else base_arch(arch)


def arch_families(known: Iterable[str]) -> list[str]:
    """The GPU families among ``known`` archs, oldest first (gfx8, gfx9, gfx10, ...)."""
    fams = {arch_family(a) for a in known if _ARCH_RE.match(a)}
    return sorted(fams, key=lambda f: int(f[3:]) if f[3:].isdigit() else -1)


def choose_fallback(
    requested: str, known: Sequence[str], compiler: str = "the compiler"
) -> str | None:
    """The arch to use when ``requested`` is unknown: the best known one of the same family.

    None when ``known`` is empty; UnknownArchFamilyError when no known arch is of that family.
    """
    known_set = {a for a in known if _ARCH_RE.match(a)}
    if not known_set:
        return None
    family = arch_family(requested)
    for arch in _FAMILY_PREFERENCE.get(family, ()):
        if arch in known_set and arch_key(arch) <= arch_key(requested):
            return arch
    same = sorted((a for a in known_set if arch_family(a) == family), key=arch_key, reverse=True)
    if not same:
        raise UnknownArchFamilyError(requested, compiler, arch_families(known_set))
    older = [a for a in same if arch_key(a) <= arch_key(requested)]
    return (older or same)[0]


@functools.lru_cache(maxsize=32)
def clang_info(clang: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(version line, resource dir, AMDGPU archs) of one clang binary."""
    try:
        version = _run([clang, "--version"], timeout=30).stdout.splitlines()
        resource = _run([clang, "-print-resource-dir"], timeout=30).stdout.strip() or None
        cpus = _run(
            [clang, "--target=amdgcn-amd-amdhsa", "-nogpulib", "--print-supported-cpus"], timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None, None, ()
    archs = tuple(
        sorted({m.group(0) for m in re.finditer(r"\bgfx[0-9a-f]+\b", cpus.stdout + cpus.stderr)})
    )
    m = re.search(r"clang version (\S+)", version[0] if version else "")
    return (f"clang {m.group(1)}" if m else None), resource, archs


def _which(name: str, env: Mapping[str, str]) -> str | None:
    found = shutil.which(name, path=env.get("PATH", ""))
    return os.path.abspath(found) if found else None


# ---------------------------------------------------------------------------------------------
# hipcc


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
    return _which("hipcc", env)


def _hipcc_prefix_include(hipcc: str) -> str | None:
    real = Path(os.path.realpath(hipcc))
    for prefix in (real.parent.parent, real.parent.parent.parent):
        if _has_hip_headers(prefix / "include"):
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
        proc = _run([hipcc, f"--offload-arch={arch}", "-fsyntax-only", "-x", "hip", src], penv)
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
        out = _run([hipcc, "--version"], hipcc_env(), timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"HIP version:\s*(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def hipcc_toolchain(hipcc: str, arch: str, env: Mapping[str, str]) -> Toolchain:
    include = _hipcc_prefix_include(hipcc)
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
    raise ToolchainError(f"{hipcc} cannot compile for {arch}: {_first_error(out)}")


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "no output"


# ---------------------------------------------------------------------------------------------
# clang + HIP headers


def _prefix_include(root: str | os.PathLike) -> Path | None:
    """``root``/include, or ``root``/usr/include for a set unpacked by get-hip-headers.sh."""
    for inc in (Path(root) / "include", Path(root) / "usr" / "include"):
        if _has_hip_headers(inc):
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
        if cand and _has_hip_headers(cand):
            return os.path.abspath(cand)
    for root in (env.get("ROCM_PATH"), env.get("HIP_PATH"), "/opt/rocm"):
        inc = _prefix_include(root) if root else None
        if inc is not None:
            return str(inc)
    home = env.get("HOME")
    if home:
        cache = Path(home) / ".cache" / "hipify-py"
        sets = [_prefix_include(p) for p in cache.glob("rocm-*")]
        sets += [p / "include" for p in cache.glob("hip-*") if _has_hip_headers(p / "include")]
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
        path = _which(name, env)
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


# ---------------------------------------------------------------------------------------------
# the public entry point


def discover(
    arch: str = "gfx942",
    kind: str = "auto",
    *,
    env: Mapping[str, str] | None = None,
    rocm_path: str | None = None,
    hip_include: str | None = None,
) -> Toolchain:
    """Pick the toolchain to verify with.

    ``auto`` prefers a toolchain that knows ``arch`` natively and, among those, the newest HIP
    headers (so gfx942 goes to clang + HIP 7 headers over an old hipcc); failing both, libclang.
    """
    env = dict(os.environ if env is None else env)
    if kind not in KINDS:
        raise ToolchainError(f"unknown toolchain {kind!r} (choose from {', '.join(KINDS)})")
    if kind == "libclang":
        return _libclang(env, arch, hip_include, rocm_path, reason=None)
    errors: list[str] = []
    family_errors: list[UnknownArchFamilyError] = []
    candidates: list[Toolchain] = []
    if kind in ("auto", "clang"):
        try:
            candidates.append(
                clang_toolchain(env, arch, hip_include=hip_include, rocm_path=rocm_path)
            )
        except UnknownArchFamilyError as exc:
            family_errors.append(exc)
        except ToolchainError as exc:
            errors.append(f"clang: {exc}")
    if kind in ("auto", "hipcc"):
        hipcc = find_hipcc(env, rocm_path)
        if kind == "auto" and hipcc and candidates and candidates[0].arch == arch:
            include = _hipcc_prefix_include(hipcc)
            older = read_hip_version(include) if include else None
            if older and candidates[0].hip_version and older <= candidates[0].hip_version:
                return candidates[0]  # clang knows the arch and has newer headers: skip the probe
        if hipcc is None:
            errors.append(
                "hipcc: not found in $ROCM_PATH/bin, $HIP_PATH/bin, /opt/rocm/bin or PATH"
            )
        else:
            try:
                candidates.append(hipcc_toolchain(hipcc, arch, env))
            except UnknownArchFamilyError as exc:
                family_errors.append(exc)
            except ToolchainError as exc:
                errors.append(f"hipcc: {exc}")
    if candidates:

        def rank(tc: Toolchain) -> tuple:
            return (tc.arch == arch, tc.hip_version or (0, 0), tc.kind == "hipcc")

        chosen = max(candidates, key=rank)
        if chosen.arch != arch and any(e.startswith("clang: no HIP headers") for e in errors):
            chosen.warnings.append(
                "a clang that may know " + arch + " exists, but no HIP headers "
                "were found for it: give --hip-include or --rocm-path"
            )
        return chosen
    if family_errors:
        # The compilers exist but none knows the family: a usage error, not a reason to
        # quietly fall back to a syntax-only check.
        if len(family_errors) == 1:
            raise family_errors[0]
        first = family_errors[0]
        families = sorted({f for e in family_errors for f in e.families}, key=lambda f: int(f[3:]))
        raise UnknownArchFamilyError(
            first.arch, " or ".join(e.compiler for e in family_errors), families
        )
    if kind != "auto":
        raise ToolchainError("; ".join(errors))
    return _libclang(
        env,
        arch,
        hip_include,
        rocm_path,
        reason="no AMD toolchain found; libclang syntax check only (" + "; ".join(errors) + ")",
    )


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
