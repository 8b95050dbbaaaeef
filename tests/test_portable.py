"""``convert --portable``: the examples become one source tree that nvcc (sm_90) and clang-19
for gfx942 (ROCm 7.2.4 headers) both compile, unchanged by a second run, with every AMD fix
behind ``__HIP_PLATFORM_AMD__`` and the CUDA lines kept as written."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli import root
from hipify_py.verify.fetch import cache_root

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


@pytest.mark.parametrize(
    "name", ["warp_reduce", "make_project", "cmake_project", "cmake_cublas", "masked_add"]
)
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


# HIP's NVIDIA backend (HIP + hipother headers, e.g. rocm-6.0.2 patched for CUDA 13): not
# fetched by .ci/run, so the HIP-on-NVIDIA compile runs only where HIPIFY_PY_HIP_NVIDIA names them
HIP_NVIDIA = Path(os.environ.get("HIPIFY_PY_HIP_NVIDIA", cache_root() / "hip-on-nvidia"))

# what broke the portable build through HIP on NVIDIA: a define that reached cuda_bf16.h (HIP's
# hip_bf16.h includes it after hip_compat.h), one that cycled on a CUDA macro
# (cudaEventDisableTiming), and HIP_SYMBOL written for AMD only
NVIDIA_HIP_CLASHES = """\
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__constant__ float scale;

__global__ void k(const __nv_bfloat16* x, float* y) {
  y[threadIdx.x] = __bfloat162float(x[threadIdx.x]) * scale;
}

