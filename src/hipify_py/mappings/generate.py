"""Generate ``mappings/cuda_<family>.yaml`` from HIPIFY's Markdown API tables.

Usage::

    python -m hipify_py.mappings.generate --tables /path/to/hipify-tables --out mappings/

Every row of every ``*_supported_by_HIP.md`` table becomes one YAML entry (rows whose CUDA name
appears in two tables are kept in both files; the loader picks one deterministically).  The
roc*/MIOpen column of the matching ``*_HIP_and_ROC.md`` / ``*_HIP_and_MIOPEN.md`` table is merged
into ``roc``.

``kind`` is inferred from the table section and the shape of the name.  When a HIPIFY source
checkout is available (``--hipify-src``, a git dir), the per-name conversion category recorded
there (type / numeric literal / define / device function) is used as a hint, because camelCase
enumerators such as ``cudaMemcpyHostToDevice`` cannot be told apart from type names by shape.

The files written here are data; hand-written families (headers, warp_sync, nccl, pytorch, ...)
live next to them and are not touched by this script.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# family -> (HIP table file, optional table with the roc*/MIOpen column, title)
FAMILIES: dict[str, tuple[str, str | None, str]] = {
    "runtime": ("CUDA_Runtime_API_functions_supported_by_HIP.md", None, "CUDA Runtime API"),
    "driver": ("CUDA_Driver_API_functions_supported_by_HIP.md", None, "CUDA Driver API"),
    "device": ("CUDA_Device_API_supported_by_HIP.md", None, "CUDA Device API"),
    "rtc": ("CUDA_RTC_API_supported_by_HIP.md", None, "NVRTC API"),
    "complex": ("cuComplex_API_supported_by_HIP.md", None, "cuComplex API"),
    "blas": ("CUBLAS_API_supported_by_HIP.md", "CUBLAS_API_supported_by_HIP_and_ROC.md", "cuBLAS"),
    "sparse": (
        "CUSPARSE_API_supported_by_HIP.md",
        "CUSPARSE_API_supported_by_HIP_and_ROC.md",
        "cuSPARSE",
    ),
    "solver": (
        "CUSOLVER_API_supported_by_HIP.md",
        "CUSOLVER_API_supported_by_HIP_and_ROC.md",
        "cuSOLVER",
    ),
    "rand": ("CURAND_API_supported_by_HIP.md", "CURAND_API_supported_by_HIP_and_ROC.md", "cuRAND"),
    "fft": ("CUFFT_API_supported_by_HIP.md", None, "cuFFT"),
    "dnn": ("CUDNN_API_supported_by_HIP.md", "CUDNN_API_supported_by_HIP_and_MIOPEN.md", "cuDNN"),
    "cub": ("CUB_API_supported_by_HIP.md", None, "CUB"),
    "sparselt": ("CUSPARSELT_API_supported_by_HIP.md", None, "cuSPARSELt"),
    "tensor": ("CUTENSOR_API_supported_by_HIP.md", None, "cuTENSOR"),
    "file": ("cuFile_API_supported_by_HIP.md", None, "cuFile"),
}

# AMD's cuSPARSELt table dates every hipSPARSELt row "7.10.0", later than ROCm 7.2.4, which
# ships hipSPARSELt 0.2.6 with all 66 of those names (hipsparselt/hipsparselt.h, checked): read
# as a ROCm version it would keep cuSPARSELt from converting at all.  hipSPARSELt 0.2.x ships
# with ROCm 7.0 and later, which is the floor the rows get.
HIP_ADDED_FIXES: dict[str, dict[str, str]] = {"sparselt": {"7.10.0": "7.0.0"}}

DEFAULT_HIPIFY_SRC = Path("/work/.mirror/ROCm+HIPIFY/repo")
SECTION_RE = re.compile(r"^##\s+\*\*\s*\d+\.\s*(.+?)\s*\*\*\s*$")
ROW_RE = re.compile(r"^\|`([^`]+)`\|")
HINT_RE = re.compile(r'\{\s*"([^"]+)"\s*,\s*\{\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*(CONV_[A-Z_]+)')
HINT_FILE_RE = re.compile(r"CUDA2HIP_.*(API_(functions|types)|Device_(functions|types))\.cpp$")


@dataclass
class Row:
    cuda: str
    section: str
    cells: dict[str, str]  # column key -> non-empty cell text, e.g. "hip", "hip_A", "roc"
    line: int


@dataclass
class Table:
    path: Path
    rows: list[Row] = field(default_factory=list)


def _clean(cell: str) -> str | None:
    """Cell text without backticks; a list of versions ("7.1.0, 7.13.0") becomes space-separated."""
    cell = cell.strip().strip("`").strip()
    return " ".join(cell.replace(",", " ").split()) or None


def column_keys(header: list[str]) -> list[str]:
    """Keys for a header row such as ``|CUDA|A|D|C|R|HIP|A|D|C|R|U|E|ROC|A|...|``.

    A name column (CUDA, HIP, ROC, MIOPEN) starts a block; the letter columns after it become
    ``<block>_<letter>``.  Tables differ in whether they have the ``U`` column, so cells are
    addressed by these keys, never by position.
    """
    keys: list[str] = []
    block = ""
    for raw in header:
        name = raw.strip().strip("*").strip()
        if len(name) > 1:
            block = "roc" if name in ("ROC", "MIOPEN") else name.lower()
            keys.append(block)
        else:
            keys.append(f"{block}_{name}")
    return keys


def parse_table(path: Path) -> Table:
    """Rows of one Markdown table file, each with its section title and cells keyed by column."""
    table = Table(path)
    section = ""
    keys: list[str] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = SECTION_RE.match(line)
        if m:
            section = m.group(1).strip()
            continue
        cells = line.strip().strip("|").split("|")
        if line.startswith("|**CUDA**"):
            keys = column_keys(cells)
            continue
        m = ROW_RE.match(line)
        if not m:
            continue
        if len(cells) != len(keys):
            raise ValueError(f"{path}:{lineno}: {len(cells)} cells, header has {len(keys)}")
        named = {k: v for k, c in zip(keys, cells, strict=True) if (v := _clean(c))}
        table.rows.append(Row(m.group(1), section, named, lineno))
    return table


def load_kind_hints(git_dir: Path | None) -> dict[str, str]:
    """CUDA name -> HIPIFY conversion category (CONV_*), read from a HIPIFY source git dir."""
    if git_dir is None or not git_dir.exists():
        return {}
    try:
        names = subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "--name-only", "HEAD", "src/"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return {}
    hints: dict[str, str] = {}
    for name in names:
        if not HINT_FILE_RE.search(name):
            continue
        text = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"HEAD:{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for m in HINT_RE.finditer(text):
            hints.setdefault(m.group(1), m.group(4))
    return hints


def load_previous_kinds(out: Path) -> dict[str, str]:
    """CUDA name -> ``kind`` recorded in the generated files already in ``out``.

    Regenerating without a HIPIFY checkout keeps the kinds an earlier run derived from it, so a
    camelCase enumerator does not silently turn into a ``type``.
    """
    kinds: dict[str, str] = {}
    for family in FAMILIES:
        path = out / f"cuda_{family}.yaml"
        if path.is_file():
            doc = yaml.load(path.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            for entry in doc.get("entries", ()):
                kinds.setdefault(entry["cuda"], entry["kind"])
    return kinds


_UPPER_RE = re.compile(r"^[A-Z0-9_]+$")
_TYPE_SECTION_RE = re.compile(r"data types|types references|device types", re.I)


# the kind each hipify conversion type stands for (a CONV_ name not listed: a function)
_CONV_KINDS = {
    "CONV_NUMERIC_LITERAL": "enum",
    "CONV_DEFINE": "macro",
    "CONV_TYPE": "type",
    "CONV_DEVICE_FUNC": "device_function",
    "CONV_LIB_DEVICE_FUNC": "device_function",
}
_VERSION_MACRO_RE = re.compile(r"(_VERSION|_MAJOR|_MINOR|_PATCHLEVEL)$")


def infer_kind(family: str, section: str, cuda: str, hint: str | None) -> str:
    """A table row's kind: the one an earlier run recorded, else what its conversion type
    (``CONV_...``) says, else a guess from the name's shape and the table section."""
    if hint is not None:
        if not hint.startswith("CONV_"):
            return hint  # a kind recorded by an earlier run (load_previous_kinds)
        return _CONV_KINDS.get(hint, "function")
    return _kind_from_shape(family, section, cuda)


