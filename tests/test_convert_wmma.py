"""CUDA's WMMA API -> rocWMMA (mappings/wmma.yaml, rewrite/wmma_names.py, HZ313)."""

from __future__ import annotations

import re
from pathlib import Path

from _convert import hip, result
from _units import assert_nvcc_builds
from hipify_py.findings import Severity
from hipify_py.mappings.load import load_index

UNITS = Path(__file__).parent / "fixtures" / "units"


def test_the_reproducer_is_translated_name_by_name():
    out = hip((UNITS / "wmma_gemm.cu").read_text())
    assert "#include <rocwmma/rocwmma.hpp>" in out and "<mma.h>" not in out
    code = "\n".join(line.split("//")[0] for line in out.splitlines())
    assert "nvcuda" not in code and "wmma::" not in code.replace("rocwmma::", "")
    assert (
        "rocwmma::fragment<rocwmma::matrix_a, TILE, TILE, TILE, half, rocwmma::row_major> fa;"
        in out
    )
    assert "rocwmma::store_matrix_sync(c + row * n + col, acc, n, rocwmma::mem_row_major);" in out
    assert "rocwmma::load_matrix_sync(old, c + row + col * n, n, rocwmma::mem_col_major);" in out
    assert "rocwmma::mma_sync(acc, fa, fb, acc);" in out
    assert "namespace wmma = rocwmma;" in out  # was `using namespace nvcuda;`


def test_the_reproducer_has_one_warning_per_kernel():
    found = [f for f in result((UNITS / "wmma_gemm.cu").read_text()).findings if f.rule == "HZ313"]
    assert [(f.line, f.severity) for f in found] == [
        (14, Severity.WARNING),
        (33, Severity.WARNING),
    ]
    assert "line 11 divides by 32" in found[0].message


def test_namespace_spellings():
    out = hip(
        "#include <mma.h>\nusing namespace nvcuda::wmma;\nnamespace w = nvcuda::wmma;\n"
        "__global__ void k(float* c) {\n"
        "  fragment<accumulator, 16, 16, 16, float> f;\n  fill_fragment(f, 0.f);\n"
        "  w::store_matrix_sync(c, f, 16, mem_row_major);\n}\n"
    )
    assert (
        "#include <rocwmma/rocwmma.hpp>\nusing namespace rocwmma;\nnamespace w = rocwmma;\n" in out
    )
    assert "  fragment<accumulator, 16, 16, 16, float> f;\n" in out


def test_a_file_using_wmma_through_a_header_includes_rocwmma_itself():
    out = hip(
        '#include "common.h"\nusing namespace nvcuda;\n__global__ void k(float* c) {\n'
        "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;\n"
        "  wmma::fill_fragment(f, 0.f);\n}\n"
    )
    assert out.index("#include <rocwmma/rocwmma.hpp>") < out.index('#include "common.h"')
    assert out.count("rocwmma.hpp") == 1


def test_the_header_that_uses_no_wmma_keeps_mma_h_for_nvidia_only():
    out = hip(
        '#pragma once\n#include "mma.h"\n#include <cuda_fp16.h>\ninline int f() { return 1; }\n',
        "common.h",
    )
    assert "#if defined(__HIP_PLATFORM_NVIDIA__)" in out and '#include "mma.h"' in out
    assert "rocwmma" not in out


def test_unsupported_names_are_left_and_reported():
    src = (
        "#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float* a) {\n"
        "  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> f;\n"
        "  a[0] = wmma::__float_to_tf32(a[0]);\n}\n"
    )
    out = hip(src)
    assert "wmma::precision::tf32" in out and "wmma::__float_to_tf32(a[0])" in out
    assert "rocwmma::fragment<rocwmma::matrix_a" in out
    errors = [f for f in result(src).findings if f.severity is Severity.ERROR]
    assert {(f.rule, f.line) for f in errors} == {("HZ313", 4), ("HZ313", 5)}


def test_someone_elses_wmma_namespace_is_left_alone():
    src = "namespace wmma { int tile(int x); }\nint f(int x) { return wmma::tile(x); }\n"
    assert hip(src, "t.cpp") == src
    assert not [f for f in result(src, "t.cpp").findings if f.rule == "HZ313"]


