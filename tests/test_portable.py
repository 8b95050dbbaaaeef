"""``convert --portable``: the examples become one source tree that nvcc (sm_90) and clang-19
for gfx942 (ROCm 7.2.4 headers) both compile, unchanged by a second run, with every AMD fix
behind ``__HIP_PLATFORM_AMD__`` and the CUDA lines kept as written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli import root

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SOURCES = (".cu", ".cpp")
LIBS = {"cmake_cublas": ("cublas",), "host_rand_sparse": ("curand", "cusparse")}


def _portable(tmp_path: Path, name: str) -> Path:
    out = tmp_path / name
    _convert([str(EXAMPLES / name), "--out-dir", str(out)])
    return out


def _convert(args: list[str]) -> None:
    result = CliRunner().invoke(root, ["convert", "--portable", "-q", *args])
    assert result.exit_code == 0, result.output


def _includes(tree: Path) -> list[str]:
    return [f"-I{d}" for d in sorted({p.parent for p in tree.rglob("*.h*")})]


def _compile(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, " ".join(cmd) + "\n" + proc.stderr[-3000:]


@pytest.mark.parametrize(
    "name", ["warp_reduce", "make_project", "cmake_project", "cmake_cublas", "host_rand_sparse"]
)
def test_same_files_compile_for_cuda_and_gfx942(
    tmp_path: Path, name: str, nvcc: str, clang19: str, rocm7: Path, nvidia_include
) -> None:
    tree = _portable(tmp_path, name)
    extra = [f"-I{nvidia_include(lib)}" for lib in LIBS.get(name, ())]
    sources = sorted(p for p in tree.rglob("*") if p.suffix in SOURCES)
    assert sources
    for src in sources:
        incs = _includes(tree)
        _compile([nvcc, "-arch=sm_90", "-std=c++17", "-x", "cu", "-c", str(src), "-o",
                  str(tmp_path / "o.o"), *incs, *extra])  # fmt: skip
        _compile([clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
                  "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
                  *incs, str(src)])  # fmt: skip


def test_amd_fixes_are_guarded_and_cuda_lines_kept(tmp_path: Path) -> None:
    tree = _portable(tmp_path, "warp_reduce")
    text = (tree / "warp_reduce.cu").read_text()
    original = (EXAMPLES / "warp_reduce" / "warp_reduce.cu").read_text()
    assert '#include "hip_compat.h"' in text and "<cuda_runtime.h>" not in text
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, offset);" in text
    # the CUDA branch holds each original line as written; launches stay <<<>>>
    cuda_branch = _branches(text)[1]
    assert "__shfl_down_sync(0xffffffff, v, offset);" in cuda_branch
    assert "<<<" in text and "hipLaunchKernelGGL" not in text
    for line in original.splitlines():
        if "cuda_runtime.h" not in line:
            assert line in text.splitlines()
    header = (tree / "hip_compat.h").read_text()
    assert "#define cudaMalloc hipMalloc" in header and "#include <cuda_runtime.h>" in header


def _branches(text: str) -> tuple[str, str]:
    """The AMD and the CUDA lines of the portable guards in ``text``."""
    amd, cuda, where = [], [], None
    for line in text.splitlines():
        if line.startswith("#if defined(__HIP_PLATFORM_AMD__)  // hipify-py --portable"):
            where = amd
        elif line == "#else" and where is amd:
            where = cuda
        elif line == "#endif" and where is not None:
            where = None
        elif where is not None:
            where.append(line)
    return "\n".join(amd), "\n".join(cuda)


@pytest.mark.parametrize("name", ["warp_reduce", "make_project", "cmake_cublas", "masked_add"])
def test_second_run_changes_nothing(tmp_path: Path, name: str) -> None:
    tree = _portable(tmp_path, name)
    again = tmp_path / "again"
    shutil.copytree(tree, again)
    _convert([str(again), "--in-place", "--no-backup"])
    for p in tree.rglob("*"):
        if p.is_file() and p.name != "hipify-manifest.json" and not p.name.startswith("."):
            assert (again / p.relative_to(tree)).read_bytes() == p.read_bytes(), p


def test_check_reads_the_amd_branch_only(tmp_path: Path) -> None:
    tree = _portable(tmp_path, "warp_reduce")
    portable = CliRunner().invoke(root, ["check", str(tree / "warp_reduce.cu")])
    original = CliRunner().invoke(root, ["check", str(EXAMPLES / "warp_reduce")])
    # the original's open findings, once each: the kept CUDA lines (32-bit masks) are not
    # flagged, and the AMD branch holds the 64-bit masks convert itself writes (HZ106 fixed)
    assert "HZ106" not in portable.output
    counts = [r.output.splitlines()[-1].split(" in 1 file")[0] for r in (original, portable)]
    assert counts[0] == counts[1] and not counts[0].startswith("0 errors")


def test_version_gate_picks_per_vendor(tmp_path: Path, nvcc: str) -> None:
    src = tmp_path / "in" / "gate.cu"
    src.parent.mkdir()
    src.write_text(
        "#include <cuda_runtime.h>\n#if CUDART_VERSION < 9000\n#error too old\n#endif\n"
        "__global__ void k(int* a) { a[0] = 1; }\n"
    )
    _convert([str(src.parent), "--out-dir", str(tmp_path / "out")])
    text = (tmp_path / "out" / "gate.cu").read_text()
    assert "(!defined(__HIP_PLATFORM_AMD__) && (CUDART_VERSION < 9000))" in text
    _compile([nvcc, "-arch=sm_90", "-c", str(tmp_path / "out" / "gate.cu"), "-o",
              str(tmp_path / "g.o")])  # fmt: skip