def _kind_from_shape(family: str, section: str, cuda: str) -> str:
    """No hint: a device-family name outside the type sections is a device function; in a
    type section an UPPER_CASE name is an enumerator (a version or limit a macro), another
    name a type; elsewhere UPPER_CASE is a macro and anything else a function."""
    types = bool(_TYPE_SECTION_RE.search(section))
    if family == "device" and not types:
        return "device_function"
    upper = bool(_UPPER_RE.match(cuda))
    if types:
        if upper:
            # Enumerators and #defines share the UPPER_CASE shape; versions/limits are macros.
            return "macro" if _VERSION_MACRO_RE.search(cuda) else "enum"
        return "type"
    return "macro" if upper else "function"


def status_of(hip: str | None, hip_d: str | None, hip_r: str | None, hip_e: str | None) -> str:
    if not hip:
        return "unsupported"
    if hip_e:
        return "experimental"
    if hip_r:
        return "removed"
    if hip_d:
        return "deprecated"
    return "supported"


def build_family(
    family: str, tables_dir: Path, hints: dict[str, str]
) -> tuple[dict[str, object], int]:
    hip_file, roc_file, title = FAMILIES[family]
    table = parse_table(tables_dir / hip_file)
    roc_names: dict[tuple[str, str], str] = {}
    if roc_file:
        for row in parse_table(tables_dir / roc_file).rows:
            if "roc" in row.cells:
                roc_names[(row.cuda, row.section)] = row.cells["roc"]
    entries: list[dict[str, object]] = []
    for row in table.rows:
        c = row.cells.get
        hip = c("hip")
        entry: dict[str, object | None] = {
            "cuda": row.cuda,
            "hip": hip,
            "kind": infer_kind(family, row.section, row.cuda, hints.get(row.cuda)),
            "status": status_of(hip, c("hip_D"), c("hip_R"), c("hip_E")),
            "roc": roc_names.get((row.cuda, row.section)),
            "section": row.section,
            "cuda_added": c("cuda_A"),
            "cuda_deprecated": c("cuda_D"),
            "cuda_removed": c("cuda_R"),
            "hip_added": HIP_ADDED_FIXES.get(family, {}).get(c("hip_A") or "", c("hip_A")),
            "hip_deprecated": c("hip_D"),
            "hip_removed": c("hip_R"),
            "cuda_changed": c("cuda_C"),
            "hip_changed": c("hip_C"),
            "hip_experimental": c("hip_E"),
            # U: the HIP name does not cover the CUDA API as it is in these CUDA versions
            "hip_unsupported_cuda": c("hip_U"),
        }
        entry.update(_legacy(family, hip, c("hip_C")))
        entries.append({k: v for k, v in entry.items() if v not in (None, "")})
    doc = {
        "family": family,
        "title": title,
        "source": hip_file + (f" + {roc_file}" if roc_file else ""),
        "generated": True,
        "entries": entries,
    }
    return doc, len(table.rows)