def test_every_rocwmma_name_of_the_table_is_declared_in_rocwmma_hpp(rocm7):
    """The probe of `mappings audit` cannot compile rocwmma.hpp from the ROCm 7.2.4 set (its
    internal/ headers are not packaged), so the table is checked against the header's code."""
    text = (rocm7 / "include" / "rocwmma" / "rocwmma.hpp").read_text()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    assert "namespace rocwmma" in code
    declared = set(re.findall(r"\b(?:struct|class __align__\(4\)|enum)\s+(\w+)", code))
    declared |= set(re.findall(r"ROCWMMA_DEVICE\s+void\s+(\w+)\s*\(", code))
    declared |= set(re.findall(r"^\s*(mem_\w+),?\s*$", code, re.M))
    wmma = [e for e in load_index().entries.values() if e.family == "wmma" and e.kind != "header"]
    emitted = {e.hip.removeprefix("rocwmma::") for e in wmma if e.hip and "::" in e.hip}
    assert len(emitted) == 13 and emitted <= declared, emitted - declared
    missing = {e.cuda.rsplit("::", 1)[1] for e in wmma if e.status == "unsupported"}
    assert missing and not missing & declared


# flash-fft-conv's butterfly kernels (issue 23, round 17): a fragment's elements read and
# written in pairs through a pointer cast of its storage, an array in CUDA, a vector in rocWMMA
PAIRED = """#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void twiddle(const half* a, half* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f[2];
  wmma::load_matrix_sync(f[0], a, 16);
  wmma::load_matrix_sync(f[1], a + 256, 16);
  for (int k = 0; k < f[0].num_elements / 2; k++) {
    __half2 p = reinterpret_cast<__half2*>(f[0].x)[k];
    reinterpret_cast<__half2*>(f[1].x)[k] = __hmul2(p, ((__half2*)f[1].x)[k]);
  }
  for (int k = 0; k < f[1].num_elements; k++) c[k] = f[1].x[k];
}
"""


def test_a_cast_of_fragment_storage_is_one_error_per_function(nvcc, tmp_path):
    (tmp_path / "paired.cu").write_text(PAIRED)
    assert_nvcc_builds(nvcc, [tmp_path / "paired.cu"], [], tmp_path)
    casts = [f for f in result(PAIRED).findings if "element storage" in f.message]
    assert [(f.line, f.severity) for f in casts] == [(9, Severity.ERROR)]
    assert "dependent lines: 10" in casts[0].message  # `f[1].x[k]` (line 12) compiles: no cast


def test_the_premise_a_cast_of_rocwmma_fragment_storage_does_not_compile(tmp_path, rocwmma_check):
    hip_file = tmp_path / "paired.hip"
    hip_file.write_text(hip(PAIRED))
    proc = rocwmma_check(hip_file)
    assert proc.returncode != 0 and "reinterpret_cast from" in proc.stderr
    indexed = hip(PAIRED).split("  for (int k = 0; k < f[0]", 1)[0] + "}\n"
    hip_file.write_text(indexed + "\n")
    assert rocwmma_check(hip_file).returncode == 0  # the rest of the kernel compiles


# AkshDesai04/CUDA's WMMA exercises (round 40): the block's tile comes from blockIdx alone, so
# every warp of a 256-thread block computes the whole tile, and so does every wavefront
WHOLE_TILE = """#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void tile(const half* a, const half* b, float* c, int n) {
  int row = blockIdx.y * 16, col = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(fa, a + row * n + k, n);
    wmma::load_matrix_sync(fb, b + col * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + row * n + col, acc, n, wmma::mem_row_major);
}
void run(const half* a, const half* b, float* c, int n) {
  dim3 grid(n / 16, n / 16);
  dim3 block(THREADS);
  tile<<<grid, block>>>(a, b, c, n);
}
"""


def test_a_kernel_whose_every_wavefront_computes_the_whole_tile_has_no_geometry_warning(
    nvcc: str, tmp_path: Path
) -> None:
    def warnings(threads: str, body: str = WHOLE_TILE) -> list[int]:
        src = body.replace("THREADS", threads)
        (tmp_path / "tile.cu").write_text(src)
        assert_nvcc_builds(nvcc, [tmp_path / "tile.cu"], [], tmp_path)
        return [f.line for f in result(src).findings if f.rule == "HZ313"]

    assert warnings("256") == []
    assert warnings("32") == [6]  # half a wavefront idle while the fragment needs all 64
    assert warnings("256 * n") == [6]  # a block this file does not fix
    per_warp = WHOLE_TILE.replace("blockIdx.x * 16;", "(threadIdx.x / 32) * 16;")
    assert warnings("256", per_warp) == [6]
