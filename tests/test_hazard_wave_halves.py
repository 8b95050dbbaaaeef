"""A broadcast without width (`__shfl_sync(m, v, j)`, j < 32) is right on a 64-lane wavefront
when both 32-lane halves hold the value alike: lane j of the wavefront has what lane j of each
group has.  Round 46 (hkevin01's n-body): each group loads `positions[i + lane_id]` in a loop
over `i`, and the loop broadcasts members of that `float4`; 1 false HZ103."""

from __future__ import annotations

from _units import assert_nvcc_builds
from test_hazard_common import findings

NBODY = """__global__ void forces(const float4* positions, float4* forces, int n) {
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  int warp_id = tid / 32;
  int lane_id = tid % 32;
  float4 my_pos = make_float4(0.f, 0.f, 0.f, 0.f);
  float fx = 0.f;
  if (gid < n) my_pos = positions[gid];
  for (int i = 0; i < n; i += 32) {
    float4 other;
    if (i + lane_id < n) {
      other = positions[i + lane_id];
    } else {
      other = make_float4(0.f, 0.f, 0.f, 0.f);
    }
    for (int j = 0; j < 32; j++) {
      float x = __shfl_sync(0xffffffffu, other.x, j);
      if (i + j < n && gid != i + j) fx += x - my_pos.x;
    }
  }
  if (gid < n) forces[gid] = make_float4(fx, 0.f, 0.f, (float)warp_id);
}
"""


def _hz103_lines(src: str) -> set[int]:
    return {f.line for f in findings(src) if f.rule == "HZ103"}


def test_a_member_of_a_value_both_halves_load_alike_is_broadcast_right(nvcc, tmp_path):
    (tmp_path / "nbody.cu").write_text(NBODY)
    assert_nvcc_builds(nvcc, [tmp_path / "nbody.cu"], [], tmp_path)
    assert _hz103_lines(NBODY) == set()


def test_a_load_that_differs_between_the_halves_is_still_reported():
    # the thread's own index: lane 32 + j loads another particle than lane j
    by_thread = NBODY.replace("other = positions[i + lane_id];", "other = positions[i + tid];")
    assert _hz103_lines(by_thread) == {17}
    # a member stored by the thread on the way: the halves differ again
    stored = NBODY.replace("    for (int j = 0;", "    other.x += tid;\n    for (int j = 0;")
    assert _hz103_lines(stored) == {18}
    # the guard names the thread's index: the halves take different branches
    guarded = NBODY.replace("if (i + lane_id < n) {", "if (gid < n) {")
    assert _hz103_lines(guarded) == {17}
