"""Header truth: check the names the tables emit against real ROCm headers.

AMD's tables are a strong prior, not the truth: they lag behind ROCm and have typos.  This module
compiles one probe file against a ROCm ``usr`` tree (``DIR/include``) plus clang's own HIP
headers, with one ``using`` declaration per name, and reads clang's errors back: a name whose
line has no error exists.  Two passes (host and device) are made because some device functions
are declared only in the device pass.

It answers two questions for a target (``--target-rocm``, default options):

* **absent**: HIP names the conversion emits that the headers do not declare (each must be
  explained by an entry of ``overrides.yaml``);
* **counterparts**: CUDA names the tables call unsupported whose obvious HIP counterpart (the
  same name, or the name with the CUDA prefix replaced) is declared.  ``--write-rows`` turns
  these into ``header_check.yaml`` so the conversion uses them;
* **dated too late**: HIP names whose ``hip_added`` is newer than the checked release although
  its headers declare them: HZ302 would call them too new for that release, and the
  conversion would leave them unconverted for it.

Names of a family whose library headers are not in the checked tree (hipTensor, hipFile in the
Debian ROCm 7.2.4 set) are listed as *unverified*, not absent.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..context import Options, parse_version
from ..frontend.directives import macro_numbers
from ..mappings.index import Entry, MappingIndex
from ..mappings.load import hip_name, is_convertible, load_index, needs_newer_hip

# Headers included by the probe, when present under DIR/include (clang's HIP wrapper headers come
# with -x hip).
PROBE_HEADERS = (
    "hip/hip_runtime.h",
    "hip/hip_fp16.h",
    "hip/hip_bf16.h",
    "hip/hip_fp8.h",
    "hip/hip_fp4.h",
    "hip/hip_ext_ocp.h",
    "hip/hip_gl_interop.h",
    "hip/hip_complex.h",
    "hip/hip_cooperative_groups.h",
    "hip/hiprtc.h",
    "hip/hip_math_constants.h",
    "hip/library_types.h",
    "hipblas/hipblas.h",
    "hipblaslt/hipblaslt.h",
    "hipsparse/hipsparse.h",
    "hipsparselt/hipsparselt.h",
    "hipsolver/hipsolver.h",
    "hiprand/hiprand.h",
    "hiprand/hiprand_kernel.h",
    "hiprand/hiprand_mtgp32_host.h",
    "hipfft/hipfft.h",
    "hipfft/hipfftXt.h",
    "hipfft/hipfftw.h",
    "hipcub/hipcub.hpp",
    "miopen/miopen.h",
    "rccl/rccl.h",
    "thrust/version.h",
    "hiptensor/hiptensor.h",
    "hipfile/hipfile.h",
)

# hip_gl_interop.h needs the GL types from the application's GL headers (absent here).
GL_PRELUDE = "typedef unsigned int GLuint;\ntypedef unsigned int GLenum;"
# C++ spellings a mapping may emit (cusolver_int_t -> int); they need no header.
CXX_BUILTIN = frozenset({"int", "unsigned", "long", "short", "char", "float", "double", "void"})

OVERRIDES = "overrides.yaml"
HEADER_CHECK = "header_check.yaml"

# family -> the include directory its HIP library lives in; a family whose directory is missing
# from the checked tree is "unverified" rather than "absent".
FAMILY_LIBRARY = {
    "blas": "hipblas",
    "sparse": "hipsparse",
    "sparselt": "hipsparselt",
    "solver": "hipsolver",
    "rand": "hiprand",
    "fft": "hipfft",
    "cub": "hipcub",
    "tensor": "hiptensor",
    "file": "hipfile",
    "nccl": "rccl",
    # Debian's librocwmma-dev 7.2.4 ships rocwmma.hpp without the internal/ headers it includes
    # (and those call builtins newer than clang-19): the names of mappings/wmma.yaml are checked
    # against rocwmma.hpp's text by tests/test_convert_wmma.py instead
    "wmma": "rocwmma/internal",
}

# CUDA prefix -> HIP prefix, longest first, used to guess the counterpart of an unsupported name.
PREFIXES = (
    ("cusparseLt", "hipsparseLt"),
    ("CUSPARSELT_", "HIPSPARSELT_"),
    ("cublasLt", "hipblasLt"),
    ("CUBLASLT_", "HIPBLASLT_"),
    ("cublas", "hipblas"),
    ("CUBLAS_", "HIPBLAS_"),
    ("cusparse", "hipsparse"),
    ("CUSPARSE_", "HIPSPARSE_"),
    ("cusolver", "hipsolver"),
    ("CUSOLVER_", "HIPSOLVER_"),
    ("curand", "hiprand"),
    ("CURAND_", "HIPRAND_"),
    ("cufft", "hipfft"),
    ("CUFFT_", "HIPFFT_"),
    ("cutensor", "hiptensor"),
    ("CUTENSOR_", "HIPTENSOR_"),
    ("nvrtc", "hiprtc"),
    ("NVRTC_", "HIPRTC_"),
    ("cub::", "hipcub::"),
    ("cudaDevAttr", "hipDeviceAttribute"),  # hipDeviceAttribute_t spells its values in full
    ("cuda", "hip"),
    ("CUDA_", "HIP_"),
    ("CU_", "HIP_"),
    ("cu", "hip"),
    ("__nv_", "__hip_"),
    ("nv_", "hip_"),
)
_CUDA_LOOKING = re.compile(r"^(cu|CU|nv|NV|__nv|cub::)")
_IDENT_RE = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_ERROR_RE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: (?:fatal )?error: ")


def counterpart_candidates(entry: Entry) -> list[str]:
    """HIP names that would be the obvious counterpart of an unsupported CUDA name."""
    name = entry.cuda
    out = []
    for cuda, hip in PREFIXES:
        if name.startswith(cuda):
            out.append(hip + name[len(cuda) :])
            break
    if "bfloat16" in name or "nv_" in name:
        out.append(name.replace("nv_bfloat", "hip_bfloat").replace("__nv_", "__hip_"))
    if not _CUDA_LOOKING.match(name):
        out.append(name)  # device intrinsics keep their names (make_half2, __hadd2, ...)
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- probing


def _probe_line(n: int, name: str, namespace: bool) -> str:
    if namespace:
        return f"namespace p{n} = ::{name};"
    return f"namespace p{n} {{ using ::{name}; }}"


def probe_source(
    names: Sequence[str], headers: Sequence[str], namespaces: frozenset[str] = frozenset()
) -> tuple[str, dict[int, str]]:
    """A HIP file declaring one ``using`` per name; returns (text, line number -> name).

    A macro counts as present (``#if !defined`` skips its probe); a namespace (``hipcub``) is
    probed with a namespace alias.
    """
    lines = GL_PRELUDE.splitlines() + [f"#include <{h}>" for h in headers]
    at: dict[int, str] = {}
    for n, name in enumerate(names):
        plain = name.lstrip(":")
        if "::" not in plain:
            lines.append(f"#if !defined({plain})")
        lines.append(_probe_line(n, plain, name in namespaces))
        at[len(lines)] = name
        if "::" not in plain:
            lines.append("#endif")
    return "\n".join(lines) + "\n", at


def probe_headers(rocm: Path) -> list[str]:
    include = rocm / "include"
    return [h for h in PROBE_HEADERS if (include / h).is_file()]


def clang_command(clang: str, rocm: Path, source: Path, mode: str) -> list[str]:
    """clang-19 flags of /work/shared/reference/toolchains.md, for one offload side."""
    return [
        clang, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only", "-std=c++17",
        f"--rocm-path={rocm}", "-isystem", str(rocm / "include"), "-ferror-limit=0", "-w",
        f"--cuda-{mode}-only", str(source),
    ]  # fmt: skip


def present_names(
    names: Iterable[str], rocm: Path, clang: str, namespaces: frozenset[str] = frozenset()
) -> set[str]:
    """The subset of ``names`` that the headers under ``rocm`` (plus clang's) declare.

    A name that is not an identifier (``void*``, the mapping of ``CUoccupancyB2DSize``) is C++
    itself and counts as present.
    """
    wanted = set(names)
    builtin = {n for n in wanted if not _IDENT_RE.fullmatch(n) or n in CXX_BUILTIN}
    ordered = sorted(wanted - builtin)
    text, at = probe_source(ordered, probe_headers(rocm), namespaces)
    missing_in: list[set[str]] = []
    with tempfile.TemporaryDirectory(prefix="hipify-py-audit-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text(text, encoding="utf-8")
        for mode in ("host", "device"):
            proc = subprocess.run(
                clang_command(clang, rocm, src, mode), capture_output=True, text=True, check=False
            )
            bad: set[str] = set()
            for line in proc.stderr.splitlines():
                m = _ERROR_RE.match(line)
                if not m:
                    continue
                if Path(m.group("file")).name != src.name or int(m.group("line")) not in at:
                    raise RuntimeError(f"the ROCm headers do not compile: {line}")
                bad.add(at[int(m.group("line"))])
            missing_in.append(bad)
    absent = missing_in[0].intersection(*missing_in[1:]) if missing_in else set()
    return (set(ordered) - absent) | builtin


# --------------------------------------------------------------------------- the audit


@dataclass
class Audit:
    rocm: Path
    target: tuple[int, ...]
    emitted: dict[str, list[Entry]] = field(default_factory=dict)  # HIP name -> CUDA entries
    absent: dict[str, list[Entry]] = field(default_factory=dict)
    unverified: dict[str, list[Entry]] = field(default_factory=dict)
    counterparts: dict[str, tuple[Entry, str]] = field(default_factory=dict)  # CUDA -> (e, HIP)
    # counterparts an overrides.yaml entry reviewed and kept unsupported (with its reason)
    reviewed: dict[str, tuple[Entry, str]] = field(default_factory=dict)
    headers_absent: dict[str, Entry] = field(default_factory=dict)  # CUDA header -> entry
    # HIP names dated (hip_added) after the checked release that its headers declare
    dated_too_late: dict[str, list[Entry]] = field(default_factory=dict)

    def explained(self, hip: str) -> bool:
        """An absent name is explained when an overrides.yaml entry produced it."""
        return all(e.source == OVERRIDES and e.note for e in self.absent[hip])

    def as_dict(self) -> dict[str, object]:
        def names(d: dict[str, list[Entry]]) -> dict[str, list[str]]:
            return {h: sorted(e.cuda for e in es) for h, es in sorted(d.items())}

        return {
            "rocm": str(self.rocm),
            "target_rocm": ".".join(map(str, self.target)),
            "emitted": len(self.emitted),
            "absent": names(self.absent),
            "unexplained": sorted(h for h in self.absent if not self.explained(h)),
            "unverified": len(self.unverified),
            "unsupported_with_counterpart": {
                c: h for c, (_, h) in sorted(self.counterparts.items())
            },
            "reviewed": {c: e.note for c, (e, _) in sorted(self.reviewed.items())},
            "headers_absent": {c: e.hip for c, e in sorted(self.headers_absent.items())},
            "dated_too_late": {
                h: sorted(f"{e.cuda} (hip_added {e.hip_added})" for e in es)
                for h, es in sorted(self.dated_too_late.items())
            },
        }


def _emitted(index: MappingIndex, options: Options) -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for entry in index.entries.values():
        if is_convertible(entry, options):
            name = hip_name(entry, options)
            if name:
                out.setdefault(name, []).append(entry)
    return out


def run_audit(
    rocm: Path, clang: str, options: Options | None = None, index: MappingIndex | None = None
) -> Audit:
    options = options or Options()
    index = index or load_index()
    include = rocm / "include"
    audit = Audit(rocm, options.target_rocm)
    audit.emitted = _emitted(index, options)
    checkable: dict[str, list[Entry]] = {}
    for name, entries in audit.emitted.items():
        lib = FAMILY_LIBRARY.get(entries[0].family)
        if lib and not (include / lib).is_dir():
            audit.unverified[name] = entries
        else:
            checkable[name] = entries
    unsupported = [
        e
        for e in index.entries.values()
        if not is_convertible(e, options) and e.status in ("unsupported", "removed")
    ]
    guesses = {e.cuda: counterpart_candidates(e) for e in unsupported}
    hip_tokens = hip_header_tokens(rocm, clang)
    for e in unsupported:  # a same-named guess must come from HIP, not from libc/libstdc++
        guesses[e.cuda] = [g for g in guesses[e.cuda] if g != e.cuda or g in hip_tokens]
    namespaces = frozenset(
        n for n, es in checkable.items() if any(e.kind == "namespace" for e in es)
    )
    later = _dated_after_release(index, rocm)
    present = present_names(
        list(checkable) + [g for gs in guesses.values() for g in gs] + list(later),
        rocm,
        clang,
        namespaces,
    )
    audit.absent = {n: es for n, es in checkable.items() if n not in present}
    audit.dated_too_late = {n: es for n, es in later.items() if n in present}
    for e in unsupported:
        found = next((g for g in guesses[e.cuda] if g in present), None)
        if found:
            reviewed = e.source == OVERRIDES and bool(e.note)
            (audit.reviewed if reviewed else audit.counterparts)[e.cuda] = (e, found)
    searched = [d for d in (include, *_clang_include_dirs(clang)) if d]
    for cuda, entry in index.headers.items():
        target = hip_name(entry, options)
        if not is_convertible(entry, options) or not target:
            continue
        if not any((d / target).is_file() for d in searched):
            audit.headers_absent[cuda] = entry
    return audit


def _dated_after_release(index: MappingIndex, rocm: Path) -> dict[str, list[Entry]]:
    """HIP name -> the entries that HZ302 holds back as newer than the checked release (read
    from its headers): if the headers declare the name, the entry's ``hip_added`` is wrong."""
    release = rocm_version(rocm)
    if release is None:
        return {}
    options = Options(target_rocm=parse_version(release))
    out: dict[str, list[Entry]] = {}
    for e in index.entries.values():
        if e.hip and e.status not in ("unsupported", "removed") and needs_newer_hip(e, options):
            out.setdefault(e.hip, []).append(e)
    return out


def hip_header_tokens(rocm: Path, clang: str) -> set[str]:
    """Identifiers written in the HIP headers (DIR/include/hip and clang's __clang_hip_*.h)."""
    files = list((rocm / "include" / "hip").rglob("*.h"))
    resource = _clang_resource_include(clang)
    if resource:
        files += list(resource.glob("__clang_hip_*.h"))
    tokens: set[str] = set()
    for path in files:
        tokens.update(
            re.findall(r"[A-Za-z_]\w*", path.read_text(encoding="utf-8", errors="replace"))
        )
    return tokens


def _clang_resource_include(clang: str) -> Path | None:
    try:
        out = subprocess.run(
            [clang, "-print-resource-dir"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return Path(out) / "include"


def _clang_include_dirs(clang: str) -> list[Path]:
    """Clang's own and the C++ standard library's directories among those it searches for
    `#include <...>` in C++: a libcu++ header becomes its standard twin (`<cuda/std/limits>`
    -> `<limits>`), found there.  Not `/usr/include` itself, whose `hip/` may be an older HIP
    than the ROCm tree under audit (Debian's 5.2)."""
    try:
        err = subprocess.run(
            [clang, "-x", "c++", "-E", "-v", "-"],
            input="",
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stderr
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return []
    start = err.find("#include <...> search starts here:")
    end = err.find("End of search list.", start)
    if start < 0 or end < 0:
        return []
    listed = err[start:end].splitlines()[1:]
    dirs = [Path(line.strip()) for line in listed if line.startswith(" ")]
    return [d for d in dirs if "c++" in str(d) or "clang" in d.parts]


# --------------------------------------------------------------------------- header_check.yaml


def header_rows(audit: Audit) -> str:
    """``header_check.yaml``: one supported row per unsupported CUDA name with a counterpart.

    Rows written by an earlier run stay while the headers still declare their HIP name, so
    rewriting the file is idempotent.
    """
    version = rocm_version(audit.rocm) or "?"
    rows: dict[str, tuple[Entry, str]] = dict(audit.counterparts)
    for hip, entries in audit.emitted.items():
        for e in entries:
            if e.source == HEADER_CHECK and hip not in audit.absent:
                rows[e.cuda] = (e, hip)
    lines = [
        "# Generated by `python -m hipify_py.verify.mappings_audit --write-rows`; "
        "do not edit by hand.",
        "# CUDA names the AMD tables call unsupported whose counterpart the ROCm headers declare.",
        "# Wrong guesses are corrected in overrides.yaml (which wins), not here.",
        "family: header_check",
        "title: Counterparts found in the ROCm headers",
        f"source: header check against ROCm {version}",
        "priority: 15",
        "entries:" if rows else "entries: []",
    ]
    for cuda, (entry, hip) in sorted(rows.items()):
        row = {
            "cuda": cuda,
            "hip": hip,
            "kind": entry.kind,
            "status": "supported",
            "family": entry.family,
            "section": entry.section,
            "hip_checked": version if entry.source != HEADER_CHECK else entry.hip_checked,
        }
        if entry.cuda_added:
            row["cuda_added"] = entry.cuda_added
        dumped = yaml.safe_dump(row, default_flow_style=True, sort_keys=False, width=1 << 20)
        lines.append("- " + dumped.strip())
    return "\n".join(lines) + "\n"


def rocm_version(rocm: Path) -> str | None:
    """``7.2.4`` from DIR/include/rocm-core/rocm_version.h, else major.minor of hip_version.h
    (whose HIP_VERSION_PATCH is a build number, not the ROCm patch release)."""
    include = rocm / "include"
    for rel, keys in (
        (
            "rocm-core/rocm_version.h",
            ("ROCM_VERSION_MAJOR", "ROCM_VERSION_MINOR", "ROCM_VERSION_PATCH"),
        ),
        ("hip/hip_version.h", ("HIP_VERSION_MAJOR", "HIP_VERSION_MINOR")),
    ):
        try:
            macros = macro_numbers((include / rel).read_text(encoding="utf-8"))
        except OSError:
            continue
        if all(key in macros for key in keys):
            return ".".join(str(macros[key]) for key in keys)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m hipify_py.verify.mappings_audit", description=__doc__
    )
    ap.add_argument("--rocm-path", type=Path, required=True, help="ROCm usr dir (with include/)")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--write-rows", type=Path, help="write header_check.yaml here")
    args = ap.parse_args(argv)
    audit = run_audit(args.rocm_path, args.clang)
    if args.write_rows:
        args.write_rows.write_text(header_rows(audit), encoding="utf-8")
    data = audit.as_dict()
    print(
        f"absent {len(audit.absent)} unexplained {len(data['unexplained'])} "  # type: ignore[arg-type]
        f"counterparts {len(audit.counterparts)} headers_absent {len(audit.headers_absent)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
