"""HZ107 and a block-wide collective of 32-lane groups: each group reduces, its leader stores a
slot, the block syncs and every group reads the slots back, so what the helper returns comes
from the whole block.  Its own `WARP_SIZE = 32` is right on a 64-lane wavefront whatever its
caller does with its hardware wavefronts (round 38, QuickRunCUDA's copy of llm.c's
`block_reduce`, whose kernel votes with `__any_sync`: 1 false HZ107)."""

from __future__ import annotations

from _units import assert_nvcc_builds
from test_hazard_common import findings

BLOCK_MAX = """__device__ float group_max(float v) {
  for (int step = 16; step > 0; step >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, step));
  return v;
}

__device__ float block_max(float v) {
  constexpr int WARP_SIZE = 32;
  __shared__ float slots[WARP_SIZE];
  int lane = threadIdx.x % WARP_SIZE;
  int group = threadIdx.x / WARP_SIZE;
  int groups = blockDim.x / WARP_SIZE;
  v = group_max(v);
  if (lane == 0) slots[group] = v;
  __syncthreads();
  v = lane < groups ? slots[lane] : -1e30f;
  return group_max(v);
}

__global__ void peak(const float* in, float* out, int* done) {
  float m = block_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  int last = 0;
  if (threadIdx.x == 0) last = atomicAdd(done, 1) == gridDim.x - 1;
  if (__any_sync(0xffffffffu, last)) out[threadIdx.x % 32] = m;
}
"""


def _hz107_lines(src: str) -> set[int]:
    return {f.line for f in findings(src) if f.rule == "HZ107"}


def test_the_block_reduction_is_real_cuda(nvcc, tmp_path):
    (tmp_path / "peak.cu").write_text(BLOCK_MAX)
    assert_nvcc_builds(nvcc, [tmp_path / "peak.cu"], [], tmp_path)


def test_a_block_collectives_own_constant_is_not_its_callers_vote():
    assert _hz107_lines(BLOCK_MAX) == set()


def test_a_warp_level_helper_still_takes_its_callers_wavefronts():
    # without the block's slots the helper returns a group's maximum, and the caller's
    # hardware-wide vote meets it
    warp_level = BLOCK_MAX.replace("  __syncthreads();\n", "")
    assert _hz107_lines(warp_level) == {7}