int main() {
  float s = 2.0f;
  cudaMemcpyToSymbol(scale, &s, sizeof(s));
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  __nv_bfloat16* x;
  float* y;
  cudaMalloc(&x, 32 * sizeof(__nv_bfloat16));
  cudaMalloc(&y, 32 * sizeof(float));
  k<<<1, 32>>>(x, y);
  cudaEventRecord(done);
  cudaEventSynchronize(done);
  return cudaDeviceSynchronize() != cudaSuccess;
}
"""


def test_hip_api_edits_serve_every_hip_build_and_names_reach_no_cuda_header(
    tmp_path: Path, nvcc: str, clang19: str, rocm7: Path
) -> None:
    src = tmp_path / "in" / "k.cu"
    src.parent.mkdir()
    src.write_text(NVIDIA_HIP_CLASHES)
    _compile([nvcc, "-arch=sm_90", "-c", str(src), "-o", str(tmp_path / "o.o")])  # real CUDA
    _convert([str(src.parent), "--out-dir", str(tmp_path / "out")])
    out = tmp_path / "out" / "k.cu"
    text = out.read_text()
    # HIP_SYMBOL is the HIP API's, on NVIDIA too: behind the compat switch, not AMD's macro
    api = "#if HIP_COMPAT_HIP  // hipify-py --portable\n  cudaMemcpyToSymbol(HIP_SYMBOL(scale)"
    assert api in text
    header = (tmp_path / "out" / "hip_compat.h").read_text()
    nvidia = header.index("#if defined(__HIP_PLATFORM_NVIDIA__)")
    assert nvidia < header.index("#include <hip/hip_bf16.h>") < header.index("#define __nv_bf")
    assert "#ifndef cudaEventDisableTiming\n#define cudaEventDisableTiming" in header
    _compile([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o")])
    _compile([clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
              "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
              str(out)])  # fmt: skip
    if not (HIP_NVIDIA / "hip" / "nvidia_detail").is_dir():
        pytest.skip(f"HIP-on-NVIDIA headers not found ({HIP_NVIDIA}; HIPIFY_PY_HIP_NVIDIA)")
    _compile([nvcc, "-arch=sm_90", "-D__HIP_PLATFORM_NVIDIA__", f"-I{HIP_NVIDIA}", "-w", "-c",
              str(out), "-o", str(tmp_path / "o.o")])  # fmt: skip


def test_c_headers_nvcc_includes_implicitly_are_written_for_hip(
    tmp_path: Path, nvcc: str, clang19: str, rocm7: Path
) -> None:
    """CUDA code calls memset with no <string.h> (nvcc's cuda_runtime.h brings it); HIP's
    runtime header does not, so the portable file includes it, for both compilers."""
    src = tmp_path / "in" / "m.cu"
    src.parent.mkdir()
    src.write_text(
        "#include <cstdio>\n__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
        "int main() {\n  float h[4];\n  memset(h, 0, sizeof(h));\n  float* d;\n"
        '  cudaMalloc(&d, sizeof(h));\n  k<<<1, 4>>>(d);\n  printf("%f\\n", h[0]);\n}\n'
    )
    _compile([nvcc, "-arch=sm_90", "-c", str(src), "-o", str(tmp_path / "o.o")])  # real CUDA
    _convert([str(src.parent), "--out-dir", str(tmp_path / "out")])
    out = tmp_path / "out" / "m.cu"
    assert out.read_text().startswith('#include "hip_compat.h"\n#include <string.h>\n')
    _compile([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o")])
    _compile([clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
              "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
              str(out)])  # fmt: skip


def test_an_inserted_shim_is_its_own_block_even_above_a_comment(
    tmp_path: Path, nvcc: str, clang19: str, rocm7: Path
) -> None:
    """A header that opens with its licence comment and uses a CUDA bf16 constructor HIP
    lacks: the shim goes below the comment, after the compat header it needs, in an AMD block
    of its own (a shim once guarded together with the comment's first line left `/*` open
    across the `#else`)."""
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "pack.cuh").write_text(
        "/*\n * Licensed under the Apache License, Version 2.0\n */\n"
        "__device__ inline __nv_bfloat162 pack(float a) { return __float2bfloat162_rn(a); }\n"
    )
    (tree / "main.cu").write_text(
        '#include <cuda_bf16.h>\n#include "pack.cuh"\n'
        "__global__ void k(__nv_bfloat162* out) { out[threadIdx.x] = pack(1.0f); }\n"
    )
    _compile([nvcc, "-arch=sm_90", "-c", str(tree / "main.cu"), "-o", str(tmp_path / "o.o")])
    _convert([str(tree), "--out-dir", str(tmp_path / "out")])
    out = tmp_path / "out"
    header = (out / "pack.cuh").read_text()
    licence = "/*\n * Licensed under the Apache License, Version 2.0\n */\n"
    shim = '#include "hip_compat.h"\n#if defined(__HIP_PLATFORM_AMD__)  // hipify-py --portable\n'
    assert header.startswith(licence + shim) and "#else" not in header
    _compile([nvcc, "-arch=sm_90", "-c", str(out / "main.cu"), "-o", str(tmp_path / "o.o")])
    _compile([clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
              "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
              str(out / "main.cu")])  # fmt: skip
    again = tmp_path / "again"
    shutil.copytree(out, again)
    _convert([str(again), "--in-place", "--no-backup"])
    assert (again / "pack.cuh").read_text() == header


def test_a_projects_own_use_rocm_code_is_what_an_amd_build_compiles(
    tmp_path: Path, nvcc: str, clang19: str, rocm7: Path
) -> None:
    """Code already portable the PyTorch way (`#ifdef USE_ROCM` HIP, `#else` CUDA) is left as
    it is; the compat header turns the switch on for AMD, else clang reads the CUDA branch."""
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "check.h").write_text(
        "#pragma once\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n"
        "#define GPU_CHECK(x) do { if ((x) != hipSuccess) return 1; } while (0)\n#else\n"
        "#include <cuda_runtime.h>\n"
        "#define GPU_CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)\n#endif\n"
    )
    (tree / "main.cu").write_text(
        '#include <cstdio>\n#include "check.h"\n'
        "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
        "int main() {\n  float* d;\n  GPU_CHECK(cudaMalloc(&d, 4 * sizeof(float)));\n"
        "  k<<<1, 4>>>(d);\n  return 0;\n}\n"
    )
    _compile([nvcc, "-arch=sm_90", "-c", str(tree / "main.cu"), "-o", str(tmp_path / "o.o")])
    _convert([str(tree), "--out-dir", str(tmp_path / "out")])
    out = tmp_path / "out"
    assert (out / "check.h").read_text().endswith((tree / "check.h").read_text())
    assert "#define USE_ROCM 1" in (out / "hip_compat.h").read_text()
    _compile([nvcc, "-arch=sm_90", "-c", str(out / "main.cu"), "-o", str(tmp_path / "o.o")])
    _compile([clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
              "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
              str(out / "main.cu")])  # fmt: skip
