"""Cooperative-groups names HIP lacks are reported where they are used (issue 23)."""

from __future__ import annotations

import subprocess

from test_hazard_common import only

LARGE_TILE = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  auto block = cg::this_thread_block(scratch);
  out[0] = cg::tiled_partition<64>(block).thread_rank();
}
"""


def test_block_tile_memory_is_reported(nvcc, tmp_path):
    """cuda-samples' reduction (multi_warp_cg_reduce): scratch for tiles above 32 threads."""
    (tmp_path / "t.cu").write_text(LARGE_TILE)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "t.cu"), "-o", str(tmp_path / "t.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=600).returncode == 0
    assert [(f.line, "block_tile_memory" in f.message) for f in only("HZ300", LARGE_TILE)] == [
        (4, True)
    ]
