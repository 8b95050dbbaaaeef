"""HZ208: cooperative-groups tiles larger than a wavefront, which HIP's tiles cannot be.

The premise is checked against ROCm 7.2.4's `amd_hip_cooperative_groups.h`: a tile of 128
threads fails its static_assert for gfx942, one of 64 compiles.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check
from test_hazard_common import only

# cuda_llm_ops' RMSNorm backward (compile round 43): a block-wide tile for cg::reduce
BLOCK_TILE = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
constexpr int kThreads = 256;
__global__ void dot(const float* a, const float* b, float* out) {
  float v = a[threadIdx.x] * b[threadIdx.x];
  auto block = cg::tiled_partition<kThreads>(cg::this_thread_block());
  float sum = cg::reduce(block, v, cg::plus<float>());
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<64> pair = cg::tiled_partition<64>(cg::this_thread_block());
  if (block.thread_rank() == 0) out[blockIdx.x] = sum + warp.size() + pair.size();
}
"""


def test_premise_hip_tiles_hold_at_most_a_wavefront(gfx942_check, tmp_path):
    src = tmp_path / "tile.hip"
    kernel = """#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* o) {
  auto t = cg::tiled_partition<SIZE>(cg::this_thread_block());
  o[threadIdx.x] = t.thread_rank();
}
"""
    src.write_text(kernel.replace("SIZE", "64"))
    assert gfx942_check(src).returncode == 0
    src.write_text(kernel.replace("SIZE", "128"))
    proc = gfx942_check(src)
    assert proc.returncode != 0 and "greater than the wavefront size" in proc.stderr


def test_a_tile_larger_than_a_wavefront_is_an_error_at_its_size(nvcc, tmp_path):
    (tmp_path / "dot.cu").write_text(BLOCK_TILE)
    assert_nvcc_builds(nvcc, [tmp_path / "dot.cu"], [], tmp_path)
    (f,) = only("HZ208", BLOCK_TILE)
    assert f.line == 7 and f.severity.value == "error" and "`tiled_partition<256>`" in f.message


def test_a_tile_sized_by_a_constant_of_another_header_is_reported(nvcc, tmp_path):
    """The constant lives in the kernel's header, as cuda_llm_ops' does: the tree knows it."""
    root = tmp_path / "ops"
    root.mkdir()
    (root / "dot.cuh").write_text("#pragma once\nconstexpr int kThreads = 256;\n")
    source = BLOCK_TILE.replace("constexpr int kThreads = 256;", '#include "dot.cuh"')
    (root / "dot.cu").write_text(source)
    assert_nvcc_builds(nvcc, [root / "dot.cu"], [], tmp_path)
    args = [str(root), "--format", "json", "--no-cache", "--select", "HZ208"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    assert [(Path(f["path"]).name, f["line"]) for f in found] == [("dot.cu", 7)]
    assert only("HZ208", source) == []  # the file alone cannot know the size