HIPBLAS_V2_DROPPED = "7.0.0"


def _legacy(family: str, hip: str | None, hip_changed: str | None) -> dict[str, str]:
    """The name an older ROCm has, where the tables record only the current one.

    hipBLAS 2.x (ROCm 6.x) took ``hipComplex`` only in its ``*_v2`` functions; hipBLAS 3.0
    (ROCm 7.0) removed them and changed the plain names to ``hipComplex``, which the tables
    record as ``hip_changed: 7.0.0``.  A ROCm 6 target gets the ``_v2`` name.
    """
    if family != "blas" or not hip or HIPBLAS_V2_DROPPED not in (hip_changed or "").split():
        return {}
    base, suffix = (hip[:-3], "_64") if hip.endswith("_64") else (hip, "")
    return {"hip_legacy": f"{base}_v2{suffix}", "hip_legacy_until": HIPBLAS_V2_DROPPED}


def dump_yaml(doc: dict[str, Any]) -> str:
    """Block style for the header, one flow-style mapping per entry (fast to load, diffable)."""
    out = ["# Generated by `python -m hipify_py.mappings.generate`; do not edit by hand."]
    out.append("# Data: AMD HIPIFY API tables (MIT), see the source key.")
    for key in ("family", "title", "source", "generated", "enabled", "priority"):
        if key in doc:
            out.append(yaml.safe_dump({key: doc[key]}, default_flow_style=False).rstrip())
    out.append("entries:")
    for entry in doc["entries"]:
        line = yaml.safe_dump(entry, default_flow_style=True, sort_keys=False, width=1 << 20)
        out.append("- " + line.strip())
    return "\n".join(out) + "\n"


def iter_generate(tables: Path, out: Path, hipify_src: Path | None) -> Iterator[tuple[str, int]]:
    hints = {**load_previous_kinds(out), **load_kind_hints(hipify_src)}
    out.mkdir(parents=True, exist_ok=True)
    for family in FAMILIES:
        doc, n = build_family(family, tables, hints)
        (out / f"cuda_{family}.yaml").write_text(dump_yaml(doc), encoding="utf-8")
        yield family, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hipify_py.mappings.generate", description=__doc__)
    ap.add_argument("--tables", type=Path, required=True, help="directory of HIPIFY *.md tables")
    ap.add_argument("--out", type=Path, required=True, help="output directory (mappings/)")
    ap.add_argument(
        "--hipify-src",
        type=Path,
        default=DEFAULT_HIPIFY_SRC if DEFAULT_HIPIFY_SRC.exists() else None,
        help="HIPIFY git dir used for kind hints (optional; kinds already in --out are kept)",
    )
    args = ap.parse_args(argv)
    if not args.tables.is_dir():
        print(f"error: --tables {args.tables}: not a directory", file=sys.stderr)
        return 2
    total = 0
    for family, n in iter_generate(args.tables, args.out, args.hipify_src):
        print(f"{family:8} {n:5} rows")
        total += n
    print(f"total    {total:5} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
