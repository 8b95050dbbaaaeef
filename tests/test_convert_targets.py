"""--target-rocm: the output must build with the ROCm it names (real compilers)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from _convert import result

WARP = """#include <cuda_runtime.h>
__global__ void reduce(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffffffffffULL, v, offset);
  unsigned long long active = __activemask();
  unsigned long long votes = __ballot_sync(active, v > 0.0f);
  __syncwarp();
  if (threadIdx.x == 0) out[blockIdx.x] = v + __popcll(votes);
}
void run(const float* in, float* out, int blocks) {
  reduce<<<blocks, 64>>>(in, out);
}
"""


def _compile(cmd: list[str], source: str, tmp: Path, env: dict | None = None) -> None:
    src = tmp / "k.hip"
    src.write_text(source)
    proc = subprocess.run(
        [*cmd, str(src)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_rocm_5_2_output_builds_with_hipcc_5_2(hipcc: str, tmp_path: Path) -> None:
    res = result(WARP, target_rocm=(5, 2))
    assert "__shfl_down(v, offset)" in res.text
    assert "__ballot(v > 0.0f)" in res.text and "__ballot(1)" in res.text
    assert "__builtin_amdgcn_wave_barrier()" in res.text
    assert {f.rule for f in res.findings} >= {"HP010"}
    _compile(
        [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-c", "-o", str(tmp_path / "k.o")],
        res.text,
        tmp_path,
        {"HIP_PLATFORM": "amd"},
    )


def test_rocm_7_output_keeps_sync_intrinsics_and_builds_for_gfx942(
    clang19: str, hip7_include: str, tmp_path: Path
) -> None:
    res = result(WARP)
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, offset)" in res.text
    assert "hipLaunchKernelGGL(reduce, dim3(blocks), dim3(64), 0, 0, in, out);" in res.text
    _compile(
        [
            clang19,
            "-x",
            "hip",
            "--offload-arch=gfx942",
            "-nogpulib",
            "-fsyntax-only",
            "-std=c++17",
            "-isystem",
            hip7_include,
            "-idirafter",
            "/usr/lib/llvm-19/lib/clang/19",
        ],
        res.text,
        tmp_path,
    )


def test_rocm_6_3_reports_the_enable_flag() -> None:
    res = result(WARP, target_rocm=(6, 3))
    assert "__shfl_down_sync(" in res.text
    assert any(f.rule == "HP011" for f in res.findings)
