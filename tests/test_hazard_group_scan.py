"""A shift up (`__shfl_up_sync` without a width) whose result only counts in the lanes of a
32-lane group at or past the shift is a group scan, right on a 64-lane wavefront: lane 32 + j
reads lane 32 + j - d, in its own group whenever the test lets it through.  Round 38 (cuda-lab's
scan lessons): the test written as `threadIdx.x % 32 >= offset`, with no lane variable, and the
shuffle itself the false branch of `lane == 0 ? 0 : ...`; 3 false HZ103."""

from __future__ import annotations

from _units import assert_nvcc_builds
from test_hazard_common import findings

# a block's exclusive scan of flags: an inclusive scan per 32-lane group, then each lane takes
# its left neighbour's sum, lane 0 of each group none
SCAN = """#define GROUP 32
__device__ int group_inclusive(int v) {
  for (int d = 1; d < GROUP; d *= 2) {
    int left = __shfl_up_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 >= d) v += left;
  }
  return v;
}

__global__ void exclusive_counts(const int* keep, int* pos, int* totals) {
  __shared__ int group_sums[8];
  int lane = threadIdx.x % 32;
  int group = threadIdx.x / 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = group_inclusive(keep[i]);
  if (lane == 31) group_sums[group] = v;
  __syncthreads();
  int before = (lane == 0) ? 0 : __shfl_up_sync(0xffffffffu, v, 1);
  for (int g = 0; g < group; ++g) before += group_sums[g];
  pos[i] = before;
  if (threadIdx.x == 0) totals[blockIdx.x] = group_sums[7];
}
"""


def _hz103_lines(src: str) -> set[int]:
    return {f.line for f in findings(src) if f.rule == "HZ103"}


def test_the_scan_is_real_cuda(nvcc, tmp_path):
    (tmp_path / "scan.cu").write_text(SCAN)
    assert_nvcc_builds(nvcc, [tmp_path / "scan.cu"], [], tmp_path)


def test_a_shift_counted_only_past_the_group_lane_written_in_the_test_is_no_finding():
    assert _hz103_lines(SCAN) == set()
    # `&` binds looser than `>=`: the lane id is a parenthesis of its own
    assert _hz103_lines(SCAN.replace("threadIdx.x % 32 >= d", "(threadIdx.x & 31) >= d")) == set()


def test_the_same_shifts_unguarded_are_reported():
    # every lane adds: lane 32 takes lanes 31, 30, ... of the other group
    unguarded = SCAN.replace("if (threadIdx.x % 32 >= d) v += left;", "v += left;")
    assert _hz103_lines(unguarded) == {4}
    # the branches the other way round: the lanes past the shift take nothing
    swapped = SCAN.replace(
        "(lane == 0) ? 0 : __shfl_up_sync(0xffffffffu, v, 1)",
        "(lane == 0) ? __shfl_up_sync(0xffffffffu, v, 1) : 0",
    )
    assert _hz103_lines(swapped) == {18}


# opencuda's scan probe (round 39): the lane id masks with a parenthesis of the warp-size
# constant, `tid & (WARP_SIZE - 1)`; the scan is the group scan above, and the constant right
PROBE = """#define WARP_SIZE 32
__global__ void warp_scan(int* out, const int* in, int n) {
  int tid = threadIdx.x;
  int lane = tid & (WARP_SIZE - 1);
  if (tid < n) {
    int v = in[tid];
    for (int d = 1; d < WARP_SIZE; d <<= 1) {
      int t = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) v += t;
    }
    out[tid] = v;
  }
}
"""


def test_a_lane_id_masked_by_a_parenthesis_of_the_constant_is_a_group_lane(nvcc, tmp_path):
    (tmp_path / "probe.cu").write_text(PROBE)
    assert_nvcc_builds(nvcc, [tmp_path / "probe.cu"], [], tmp_path)
    wave = {"HZ103", "HZ107"}
    assert not {f.rule for f in findings(PROBE)} & wave
    # unguarded, lane 32 adds lane 31's value of the other group: the constant is reported
    unguarded = PROBE.replace("if (lane >= d) v += t;", "v += t + lane;")
    assert {f.rule for f in findings(unguarded)} & wave


# vitamin-cuda's cumsum (round 41): the scan helper takes the lane id as a parameter, and every
# call passes the caller's `tid % 32`; the helper is a template called with its arguments named
HELPER = """#define WARP_SIZE 32
template <int W = WARP_SIZE>
__device__ __forceinline__ float warp_cum_sum(int lane_id, float val) {
  for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
    float other = __shfl_up_sync(0xffffffffu, val, offset);
    if (lane_id >= offset) val += other;
  }
  return val;
}

__global__ void cumsum(const float* a, float* b) {
  int tid = threadIdx.x;
  const int lane_id = tid % 32;
  float v = warp_cum_sum<32>(lane_id, a[tid]);
  b[tid] = warp_cum_sum(tid % 32, v);
}
"""


def test_a_lane_id_every_caller_passes_is_a_group_lane_of_the_helper(nvcc, tmp_path):
    (tmp_path / "cumsum.cu").write_text(HELPER)
    assert_nvcc_builds(nvcc, [tmp_path / "cumsum.cu"], [], tmp_path)
    wave = {"HZ103", "HZ107"}
    assert not {f.rule for f in findings(HELPER)} & wave
    # one call passes the thread's index: lane 32 adds the other group's lanes there, and the
    # 32 of the constant is wrong (one diagnosis, at the constant)
    wide = HELPER.replace("warp_cum_sum(tid % 32, v)", "warp_cum_sum(tid, v)")
    assert {f.rule for f in findings(wide)} & wave
    # a helper also handed on by pointer: its arguments there are not known
    taken = HELPER + "__device__ float (*scan)(int, float) = warp_cum_sum<32>;\n"
    assert {f.rule for f in findings(taken)} & wave


# yiyanGuo's scan_warp.cu (round 46): after the loop's scan, a shift by 1 feeds `lane_id > 0`
# only, and a later loop declares a `float add` of its own, guarded by that loop's counter
REDECLARED = """__global__ void scan(const float* in, float* out, float* sums) {
  __shared__ float warp_sums[8];
  const int lane_id = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  float thread_sum = in[threadIdx.x];
  float local = 0.0f;
  for (int offset = 1; offset < 32; offset <<= 1) {
    float add = __shfl_up_sync(0xffffffffu, thread_sum, offset);
    if (lane_id >= offset) thread_sum += add;
  }
  float add = __shfl_up_sync(0xffffffffu, thread_sum, 1);
  if (lane_id > 0) local += add;
  if (lane_id == 31) warp_sums[warp_id] = thread_sum;
  __syncthreads();
  if (warp_id == 0) {
    float x = lane_id < 8 ? warp_sums[lane_id] : 0.0f;
    for (int offset = 1; offset < 8; offset <<= 1) {
      float add = __shfl_up_sync(0xffffffffu, x, offset);
      if (lane_id >= offset) x += add;
    }
    if (lane_id < 8) sums[lane_id] = x;
  }
  out[threadIdx.x] = local;
}
"""


def test_a_name_declared_again_in_a_later_block_is_not_a_use_of_the_shift(nvcc, tmp_path):
    (tmp_path / "scan_warp.cu").write_text(REDECLARED)
    assert_nvcc_builds(nvcc, [tmp_path / "scan_warp.cu"], [], tmp_path)
    assert _hz103_lines(REDECLARED) == set()
    # the shift by 1 used in every lane: lane 32 takes lane 31's sum, of the other group
    assert _hz103_lines(REDECLARED.replace("if (lane_id > 0) local += add;", "local += add;")) == {
        11
    }
