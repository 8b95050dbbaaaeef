"""HZ320: texture and surface functions on targets without image hardware (gfx940-gfx942)."""

from __future__ import annotations

import subprocess

from _convert import result
from conftest import require_tool
from test_hazard_common import only

TEXTURE_KERNEL = """#include <cuda_runtime.h>
__global__ void blur(cudaTextureObject_t t, cudaSurfaceObject_t s, float* o) {
  float v = tex2D<float>(t, threadIdx.x + 0.5f, 0.5f);
  o[threadIdx.x] = v + tex1Dfetch<float>(t, threadIdx.x);
  surf2Dwrite(v, s, threadIdx.x * 4, 0);
}
void host(cudaTextureObject_t t) { cudaDestroyTextureObject(t); }
"""


def test_texture_reads_are_reported_for_gfx942_only():
    # one root cause (no image instructions): one finding, the other reads its dependent lines
    (found,) = only("HZ320", TEXTURE_KERNEL)
    assert found.line == 3 and found.extra["related_lines"] == "4,5"
    assert "the same holds for `tex1Dfetch`, `surf2Dwrite` (lines 4, 5)" in found.message
    assert only("HZ320", TEXTURE_KERNEL, offload_arch=("gfx90a",)) == []
    assert len(only("HZ320", TEXTURE_KERNEL, offload_arch=("gfx90a", "gfx942:xnack+"))) == 1


def test_the_finding_is_what_clang_says_for_gfx942(nvcc, rocm7, tmp_path):
    """The input is real CUDA (nvcc); its conversion compiles for gfx90a and not for gfx942,
    where each reported call is unavailable."""
    (tmp_path / "t.cu").write_text(TEXTURE_KERNEL)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "t.cu"), "-o", str(tmp_path / "t.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=600).returncode == 0
    (tmp_path / "t.hip").write_text(result(TEXTURE_KERNEL, "t.cu").text)
    clang = [require_tool("clang-19"), "-x", "hip", "-nogpulib", "-fsyntax-only", "-std=c++17"]
    clang += [f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"), str(tmp_path / "t.hip")]
    ok = subprocess.run([*clang, "--offload-arch=gfx90a"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr[-2000:]
    bad = subprocess.run([*clang, "--offload-arch=gfx942"], capture_output=True, text=True)
    lines = {int(x.split(":")[1]) for x in bad.stderr.splitlines() if "is unavailable" in x}
    assert bad.returncode != 0 and lines == {3, 4, 5}


OWN_TEX2D = """__device__ uint2 tex2D(const int rows, const int cols, const int c, const int r) {
  return make_uint2(r < rows ? r : rows - 1, c < cols ? c : cols - 1);
}
__global__ void k(uint2* o, int rows, int cols) {
  o[threadIdx.x] = tex2D(rows, cols, threadIdx.x, 0);
}
__global__ void t(cudaTextureObject_t tx, float* o) { o[0] = tex1Dfetch<float>(tx, 0); }
"""


def test_a_function_of_the_files_own_named_tex2D_is_no_texture_read():
    # HeCBench debayer's image.h defines a plain-memory tex2D that emulates address modes
    (found,) = only("HZ320", OWN_TEX2D)
    assert found.line == 7 and "tex1Dfetch" in found.message
