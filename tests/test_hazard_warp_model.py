"""The per-function warp model: code written for consistent 32-lane groups is right on a
64-lane wavefront (it holds two groups) and draws no wave-size finding; only what crosses a
group boundary is reported, and a 32-lane warp-size constant is one diagnosis listing its uses."""

from __future__ import annotations

import json
import subprocess

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check
from hipify_py.report.findings_sarif import _related
from test_hazard_common import findings, only

WAVE_RULES = {"HZ101", "HZ102", "HZ103", "HZ107"}

# per-row softmax statistics, one 32-thread group per row; group sums by xor butterflies
GROUP_ROWS = """#define GROUP_THREADS 32
__device__ float group_max(float v) {
  for (int o = GROUP_THREADS / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float group_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void row_stats(const float* x, float* mx, float* sm, int rows, int cols) {
  int lane = threadIdx.x % GROUP_THREADS;
  int row = blockIdx.x * (blockDim.x / GROUP_THREADS) + threadIdx.x / GROUP_THREADS;
  if (row >= rows) return;
  float m = -1e30f, s = 0.f;
  for (int c = lane; c < cols; c += GROUP_THREADS) m = fmaxf(m, x[row * cols + c]);
  m = group_max(m);
  for (int c = lane; c < cols; c += GROUP_THREADS) s += __expf(x[row * cols + c] - m);
  s = group_sum(s);
  if (lane == 0) { mx[row] = m; sm[row] = s; }
}
"""

# tile-local prefix: width 32 everywhere, so the group model is explicit
GROUP_SCAN = """__global__ void tile_prefix(const int* in, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[tid];
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d, 32);
    if (lane >= d) v += up;
  }
  out[tid] = v;
}
"""

# a broadcast from "lane 0" in group code: lanes 32-63 read the lower group's lane 0
BROADCAST = """__global__ void normalize(float* x, const float* scale) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  float s = lane == 0 ? scale[blockIdx.x * 8 + group] : 0.f;
  s = __shfl_sync(0xffffffffu, s, 0);
  float t = __shfl_sync(0xffffffffu, s, 0, 32);
  x[blockIdx.x * blockDim.x + threadIdx.x] *= s + t;
}
"""

# hardware warps: lane 0 of the wavefront stores one sum per warpSize threads, but the constant
# bounds the loop at 32 lanes
HW_REDUCE = """#define WARP_SIZE 32
__global__ void warp_sums(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  out[0] += v;
}
"""


def test_real_cuda(nvcc, tmp_path):
    for n, src in enumerate((GROUP_ROWS, GROUP_SCAN, BROADCAST, HW_REDUCE)):
        f = tmp_path / f"m{n}.cu"
        f.write_text(src)
        proc = subprocess.run(
            [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / f"m{n}.o")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr


def test_consistent_32_lane_groups_draw_no_wave_size_finding():
    for src in (GROUP_ROWS, GROUP_SCAN):
        assert not {f.rule for f in findings(src)} & WAVE_RULES, src


def test_helpers_take_the_model_of_their_callers():
    # alone, the offset-16 loops of helpers nobody calls here stay in their 32-lane groups
    helper = GROUP_ROWS.split("__global__")[0]
    assert only("HZ102", helper) == []
    # a caller that works in hardware warps (one result per wavefront) makes them wrong
    hardware = helper + (
        "__global__ void k(float* o) {\n  float v = group_sum(group_max(o[threadIdx.x]));\n"
        "  if (threadIdx.x % warpSize == 0) o[threadIdx.x / warpSize] = v;\n}\n"
    )
    assert [f.line for f in only("HZ102", hardware)] == [3, 7]


def test_a_shuffle_that_crosses_the_group_is_reported_where_the_width_goes():
    found = only("HZ103", BROADCAST)
    assert [f.line for f in found] == [5]
    assert "pass width 32" in found[0].message
    assert not {f.rule for f in findings(BROADCAST)} & {"HZ101", "HZ102", "HZ107"}


def test_a_scan_guarded_by_the_group_lane_stays_in_its_group():
    # lane 32 + j reads lane 32 + j - d, in its own group whenever the guard j >= d lets it in
    src = GROUP_SCAN.replace(", d, 32)", ", d)")
    src = src.replace("int lane", "int g = tid >> 5;\n  int lane")
    assert not {f.rule for f in findings(src)} & WAVE_RULES
    src = src.replace(
        "int up = __shfl_up_sync(0xffffffffu, v, d);", "unsigned up(__shfl_up(v, d));"
    )
    assert not {f.rule for f in findings(src)} & WAVE_RULES


# a difference with the previous lane: lane 32 reads lane 31 of the other group on wave64
GROUP_DIFF = """__global__ void deltas(const int* in, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  int v = in[tid];
  int prev = __shfl_up_sync(0xffffffffu, v, 1);
  out[tid] = v - prev + (lane == 0 ? group : 0);
}
"""


def test_an_unguarded_shift_up_in_group_code_is_reported_at_the_shuffle(nvcc, tmp_path):
    f = tmp_path / "d.cu"
    f.write_text(GROUP_DIFF)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / "d.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    found = {(f.rule, f.line) for f in findings(GROUP_DIFF) if f.rule in WAVE_RULES}
    assert found == {("HZ103", 6)}


# openmm's findInteractingBlocks (round 18): an exclusive scan from an inclusive one, the
# shifted value taken only where the group lane lets it in, as the true branch of a `?:`
GROUP_EXCLUSIVE = GROUP_DIFF.replace(
    "out[tid] = v - prev + (lane == 0 ? group : 0);", "out[tid] = group + (lane > 0 ? prev : 0);"
)


def test_a_shift_up_taken_only_past_the_group_lane_by_a_conditional_is_no_finding(nvcc, tmp_path):
    (tmp_path / "e.cu").write_text(GROUP_EXCLUSIVE)
    assert_nvcc_builds(nvcc, [tmp_path / "e.cu"], [], tmp_path)
    assert not {f.rule for f in findings(GROUP_EXCLUSIVE)} & WAVE_RULES
    # lane 32 takes the other group's lane 31 where the branches are the other way round
    swapped = GROUP_EXCLUSIVE.replace("lane > 0 ? prev : 0", "lane > 0 ? 0 : prev")
    assert {(f.rule, f.line) for f in findings(swapped) if f.rule in WAVE_RULES} == {("HZ103", 6)}


def test_warp_size_constant_is_one_diagnosis_with_its_dependent_lines():
    found = [f for f in findings(HW_REDUCE) if f.rule in WAVE_RULES]
    assert [(f.rule, f.line) for f in found] == [("HZ107", 1)]
    assert found[0].extra["related_lines"] == "4,6"
    assert "dependent lines: 4, 6" in found[0].message
    related = _related(found[0])
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == [4, 6]
    json.dumps(related)


def test_hardware_and_32_lane_ids_mixed_in_one_function_are_one_finding():
    src = """__global__ void k(const float* in, float* out) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  float v = __shfl_down_sync(~0ull, in[threadIdx.x], 1, warpSize);
  if (lane == 0) out[warp] = v;
}
"""
    found = only("HZ101", src)
    assert [f.line for f in found] == [2]
    assert "dependent lines: 3" in found[0].message and "hardware warp" in found[0].message


def test_a_short_constant_its_comment_calls_the_warp_size():
    src = """static const int WS = 32; // warp size
#define TW 32  // tile width
__global__ void k(float* o) {
  float v = o[threadIdx.x];
  for (int d = WS / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % warpSize == 0) o[threadIdx.x / warpSize] = v + TW;
}
"""
    found = [f for f in findings(src) if f.rule in WAVE_RULES]
    assert [(f.rule, f.line) for f in found] == [("HZ107", 1)]  # the loop is its dependent line
    assert found[0].extra["related_lines"] == "5"


def test_a_warp_size_constant_only_an_assertion_reads_is_not_reported(nvcc, tmp_path):
    """High-Performance-BVH-Builder's `curassert(warp_n_clusters <= WARP_SIZE, ...)` in a
    function of hardware lanes (round 43: a false HZ107): an assertion checks the algorithm's
    bound and computes nothing.  A test of the same bound in code is still reported."""
    src = """#include <cassert>
#define WARP_SIZE 32
__device__ unsigned nearest(unsigned n, unsigned key) {
  assert(n <= WARP_SIZE);
  unsigned lane = threadIdx.x % warpSize;
  unsigned right = __shfl_sync(0xffffffffffffffffULL, key, lane + 1);
  return lane + 1 < n ? right : key;
}
__global__ void build(const unsigned* n, unsigned* keys) {
  keys[threadIdx.x] = nearest(n[blockIdx.x], keys[threadIdx.x]);
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    assert only("HZ107", src) == []
    tested = src.replace("return lane + 1 < n ?", "return lane + 1 < n && n <= WARP_SIZE ?")
    assert [f.line for f in only("HZ107", tested)] == [2]


def test_a_constant_its_comment_measures_against_the_warp_size_is_no_warp_size(nvcc, tmp_path):
    """`stride_factor = 32; // Should be >= warpSize for good effect`: a stride chosen against
    the warp size, which the kernel and the host's expected result share, is right at any
    wavefront width (100-days-of-cuda's coalescing demo, round 42: 1 false HZ107).  A comment
    that calls the value the warp size still makes it one (passed to a kernel of another
    file, which may use it as one)."""
    src = """#include <cuda_runtime.h>
__global__ void strided(const float* in, float* out, int n, int stride);  // in another file
int main() {
  const int n = 1 << 20;
  const int stride_factor = 32; // Should be >= warpSize for good effect.
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  strided<<<n / 256, 256>>>(in, out, n, stride_factor);
  return cudaDeviceSynchronize() != cudaSuccess;
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    assert only("HZ107", src) == []
    called = src.replace("Should be >= warpSize for good effect.", "the warp size")
    assert [f.line for f in only("HZ107", called)] == [5]


# ------------------------------------------------------- HZ101: 32-lane ids meet the hardware warp

# atomics spread over 32 addresses: a lane id of 32 on its own, nothing warp-wide
SPREAD = """__global__ void spread(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(data + (i & 0x1F), 1);
}
"""

# a ballot spans the wavefront: lane 32 (group lane 0) stores the lower half's count again
GROUP_BALLOT = """__global__ void count_positive(const int* in, int* counts) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  unsigned b = __ballot_sync(0xffffffffu, in[blockIdx.x * blockDim.x + threadIdx.x] > 0);
  if (lane == 0) counts[blockIdx.x * 8 + group] = __popc(b);
}
"""

# the ballot only selects the lanes of width-32 shuffles
MASK_ONLY = """__global__ void neighbours(const int* valid, short* out, short v) {
  short lane = threadIdx.x % 32;
  unsigned m = __ballot_sync(__activemask(), valid[threadIdx.x] != 0);
  out[threadIdx.x] = __shfl_sync(m, v, lane - 1, 32);
}
"""

# a helper that reduces over hardware warps, called by a kernel of 32-lane slots
HW_HELPER = """__device__ float wave_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__global__ void slot_sums(const float* in, float* slots) {
  float v = wave_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if ((threadIdx.x & 31) == 0) slots[threadIdx.x / 32] = v;
}
"""

# a local `warpSize` of 32 is a constant, not the hardware warp
SHADOW = """__device__ short group_max(short v) {
  int warpSize = 32;
  for (int o = warpSize / 2; o > 0; o /= 2) v = max(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}
__global__ void best(const short* in, short* out) {
  short laneId = threadIdx.x % 32;
  short v = group_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (laneId == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
"""

# hardware warps per row; `i / 32` and `i % 32` are the word and bit of a bit vector
BITS = """__global__ void row_errors(const unsigned* bits, int* err, int width, int pw) {
  int i = (threadIdx.x + blockIdx.x * blockDim.x) / warpSize;
  int lane = threadIdx.x % warpSize;
  int e = 0;
  for (int j = lane; j < width; j += warpSize) {
    const int word = i / 32 * pw + j;
    const int vecLane = i % 32;
    e += (bits[word] >> vecLane) & 1;
  }
  atomicAdd(err, e);
}
"""

HZ101_CASES = (SPREAD, GROUP_BALLOT, MASK_ONLY, HW_HELPER, SHADOW, BITS)


def test_hz101_cases_are_real_cuda(nvcc, tmp_path):
    for n, src in enumerate(HZ101_CASES):
        f = tmp_path / f"l{n}.cu"
        f.write_text(src)
        proc = subprocess.run(
            [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / f"l{n}.o")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr


def test_hz101_is_silent_where_32_lane_ids_stay_consistent():
    for src in (SPREAD, MASK_ONLY, SHADOW, BITS):
        assert only("HZ101", src) == [], src


def test_a_ballot_counted_per_32_lane_group_is_hz105s_at_the_ballot():
    """The count of a 32-bit word is right once the word holds the group's own half of the
    ballot (the fix HZ105 gives there), so the 32-lane ids are no second finding."""
    assert only("HZ101", GROUP_BALLOT) == []
    [found] = only("HZ105", GROUP_BALLOT)
    assert found.line == 4 and "keep the group's own half" in found.message


def test_hz101_names_the_hardware_warp_helper_a_kernel_calls():
    found = only("HZ101", HW_HELPER)
    assert [f.line for f in found] == [7]
    assert "`wave_sum()`, which it calls," in found[0].message


# collision-cuda: a lane id from the constant and a shuffle wrapper whose width defaults to it
WRAPPED_WIDTH = """#define WARP_SIZE 32
__device__ int getLaneId() { return threadIdx.x % WARP_SIZE; }
template <typename T>
__device__ T shfl_xor(const T val, int laneMask, int width = WARP_SIZE) {
  return __shfl_xor_sync(0xffffffff, val, laneMask, width);
}
__global__ void k(float* o) {
  float v = o[threadIdx.x];
  for (int m = 16; m > 0; m /= 2) v += shfl_xor(v, m);
  if (getLaneId() == 0) o[blockIdx.x] = v;
}
"""


# mistral.rs's gdn.cu (round 33): a kernel's own 32 passed on as a helper's template width
TEMPLATE_WIDTH = """template <int WARP_SIZE>
__device__ __forceinline__ float group_sum(float x) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1)
    x += __shfl_down_sync(0xffffffff, x, offset, WARP_SIZE);
  return __shfl_sync(0xffffffff, x, 0, WARP_SIZE);
}
__global__ void rows(const float* in, float* out) {
  constexpr int WARP_SIZE = 32;
  const int lane = threadIdx.x;  // blocks of (32, 4): one row of 32 threads per group
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  float s = in[row * WARP_SIZE + lane];
  s = group_sum<WARP_SIZE>(s);
  if (lane == 0) out[row] = s;
}
"""


def test_hz107_a_helpers_template_width_is_what_its_callers_pass(nvcc, tmp_path):
    (tmp_path / "t.cu").write_text(TEMPLATE_WIDTH)
    assert_nvcc_builds(nvcc, [tmp_path / "t.cu"], [], tmp_path)
    assert only("HZ107", TEMPLATE_WIDTH) == []
    # a caller that passes another width: the helper's width is unknown, its lane-0 read
    # without a known sub-warp width may cross groups
    other = TEMPLATE_WIDTH.replace(
        "  if (lane == 0) out[row] = s;", "  if (lane == 0) out[row] = s + group_sum<64>(s);"
    )
    assert [f.line for f in only("HZ107", other)] == [8]


def test_hz107_lane_ids_with_a_default_shuffle_width_of_32_are_consistent(nvcc, tmp_path):
    (tmp_path / "w.cu").write_text(WRAPPED_WIDTH)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "w.cu"), "-o", str(tmp_path / "w.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert only("HZ107", WRAPPED_WIDTH) == []
    # an xor by less than 32 stays in its group even without the width: still consistent
    butterfly = WRAPPED_WIDTH.replace(", laneMask, width)", ", laneMask)")
    assert only("HZ107", butterfly) == []
    # reading an absolute lane without the width crosses into the other group of the wavefront
    hardware = WRAPPED_WIDTH.replace(
        "__shfl_xor_sync(0xffffffff, val, laneMask, width)",
        "__shfl_sync(0xffffffff, val, laneMask)",
    )
    assert [f.line for f in only("HZ107", hardware)] == [1]


# gc / graphB+: the source lane is a ballot's first set bit, a hardware lane; the warp-size
# constant is reported (HZ107) but "pass width 32" would be wrong advice for these shuffles
BALLOT_LEADER = """static const int WS = 32;  // warp size
__global__ void k(const int* v, int* o) {
  const int lane = threadIdx.x % WS;
  const unsigned bal = __ballot_sync(~0u, v[threadIdx.x] > 0);
  while (bal) {
    const int who = __ffs(bal) - 1;
    const int wv = __shfl_sync(~0u, v[threadIdx.x], who);
    int x = __shfl_sync(~0u, v[0], __ffs(bal) - 1) + __shfl_sync(~0u, v[1], 0);
    o[threadIdx.x / WS + lane] = wv + x;
    break;
  }
}
"""


def test_hz103_a_source_lane_from_a_ballot_is_a_hardware_lane(nvcc, tmp_path):
    (tmp_path / "b.cu").write_text(BALLOT_LEADER)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "b.cu"), "-o", str(tmp_path / "b.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    # ids of the file's warp-size constant next to a ballot whose bits pick lanes: the
    # constant is the fix (HeCBench rsmt's port sets `WS` to 64), and then lane 0 is right
    assert only("HZ103", BALLOT_LEADER) == []
    assert [f.line for f in only("HZ107", BALLOT_LEADER)] == [1]
    # with literal 32 the ids stay group ids: only the `0` source lane crosses
    literal = BALLOT_LEADER.replace("% WS", "% 32").replace("/ WS", "/ 32")
    assert [f.line for f in only("HZ103", literal)] == [8]


# snake / vote / warpexchange: where a warp-size constant of 32 meets the hardware wavefront
HOST_BLOCKS = """#define warp_size 32
__global__ void scale(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.f; }
void run(float* x, int warps) {
  int threads = warp_size * warps;
  scale<<<1024 / threads, threads>>>(x);
}
"""
HOST_ARGUMENT = """__global__ void any_per_warp(const int* in, int* out, int ws) {
  int any = __any_sync(0xffffffffu, in[threadIdx.x] > 0);
  if (threadIdx.x % ws == 0) out[threadIdx.x / ws] = any;
}
void run(const int* in, int* out) {
  const int warp_size = 32;
  any_per_warp<<<1, 3 * warp_size>>>(in, out, warp_size);
}
"""
FOREIGN_TEMPLATE = """#include <cub/warp/warp_exchange.cuh>
constexpr int warp_threads = 32;
__global__ void exchange(int* d) {
  using Exchange = cub::WarpExchange<int, 4, warp_threads>;
  __shared__ typename Exchange::TempStorage tmp[4];
  int items[4] = {d[threadIdx.x], 0, 0, 0};
  Exchange(tmp[threadIdx.x / warp_threads]).StripedToBlocked(items, items);
  d[threadIdx.x] = items[0];
}
"""


# lmdeploy's attention reduce (round 14): the kernel of this file takes the constant as a
# template argument (its parameter shadows the name) and in a launch argument, and works in
# consistent 32-lane groups: a 64-lane wavefront holds two of them
OWN_KERNEL = """template <int CTA_K>
__global__ void reduce(const float* in, float* out, int stride) {
  __shared__ float part[4];
  int lane = threadIdx.x % CTA_K, group = threadIdx.x / CTA_K;
  float v = in[threadIdx.x * stride];
  for (int m = CTA_K / 2; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m, CTA_K);
  if (lane == 0) part[group] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = part[0] + part[1] + part[2] + part[3];
}
void run(const float* in, float* out, int stride_k) {
  constexpr int CTA_K = 32;  // warp size
  reduce<CTA_K><<<1, 4 * CTA_K>>>(in, out, stride_k * CTA_K);
}
"""


def test_hz107_follows_the_constant_into_a_kernel_of_the_file(nvcc, tmp_path):
    f = tmp_path / "own.cu"
    f.write_text(OWN_KERNEL)
    assert_nvcc_builds(nvcc, [f], [], tmp_path)
    assert only("HZ107", OWN_KERNEL) == []
    # a kernel of another file (declared only) cannot be followed: it takes the warp size
    other = (
        OWN_KERNEL.split("void run")[0].split("{")[0]
        + ";\nvoid run"
        + OWN_KERNEL.split("void run")[1]
    )
    assert [f.line for f in only("HZ107", other)] == [4]


# dgl's _SegmentMaskColKernel (round 12): rows of 32 threads, and a CUB warp reduction whose
# logical warp is the hardware one (64 lanes in hipCUB): a wavefront sums two rows
CUB_ROWS = """#include <cub/warp/warp_reduce.cuh>
template <int WARP_SIZE, int ROWS>
__global__ void count(const int* in, int* out) {
  typedef cub::WarpReduce<int> Reduce;
  __shared__ typename Reduce::TempStorage tmp[ROWS];
  int v = in[threadIdx.y * WARP_SIZE + threadIdx.x];
  int sum = Reduce(tmp[threadIdx.y]).Sum(v);
  if (threadIdx.x == 0) out[threadIdx.y] = sum;
}
void run(const int* in, int* out) {
  constexpr int WARP_SIZE = 32;
  count<WARP_SIZE, 8><<<1, dim3(WARP_SIZE, 8)>>>(in, out);
}
"""


def test_hz107_a_cub_warp_collective_of_the_hardware_width_meets_the_wavefront(nvcc, tmp_path):
    f = tmp_path / "rows.cu"
    f.write_text(CUB_ROWS)
    assert_nvcc_builds(nvcc, [f], [], tmp_path)
    assert [f.line for f in only("HZ107", CUB_ROWS)] == [11]
    # a logical warp of 32 lanes stays in its row
    assert only("HZ107", CUB_ROWS.replace("WarpReduce<int>", "WarpReduce<int, WARP_SIZE>")) == []


def test_hz107_where_the_constant_meets_the_wavefront(nvcc, tmp_path):
    for n, src in enumerate((HOST_BLOCKS, HOST_ARGUMENT, FOREIGN_TEMPLATE)):
        f = tmp_path / f"h{n}.cu"
        f.write_text(src)
        cmd = [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / f"h{n}.o")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    # block sizes only: a 64-lane wavefront simply holds two of these 32-thread groups
    assert only("HZ107", HOST_BLOCKS) == []
    # a kernel takes it as its warp size, and votes across the whole wavefront
    assert [f.line for f in only("HZ107", HOST_ARGUMENT)] == [6]
    # a template this file cannot see takes it (cub's warp exchange works in hardware warps)
    assert [f.line for f in only("HZ107", FOREIGN_TEMPLATE)] == [2]
    # only sizing the block of a kernel that votes across the wavefront: still its warp size
    only_blocks = HOST_ARGUMENT.replace(", warp_size);", ", 32);")
    assert [f.line for f in only("HZ107", only_blocks)] == [6]
    assert only("HZ107", only_blocks.replace("__any_sync(0xffffffffu, ", "(")) == []


# cuhnsw's IsNeighbor (round 33): each group's leader stores its vote, the first group votes
# over the stores; OR over two groups at once is the OR over each in turn
BLOCK_ANY = """#define WARP_SIZE 32
__device__ bool block_any(bool found) {
  int warp = threadIdx.x / WARP_SIZE;
  int lane = threadIdx.x % WARP_SIZE;
  static __shared__ bool shared[WARP_SIZE];
  found = __any_sync(0xffffffffu, found);
  if (lane == 0) shared[warp] = found;
  __syncthreads();
  if (blockDim.x <= WARP_SIZE) return shared[0];
  found = (threadIdx.x < blockDim.x / WARP_SIZE) ? shared[lane] : false;
  if (warp == 0) found = __any_sync(0xffffffffu, found);
  return found;
}
__global__ void k(const int* in, int* out, int key) {
  bool f = block_any(in[blockIdx.x * blockDim.x + threadIdx.x] == key);
  if (threadIdx.x == 0) out[blockIdx.x] = f;
}
"""


def test_hz107_a_two_stage_block_vote_is_right_on_a_wavefront(nvcc, tmp_path):
    (tmp_path / "b.cu").write_text(BLOCK_ANY)
    assert_nvcc_builds(nvcc, [tmp_path / "b.cu"], [], tmp_path)
    assert only("HZ107", BLOCK_ANY) == []
    # one stage only: each group's own answer, which a 64-lane vote mixes with the other's
    one_stage = BLOCK_ANY.replace(
        "  if (warp == 0) found = __any_sync(0xffffffffu, found);\n", ""
    ).replace("  __syncthreads();\n  if (blockDim.x", "  if (blockDim.x")
    assert [f.line for f in only("HZ107", one_stage)] == [1]


# dpid: the file's own float4 overload of __shfl_down defaults its width to 32
OWN_OVERLOAD = """__device__ float4 __shfl_down(const float4 v, unsigned d, unsigned width = 32) {
  return make_float4(__shfl_down_sync(0xffffffffu, v.x, d, width),
                     __shfl_down_sync(0xffffffffu, v.y, d, width),
                     __shfl_down_sync(0xffffffffu, v.z, d, width),
                     __shfl_down_sync(0xffffffffu, v.w, d, width));
}
__device__ void reduce(float4& v) {
  float4 o = __shfl_down(v, 16);
  v.x += o.x;
}
"""


def test_hz102_a_call_of_the_files_own_width_32_overload_stays_in_its_group(nvcc, tmp_path):
    (tmp_path / "o.cu").write_text(OWN_OVERLOAD)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "o.cu"), "-o", str(tmp_path / "o.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert only("HZ102", OWN_OVERLOAD) == []
    wide = OWN_OVERLOAD.replace("width = 32", "width = 64")
    assert [f.line for f in only("HZ102", wide)] == [8]


# launch geometry (fastllm, round 10): a 32-thread block has no lanes 32-63; rows of 32 threads
# (`dim3 threads(32, 4)`) are 32-lane groups with threadIdx.x the lane
SMALL_BLOCKS = """__global__ __launch_bounds__(BLOCK) void norm(const float* x, float* y, int n) {
  float s = 0.f;
  for (int c = threadIdx.x; c < n; c += 32) s += x[blockIdx.x * n + c] * x[blockIdx.x * n + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  s = __shfl_sync(0xffffffffu, s, 0);
  for (int c = threadIdx.x; c < n; c += 32) y[blockIdx.x * n + c] = x[blockIdx.x * n + c] / s;
}
__device__ float row_best(float v) {
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}
__global__ void best_per_row(const float* x, float* out, int rows) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  float v = row_best(x[row * 32 + threadIdx.x]);
  float first = __shfl_sync(0xffffffffu, x[row * 32 + threadIdx.x], 0);
  if (threadIdx.x == 0) out[row] = v - first;
}
void launch(const float* x, float* y, float* out, int rows, int n) {
  norm<<<rows, BLOCK>>>(x, y, n);
  dim3 threads(32, ROWS);
  best_per_row<<<(rows + ROWS - 1) / ROWS, threads>>>(x, out, rows);
}
"""


def _small_blocks(block: int, rows: int) -> str:
    return f"#define BLOCK {block}\n#define ROWS {rows}\n" + SMALL_BLOCKS


def test_small_blocks_are_real_cuda(nvcc, tmp_path):
    for block, rows in ((32, 4), (256, 1)):
        src = tmp_path / f"blocks{block}.cu"
        src.write_text(_small_blocks(block, rows))
        proc = subprocess.run(
            [nvcc, "-c", "-arch=sm_90", str(src), "-o", str(tmp_path / "b.o")],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_blocks_of_32_threads_and_rows_of_32_draw_no_wave_size_finding():
    found = [(f.rule, f.line) for f in findings(_small_blocks(32, 4)) if f.rule in WAVE_RULES]
    # the 32-thread kernel has no lanes 32-63; in rows of 32 only the lane-0 broadcast crosses
    # into the other row of its wavefront
    assert found == [("HZ103", 18)]


def test_larger_blocks_keep_their_wave_size_findings():
    # 256 threads: the offset-16 loop sees a 64-lane wavefront
    found = findings(_small_blocks(256, 4))
    assert {f.line for f in found if f.rule == "HZ102"} == {6}
    # rows of 64 threads: the butterfly from 16 covers half a row, the lane-0 broadcast is right
    rows64 = _small_blocks(32, 4).replace("threads(32", "threads(64")
    found = [(f.rule, f.line) for f in findings(rows64) if f.rule in WAVE_RULES]
    assert found == [("HZ102", 11)]


def test_hz107_a_width_given_to_another_files_reduction_helper_is_group_code():
    """TransformerEngine: `warp_reduce_max<kThreadsPerWarp>(v)` (a helper of another header)
    reduces 32-lane groups, and lane 0 of each writes slot `tid / 32`: consistent on 64 lanes.
    The same constant given to a helper that is no reduction cannot be followed: reported."""
    src = """#include "utils.cuh"
constexpr int kThreadsPerWarp = 32;
__global__ void amax(const float* x, float* out) {
  __shared__ float slots[8];
  float v = x[threadIdx.x];
  float m = warp_reduce_max<kThreadsPerWarp>(v);
  if (threadIdx.x % kThreadsPerWarp == 0) slots[threadIdx.x / kThreadsPerWarp] = m;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = slots[0];
}
"""
    assert only("HZ107", src) == []
    assert len(only("HZ107", src.replace("warp_reduce_max<", "exchange_lanes<"))) == 1


# llm.c's cuda_common.h (round 18): a header defines the constant and never uses it; its
# includers decide.  rows.cu works in consistent 32-lane groups; votes.cu picks ballot bits by
# the constant's lane id, which on a 64-lane wavefront names the wrong half's bits
HEADER_CONSTANT = """#pragma once
#include <cuda_runtime.h>
#define WARP_SIZE 32U
__device__ inline float square(float x) { return x * x; }
"""
GROUP_USER = """#include "common.h"
__device__ float group_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__global__ void rows(const float* x, float* out, int cols) {
  int lane = threadIdx.x % WARP_SIZE;
  int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
  float s = 0.f;
  for (int c = lane; c < cols; c += WARP_SIZE) s += x[row * cols + c];
  s = group_sum(s);
  if (lane == 0) out[row] = s;
}
"""
VOTE_USER = """#include "common.h"
__global__ void below(const int* x, int* rank) {
  unsigned lane = threadIdx.x % WARP_SIZE;
  unsigned bits = __ballot_sync(0xffffffffu, x[threadIdx.x] > 0);
  rank[threadIdx.x] = __popc(bits & ((1u << lane) - 1));
}
"""


def _tree_hz107(root) -> list[tuple[str, int, str]]:
    args = ["--select", "HZ107", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, [str(root), *args], catch_exceptions=False)
    found = json.loads(run.stdout)["findings"]
    return [(f["path"].rsplit("/", 1)[-1], f["line"], f["message"]) for f in found]


def test_hz107_a_header_constant_is_decided_by_the_files_that_use_it(nvcc, tmp_path):
    (tmp_path / "common.h").write_text(HEADER_CONSTANT)
    (tmp_path / "rows.cu").write_text(GROUP_USER)
    assert_nvcc_builds(nvcc, [tmp_path / "rows.cu"], [], tmp_path)
    # its only includer works in consistent 32-lane groups: right on a 64-lane wavefront
    assert _tree_hz107(tmp_path) == []
    # checked alone, the header's includers are unknown: reported
    assert [f[:2] for f in _tree_hz107(tmp_path / "common.h")] == [("common.h", 3)]
    # a file with a WARP_SIZE of its own: the header is not what it uses
    (tmp_path / "other.cu").write_text(
        VOTE_USER.replace('#include "common.h"', '#include <cuda.h>\n#include "other.h"')
    )
    (tmp_path / "other.h").write_text("#pragma once\n#define WARP_SIZE 64\n")
    assert _tree_hz107(tmp_path) == []
    # an includer picks ballot bits by its lane id: reported at the definition, naming it
    (tmp_path / "votes.cu").write_text(VOTE_USER)
    assert_nvcc_builds(nvcc, [tmp_path / "votes.cu"], [], tmp_path)
    [(name, line, message)] = _tree_hz107(tmp_path)
    assert (name, line) == ("common.h", 3)
    assert message.endswith("votes.cu uses it where code meets the hardware wavefront")


# ByteTransformer's sequence offsets (round 19): the first 32-lane group scans the lengths,
# through a helper called only there; lanes 32-63 never run its shuffles
FIRST_GROUP_SCAN = """__device__ int group_scan(int lane, int v) {
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}
__global__ void offsets(const int* len, int* off, int n) {
  const int tid = threadIdx.x;
  int group = tid >> 5;
  int lane = tid & 0x1F;
  if (group == 0) {
    int carry = 0;
    for (int i = lane; i < (n + 31) / 32 * 32; i += 32) {
      int v = i < n ? len[i] : 0;
      int s = group_scan(lane, v) + carry;
      if (i < n) off[i] = s - v;
      carry = __shfl_sync(0xffffffffu, s, 31);
    }
  }
}
"""


def test_shuffles_only_the_first_group_runs_cross_nothing(nvcc, tmp_path):
    (tmp_path / "o.cu").write_text(FIRST_GROUP_SCAN)
    assert_nvcc_builds(nvcc, [tmp_path / "o.cu"], [], tmp_path)
    assert only("HZ103", FIRST_GROUP_SCAN) == []
    # every group runs the broadcast from lane 31: lanes 32-63 read the first group's
    every = FIRST_GROUP_SCAN.replace("if (group == 0) {", "{ (void)group;")
    assert 18 in [f.line for f in only("HZ103", every)]


def test_hz107_a_header_constant_its_comment_calls_the_warp_size(nvcc, tmp_path):
    """HeCBench rsmt's utils.h (a required edit of the human port): `WS` is a warp size only by
    its comment, and main.cu votes across the wavefront with it."""
    header = "#pragma once\n#include <cuda_runtime.h>\nstatic const int WS = 32;  // warp size\n"
    header += "__device__ inline int twice(int x) { return 2 * x; }\n"
    (tmp_path / "utils.h").write_text(header)
    (tmp_path / "main.cu").write_text(
        '#include "utils.h"\n__global__ void k(const int* top, int* out) {\n'
        "  const int lane = threadIdx.x % WS;\n  int n = 0;\n"
        "  for (int e = lane; __any_sync(0xffffffff, e < top[0]); e += WS) n += e < top[0];\n"
        "  out[threadIdx.x] = twice(n);\n}\n"
    )
    assert_nvcc_builds(nvcc, [tmp_path / "main.cu"], [], tmp_path)
    assert [f[:2] for f in _tree_hz107(tmp_path)] == [("utils.h", 3)]


# exllamav3's top-k (round 20): the first 32-lane group finds the bucket, the thread id under
# a name of the kernel's own (`int t = threadIdx.x;`), in a helper called only there
FIRST_GROUP_BUCKET = """__device__ void find_bucket(const int* hist, int target, int lane, int* r) {
  int v = hist[lane];
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  unsigned bal = __ballot_sync(0xffffffffu, v >= target);
  if (lane == 0) *r = __ffs(bal) - 1;
}
__global__ void topk(const int* hist, int k, int* res) {
  int t = threadIdx.x;
  int lane = t % 32;
  int warp = t / 32;
  if (warp == 0) find_bucket(hist, k, lane, res);
}
"""
# exllamav3's hc_mix: a flag keeps lanes past 31 out of a reduction over H lanes
FLAGGED_LANES = """__global__ void mix(const float* x, float* out, int h) {
  const bool sink = blockIdx.x == 0 && threadIdx.x < 32;
  if (sink) {
    const unsigned mask = (1u << h) - 1;
    if (threadIdx.x < h) {
      float m = x[threadIdx.x];
      for (int o = 1; o < h; o <<= 1) m = fmaxf(m, __shfl_xor_sync(mask, m, o));
      out[threadIdx.x] = m;
    }
  }
}
"""


def test_lanes_0_31_by_a_thread_id_of_the_kernels_own_name_or_a_flag(nvcc, tmp_path):
    for name, src in (("b.cu", FIRST_GROUP_BUCKET), ("f.cu", FLAGGED_LANES)):
        (tmp_path / name).write_text(src)
        assert_nvcc_builds(nvcc, [tmp_path / name], [], tmp_path)
    assert not {f.rule for f in findings(FIRST_GROUP_BUCKET)} & {"HZ103", "HZ105"}
    every = FIRST_GROUP_BUCKET.replace("if (warp == 0) find_bucket", "find_bucket")
    # every group calls: its 32-bit ballot loses lanes 32-63; the scan, guarded by the group
    # lane every call passes (`lane = t % 32`), stays in each group (``lane_parameters``)
    rules = {f.rule for f in findings(every)}
    assert "HZ105" in rules and "HZ103" not in rules
    assert [f for f in findings(FLAGGED_LANES) if f.rule == "HZ106" and not f.fixed] == []
    anyone = FLAGGED_LANES.replace("threadIdx.x < 32", "threadIdx.x < 64")
    assert [f.line for f in findings(anyone) if f.rule == "HZ106" and not f.fixed] == [4]


# FasterTransformer's masked attention and its copies (omniserve, round 20): each 32-lane
# group reduces, lane 0 of each group stores, every group re-reads the same slots and reduces
# them again, so both halves of a 64-lane wavefront hold the same value before the broadcast
# from lane 0
HALVES_AGREE = """#define ALL 0xffffffffu
template <int WARPS>
__device__ float block_sum(float* red, float sum) {
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  for (int mask = 16; mask >= 1; mask /= 2) sum += __shfl_xor_sync(ALL, sum, mask);
  if (lane == 0) red[warp] = sum;
  __syncthreads();
  if (lane < WARPS) sum = red[lane];
  for (int mask = WARPS / 2; mask >= 1; mask /= 2) sum += __shfl_xor_sync(ALL, sum, mask);
  return __shfl_sync(ALL, sum, 0);
}
__global__ void softmax_max(const float* x, float* out) {
  constexpr unsigned WARP_SIZE{32};
  constexpr unsigned WARPS_PER_BLOCK{256 / WARP_SIZE};
  __shared__ float red_smem[WARPS_PER_BLOCK * 2];
  const unsigned lane = threadIdx.x % WARP_SIZE;
  const unsigned warp = threadIdx.x / WARP_SIZE;
  float m = x[blockIdx.x * 256 + threadIdx.x];
  for (int mask = WARP_SIZE / 2; mask >= 1; mask /= 2)
    m = fmaxf(m, __shfl_xor_sync(ALL, m, mask));
  if (lane == 0) red_smem[warp] = m;
  __syncthreads();
  m = lane < WARPS_PER_BLOCK ? red_smem[lane] : -1e30f;
  for (int mask = WARPS_PER_BLOCK / 2; mask >= 1; mask /= 2)
    m = fmaxf(m, __shfl_xor_sync(ALL, m, mask));
  m = __shfl_sync(ALL, m, 0);
  float* slots = red_smem + WARPS_PER_BLOCK;
  out[blockIdx.x * 256 + threadIdx.x] = block_sum<WARPS_PER_BLOCK>(slots, x[threadIdx.x] - m);
}
"""


def test_a_broadcast_of_a_value_both_halves_hold_alike_crosses_nothing(nvcc, tmp_path):
    (tmp_path / "a.cu").write_text(HALVES_AGREE)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert not {f.rule for f in findings(HALVES_AGREE)} & WAVE_RULES
    # steps from 16 mix in the lanes `lane < WARPS` left with their own half's sums
    wide = HALVES_AGREE.replace("mask = WARPS / 2;", "mask = 16;")
    assert [(f.rule, f.line) for f in findings(wide) if f.rule in WAVE_RULES] == [("HZ103", 11)]
    # a value read by the hardware lane differs between the halves
    hardware = HALVES_AGREE.replace("? red_smem[lane] :", "? red_smem[threadIdx.x % 64] :")
    assert "HZ103" in {f.rule for f in findings(hardware)}
    # FasterTransformer's own block_sum (round 7): its lanes divide by a template parameter
    # that defaults to 32, which a file's other `constexpr int WARP_SIZE = 32;` does not decide
    ft = HALVES_AGREE.replace("template <int WARPS>", "template <int WARPS, int WARP_SIZE = 32>")
    ft = ft.replace(
        "int warp = threadIdx.x / 32;\n  int lane = threadIdx.x % 32;",
        "int warp = threadIdx.x / WARP_SIZE;\n  int lane = threadIdx.x % WARP_SIZE;",
    )
    assert ft != HALVES_AGREE and "% WARP_SIZE;\n  for (int mask = 16" in ft
    (tmp_path / "ft.cu").write_text(ft)
    assert_nvcc_builds(nvcc, [tmp_path / "ft.cu"], [], tmp_path)
    assert not {f.rule for f in findings(ft)} & WAVE_RULES


# namespacemarcus's softmax `block_reduce_sum_f32` (round 52): the second reduction is a call
# of the warp reduction, whose only shuffles are xor shuffles, before the broadcast
HELPER_STEPS = """#define WARP_SIZE 32
template <int kWarpSize = WARP_SIZE>
__device__ __forceinline__ float warp_sum(float val) {
  for (int stride = kWarpSize >> 1; stride >= 1; stride >>= 1)
    val += __shfl_xor_sync(0xffffffff, val, stride);
  return val;
}
template <int NUM_THREADS = 256>
__device__ float block_sum(float val) {
  constexpr int NUM_WARPS = (NUM_THREADS + WARP_SIZE - 1) / WARP_SIZE;
  int warpId = threadIdx.x / WARP_SIZE;
  int laneId = threadIdx.x % WARP_SIZE;
  __shared__ float shared[NUM_WARPS];
  float value = warp_sum<WARP_SIZE>(val);
  if (laneId == 0) shared[warpId] = value;
  __syncthreads();
  value = (laneId < NUM_WARPS) ? shared[laneId] : 0.0f;
  value = warp_sum<NUM_WARPS>(value);
  value = __shfl_sync(0xffffffff, value, 0);
  return value;
}
__global__ void total(const float* x, float* out) { out[threadIdx.x] = block_sum(x[threadIdx.x]); }
"""


def test_a_warp_reduction_helper_keeps_alike_halves_alike(nvcc, tmp_path):
    (tmp_path / "a.cu").write_text(HELPER_STEPS)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert not {f.rule for f in findings(HELPER_STEPS)} & WAVE_RULES
    # decoys: a helper that adds the lane's own index, or one that shuffles down, makes the
    # halves differ
    for helper in (
        "val += __shfl_xor_sync(0xffffffff, val, stride) + threadIdx.x;",
        "val += __shfl_down_sync(0xffffffff, val, stride);",
    ):
        other = HELPER_STEPS.replace("val += __shfl_xor_sync(0xffffffff, val, stride);", helper)
        assert ("HZ103", 19) in {(f.rule, f.line) for f in findings(other)}


def test_a_constant_the_lanes_past_the_guard_take_is_alike_in_both_halves(nvcc, tmp_path):
    # ppl.llm's attn_block_reduce_max (round 26): `if (lane_id < WPT) v = shared[lane_id];
    # else v = -FLT_MAX;` before the steps below WPT and the broadcast from lane 0
    seed = "if (lane < WARPS) sum = red[lane];"
    two_arms = HALVES_AGREE.replace(seed, seed + "\n  else sum = 0.f;")
    (tmp_path / "a.cu").write_text(two_arms)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert not {f.rule for f in findings(two_arms)} & WAVE_RULES
    # a value of the lane's own (its hardware position) differs between the halves
    own = two_arms.replace("else sum = 0.f;", "else sum = (float)threadIdx.x;")
    assert [(f.rule, f.line) for f in findings(own) if f.rule in WAVE_RULES] == [("HZ103", 12)]


# ppl.llm's sampling arg-max (round 26): each step keeps the larger of its own value and the
# one an xor shuffle received, with that value's index
ARGMAX = """#define ALL 0xffffffffu
template <int WPT>
__device__ int block_argmax(float v, float* vals, int* idxs) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  int index = threadIdx.x;
  for (int mask = 16; mask >= 1; mask /= 2) {
    float got = __shfl_xor_sync(ALL, v, mask);
    int got_index = __shfl_xor_sync(ALL, index, mask);
    if (got > v) { v = got; index = got_index; }
  }
  if (lane == 0) { vals[warp] = v; idxs[warp] = index; }
  __syncthreads();
  if (lane < WPT) { v = vals[lane]; index = idxs[lane]; }
  else { v = -1e30f; index = -1; }
  for (int mask = WPT / 2; mask >= 1; mask /= 2) {
    float got = __shfl_xor_sync(ALL, v, mask);
    int got_index = __shfl_xor_sync(ALL, index, mask);
    if (got > v) { v = got; index = got_index; }
  }
  return __shfl_sync(ALL, index, 0);
}
__global__ void argmax(const float* x, int* out) {
  __shared__ float vals[8];
  __shared__ int idxs[8];
  out[blockIdx.x] = block_argmax<8>(x[blockIdx.x * 256 + threadIdx.x], vals, idxs);
}
"""


def test_an_xor_step_may_pass_through_the_value_it_received(nvcc, tmp_path):
    (tmp_path / "a.cu").write_text(ARGMAX)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert not {f.rule for f in findings(ARGMAX)} & WAVE_RULES
    # indices read by the hardware lane differ between the halves
    hardware = ARGMAX.replace("index = idxs[lane];", "index = idxs[threadIdx.x % 64];")
    assert [(f.rule, f.line) for f in findings(hardware) if f.rule in WAVE_RULES] == [("HZ103", 21)]


# ggml's tile attention: a kernel's own constant reaches a helper as its template argument
LOCAL_TO_HELPER = """template <int warp_size>
__device__ int any_in_group(int v) {
  int lane = threadIdx.x % warp_size;
  return __any_sync(0xffffffffu, v > lane);
}
__global__ void k(int* out) {
  constexpr int warp_size = 32;
  out[threadIdx.x / warp_size] = any_in_group<warp_size>(out[threadIdx.x]);
}
"""


def test_hz107_follows_a_functions_own_constant_into_the_helpers_it_instantiates(nvcc, tmp_path):
    (tmp_path / "h.cu").write_text(LOCAL_TO_HELPER)
    assert_nvcc_builds(nvcc, [tmp_path / "h.cu"], [], tmp_path)
    assert [f.line for f in only("HZ107", LOCAL_TO_HELPER)] == [7]
    # a helper whose parameter of the same name the kernel does not set is another constant
    own = LOCAL_TO_HELPER.replace("any_in_group<warp_size>(", "any_in_group<64>(")
    assert only("HZ107", own) == []


OWN_LOCALS = """struct Matrix {
  static constexpr int WARP_SIZE = 32;
  void run(unsigned* bits, int n);
};
__global__ void upsweep(unsigned* bits, int n) {
  constexpr int WARP_SIZE = 8 * sizeof(unsigned);
  unsigned active = __activemask();
  if (threadIdx.x < n) bits[threadIdx.y * WARP_SIZE + threadIdx.x] = active;
}
void Matrix::run(unsigned* bits, int n) {
  const dim3 thread(WARP_SIZE, 256 / WARP_SIZE);
  upsweep<<<1, thread>>>(bits, n);
}
"""


def test_hz107_kernels_with_a_constant_of_their_own_are_no_evidence(nvcc, tmp_path):
    """OpenCV's wavelet matrix (round 22): a struct's `WARP_SIZE = 32` sizes launches on the
    host, while each kernel declares its own `WARP_SIZE` (its truncated `__activemask()` is
    HZ105's): no wavefront use of the struct's constant.  A kernel that uses the struct's
    constant itself is evidence again."""
    (tmp_path / "m.cu").write_text(OWN_LOCALS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "m.cu"), "-o", str(tmp_path / "m.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert only("HZ107", OWN_LOCALS) == []
    assert [f.line for f in only("HZ105", OWN_LOCALS)] == [7]
    shared = OWN_LOCALS.replace(
        "  constexpr int WARP_SIZE = 8 * sizeof(unsigned);\n",
        "  const int lane = threadIdx.x % Matrix::WARP_SIZE;\n",
    ).replace("= active;", "= (__ballot_sync(~0u, n > 0) >> lane) & active;")
    assert [f.line for f in only("HZ107", shared)] == [2]


ROWS_OF_WARPS = """constexpr int kRows = 4;
__global__ void gather(const int* idx, float* out, int L) {
  constexpr int kWarpSize = 32;
  int lane_id = threadIdx.x;
  int warp_id = threadIdx.y;
  for (int r = 0; r < L; r += kWarpSize) {
    int l = r + lane_id < L ? idx[r + lane_id] : 0;
    for (int j = 0; j < kWarpSize && r + j < L; ++j) {
      int j_ev = __shfl_sync(0xFFFFFFFF, l, j);
      out[(warp_id * kRows + j_ev) * kWarpSize + lane_id] += 1.0f;
    }
  }
}
"""


def test_hz103_a_kernel_that_names_its_rows_warps_is_group_code(nvcc, tmp_path):
    """HugeCTR's unlaunched `..._network_kernel` (round 22): `lane_id = threadIdx.x`,
    `warp_id = threadIdx.y` make each row a CUDA warp of 32, as its launched siblings' rows
    are; the broadcast from lane `j` is HZ103's (their rows were judged true), not evidence
    that the kernel's `kWarpSize` is the hardware's."""
    (tmp_path / "g.cu").write_text(ROWS_OF_WARPS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "g.cu"), "-o", str(tmp_path / "g.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert [f.line for f in only("HZ103", ROWS_OF_WARPS)] == [9]
    assert only("HZ107", ROWS_OF_WARPS) == []
    unnamed = ROWS_OF_WARPS.replace("int warp_id = threadIdx.y;", "int warp_id = blockIdx.y;")
    assert [f.line for f in only("HZ107", unnamed)] == [3]


MACRO_KERNEL_SCAN = """#include <cstdint>
#define MY_GLOBAL __global__
// DeepGEMM's scheduler metadata kernel: one 32-thread block scans in 32-element steps, its
// __global__ spelled by a library macro (CUTLASS_GLOBAL) and launched from a JIT elsewhere
template <uint32_t kBatch>
MY_GLOBAL __launch_bounds__(32, 1) void scan(const uint32_t* lens, uint32_t* prefix) {
  const uint32_t lane = threadIdx.x % 32;
  uint32_t sum = 0;
  for (uint32_t k = 0; k < kBatch / 32; ++k) {
    uint32_t x = lens[k * 32 + lane];
    for (uint32_t offset = 1; offset < 32; offset <<= 1) {
      const uint32_t y = __shfl_up_sync(0xffffffff, x, offset);
      x += (lane >= offset ? y : 0);
    }
    x += sum;
    prefix[k * 32 + lane] = x;
    sum = __shfl_sync(0xffffffff, x, 31);
  }
}
template __global__ void scan<128>(const uint32_t*, uint32_t*);
"""


def test_hz103_a_macro_spelled_kernel_of_32_threads_has_no_upper_lanes(nvcc, tmp_path):
    """DeepGEMM (round 23): `__launch_bounds__(32, 1)` makes it a kernel of one 32-lane group
    whatever macro spells its __global__; bounds of 128 threads leave lanes 32-63 reading
    lane 31 of the other group."""
    (tmp_path / "s.cu").write_text(MACRO_KERNEL_SCAN)
    assert_nvcc_builds(nvcc, [tmp_path / "s.cu"], [], tmp_path)
    assert only("HZ103", MACRO_KERNEL_SCAN) == []
    wide = MACRO_KERNEL_SCAN.replace("__launch_bounds__(32, 1)", "__launch_bounds__(128, 1)")
    assert [f.line for f in only("HZ103", wide)] == [17]


OWN_C10_WARP_SIZE = """#define C10_WARP_SIZE 32
// a teaching copy of PyTorch's block reduction (round 25) with its own C10_WARP_SIZE
__device__ float warp_sum(float val) {
  for (int offset = C10_WARP_SIZE >> 1; offset > 0; offset >>= 1)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}
struct Block1D {
  static __device__ int Warps() { return blockDim.x / C10_WARP_SIZE; }
};
__global__ void block_sum(const float* x, float* out) {
  __shared__ float shared[C10_WARP_SIZE];
  const int tid = threadIdx.x;
  const int lid = tid % C10_WARP_SIZE;
  const int wid = tid / C10_WARP_SIZE;
  float val = warp_sum(x[blockIdx.x * blockDim.x + tid]);
  if (lid == 0) shared[wid] = val;
  __syncthreads();
  val = (tid < Block1D::Warps()) ? shared[lid] : 0.f;
  if (wid == 0) val = warp_sum(val);
  if (tid == 0) out[blockIdx.x] = val;
}
"""


def test_a_file_s_own_c10_warp_size_of_32_is_its_constant(nvcc, tmp_path):
    """PyTorch's C10_WARP_SIZE is the platform's wavefront size (64 on ROCm), but a file that
    defines it as 32 itself works in 32-lane groups (how-to-optim-algorithm-in-cuda, round 25:
    two false HZ101 at `blockDim.x / C10_WARP_SIZE`)."""
    (tmp_path / "r.cu").write_text(OWN_C10_WARP_SIZE)
    assert_nvcc_builds(nvcc, [tmp_path / "r.cu"], [], tmp_path)
    assert only("HZ101", OWN_C10_WARP_SIZE) == []


# CV-CUDA's Otsu scan (round 29): one `temp` takes each step's shifted value, and each step's
# guard admits only the lanes whose source stays in their group, until `temp` is assigned anew
REUSED_SCAN = """__global__ void otsu(const float* in, float* out) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float q1 = in[threadIdx.x];
  float temp = __shfl_up_sync(0xffffffff, q1, 1);
  if (lane >= 1)
    q1 += temp;
  temp = __shfl_up_sync(0xffffffff, q1, 2);
  if (lane >= 2)
    q1 += temp;
  temp = __shfl_up_sync(0xffffffff, q1, 4);
  if (lane >= 4)
    q1 += temp;
  out[threadIdx.x] = q1 + warp;
}
"""


def test_a_scan_that_reuses_one_variable_for_every_step_is_no_finding(nvcc, tmp_path):
    src = tmp_path / "otsu.cu"
    src.write_text(REUSED_SCAN)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert not {f.rule for f in findings(REUSED_SCAN)} & WAVE_RULES
    # decoy: a use past a step's guard reads the other group's lanes
    unguarded = REUSED_SCAN.replace("  if (lane >= 4)\n    q1 += temp;", "  q1 += temp;")
    assert ("HZ103", 10) in {(f.rule, f.line) for f in findings(unguarded)}


# StringZilla's multi-word carries (round 30): lane 0 of each 32-lane group takes a constant,
# the others their lower neighbour's carry, through `?:` or through a helper given the lane
GROUP_CARRIES = """__device__ void pick_left(unsigned lane, const int* me, const int* up, int* o) {
  if (lane == 0) { o[0] = me[0]; o[1] = me[1]; }
  else { o[0] = up[0]; o[1] = up[1]; }
}
__global__ void carries(const unsigned long long* in, unsigned long long* out, int* edges) {
  unsigned lane = threadIdx.x & 31u, word = threadIdx.x >> 5;
  unsigned long long g = in[threadIdx.x];
  unsigned long long below = __shfl_up_sync(0xffffffffu, g, 1);
  unsigned long long carry = (lane == 0) ? 0ull : below;
  int right[2], shifted[2], left[2];
  for (int e = 0; e < 2; ++e) right[e] = edges[threadIdx.x * 2 + e];
  for (int e = 0; e < 2; ++e) shifted[e] = __shfl_up_sync(0xffffffffu, right[e], 1);
  pick_left(lane, right, shifted, left);
  out[threadIdx.x] = g + carry + word + left[0] + left[1];
}
"""


def test_a_shift_up_read_only_past_the_group_s_first_lane_is_no_finding(nvcc, tmp_path):
    src = tmp_path / "carries.cu"
    src.write_text(GROUP_CARRIES)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ103", GROUP_CARRIES) == []
    # decoys: lane 0's test also lets other lanes in, or the helper is not told the lane
    mixed = GROUP_CARRIES.replace("(lane == 0) ?", "(lane == 0 && word) ?")
    assert [f.line for f in only("HZ103", mixed)] == [8]
    blind = GROUP_CARRIES.replace("pick_left(lane, right,", "pick_left(word, right,")
    assert [f.line for f in only("HZ103", blind)] == [12]


# GenomeWorks' Myers aligner (round 31): one 32-thread block per alignment, the carry helper
# three calls below the kernel, a vote and a shift inside it, and the premise asserted
BLOCK_OF_32_CHAIN = """#include <cassert>
constexpr int warp_size = 32;
__device__ unsigned add_carry(unsigned mask, unsigned a, unsigned b) {
  assert(((mask >> (threadIdx.x % warp_size)) & 1u) == 1u);
  unsigned long long r = (unsigned long long)a + b;
  unsigned carry = (unsigned)(r >> 32);
  r &= 0xffffffffull;
  while (__any_sync(mask, carry)) {
    unsigned x = __shfl_up_sync(mask, carry, 1);
    if (threadIdx.x != 0) r += x;
    carry = (unsigned)(r >> 32);
    r &= 0xffffffffull;
  }
  return (unsigned)r;
}
__device__ unsigned advance(unsigned mask, unsigned a) { return add_carry(mask, a, a); }
__device__ unsigned band(unsigned mask, unsigned a) { return advance(mask, a); }
__global__ void align(unsigned* x) {
  assert(warpSize == warp_size);
  x[threadIdx.x] = band(0xffffffffu, x[threadIdx.x]);
}
void run(unsigned* x, cudaStream_t s) {
  const dim3 threads(warp_size, 1, 1);
  align<<<1, threads, 0, s>>>(x);
}
"""


def test_a_helper_deep_below_kernels_of_32_thread_blocks_is_no_wavefront_code(nvcc, tmp_path):
    src = tmp_path / "myers.cu"
    src.write_text(BLOCK_OF_32_CHAIN)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ107", BLOCK_OF_32_CHAIN) == []
    # decoy: blocks of 64 threads put two alignments' lanes in one wavefront
    wide = BLOCK_OF_32_CHAIN.replace("threads(warp_size, 1, 1)", "threads(2 * warp_size, 1, 1)")
    assert [f.line for f in only("HZ107", wide)] == [2]


# consistent 32-lane groups that assert the warp width they were written for
ASSERTED_GROUPS = """#include <cassert>
constexpr int warp_size = 32;
__global__ void group_sums(const float* x, float* out) {
  assert(warpSize == warp_size);
  int lane = threadIdx.x % warp_size, group = threadIdx.x / warp_size;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warp_size / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, warp_size);
  if (lane == 0) out[blockIdx.x * (blockDim.x / warp_size) + group] = v;
}
"""


def test_an_asserted_warp_width_is_a_premise_not_hardware_warp_code(nvcc, tmp_path):
    src = tmp_path / "groups.cu"
    src.write_text(ASSERTED_GROUPS)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert not {f.rule for f in findings(ASSERTED_GROUPS)} & WAVE_RULES
    # decoy: the same comparison choosing a path is code of the hardware warp
    chosen = ASSERTED_GROUPS.replace(
        "  assert(warpSize == warp_size);\n", "  if (warpSize != warp_size) return;\n"
    )
    assert {f.rule for f in findings(chosen)} & WAVE_RULES


# warp-rnnt's alphas (round 32): blocks of 32 x 2 threads, each row one 32-lane scan, the
# premise asserted; a Hillis-Steele scan (`if (i <= d)`) and a ripple by 1 (`if (i == d)`)
ROW_SCANS = """#include <cassert>
#define W 32
__device__ void row_scans(float* out, const float* in) {
  unsigned int d = threadIdx.x;
  assert(blockDim.x == W);
  float b = in[threadIdx.y * W + d], a;
  for (unsigned int i = 1; i < W; i *= 2) {
    a = __shfl_up_sync(0xffffffff, b, i);
    if (i <= d) b += a;
  }
  float r = b, kept = b;
  for (unsigned int i = 1; i < W; i++) {
    r = __shfl_up_sync(0xffffffff, r, 1);
    if (i == d) {
      r = fmaxf(r, b);
      kept = r;
    }
  }
  out[threadIdx.y * W + d] = kept;
}
__global__ void scans(float* out, const float* in) { row_scans(out, in); }
void run(float* out, const float* in) { scans<<<1, dim3(W, 2)>>>(out, in); }
"""


def test_scans_guarded_by_the_lane_of_a_row_of_32_threads_are_no_finding(nvcc, tmp_path):
    src = tmp_path / "rows.cu"
    src.write_text(ROW_SCANS)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ103", ROW_SCANS) == []
    # decoys: rows that are not asserted, a guard that lets the low lanes in, a ripple
    # counted from 0 (lane 0 of the upper row takes the lower row's last value)
    unasserted = ROW_SCANS.replace("  assert(blockDim.x == W);\n", "")
    assert [f.line for f in only("HZ103", unasserted)] == [7]
    assert [f.line for f in only("HZ103", ROW_SCANS.replace("i <= d", "i >= d"))] == [8]
    from_zero = ROW_SCANS.replace(
        "for (unsigned int i = 1; i < W; i++)", "for (unsigned i = 0; i < W; i++)"
    )
    assert [f.line for f in only("HZ103", from_zero)] == [13]


# oneflow's layer norm (round 32): group helpers whose width is a template parameter that
# defaults to the file's warp-size constant
DEFAULT_GROUP_WIDTH = """constexpr int kWarpSize = 32;
template <typename T, int thread_group_width = kWarpSize>
__device__ void group_all_reduce(T* mean) {
  for (int mask = thread_group_width / 2; mask > 0; mask /= 2)
    *mean += __shfl_xor_sync(0xffffffff, *mean, mask, thread_group_width);
  *mean = __shfl_sync(0xffffffff, *mean, 0, thread_group_width);
}
__global__ void rows(float* x) {
  float m = x[threadIdx.x];
  group_all_reduce<float>(&m);
  x[threadIdx.x] = m;
}
"""


def test_a_width_that_defaults_to_the_files_constant_of_32_is_group_code(nvcc, tmp_path):
    src = tmp_path / "layer_norm.cu"
    src.write_text(DEFAULT_GROUP_WIDTH)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    for path in ("layer_norm.cu", "layer_norm.cuh"):
        assert [f.rule for f in findings(DEFAULT_GROUP_WIDTH, path) if f.rule in WAVE_RULES] == []
    # decoy: the broadcast without its width reads lane 0 of the wavefront
    wide = DEFAULT_GROUP_WIDTH.replace("*mean, 0, thread_group_width)", "*mean, 0)")
    assert [f.rule for f in findings(wide) if f.rule in WAVE_RULES] == ["HZ103"]


FRAGS = "#pragma once\n#include <cuda_runtime.h>\n#define WARP_SIZE 32U\n"


def test_hz107_a_header_whose_includer_defines_the_constant_again_is_not_the_fix(nvcc, tmp_path):
    """flash-fft-conv's sub-headers (round 17: 4 false HZ107) define `WARP_SIZE 32` and never
    use it; the header that includes them defines it again before its kernels, so the votes
    below it take that header's value: it is the one reported, not the sub-header."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "frags.h").write_text(FRAGS)
    (tmp_path / "common.h").write_text(
        HEADER_CONSTANT.replace(
            "#define WARP_SIZE 32U",
            '#include "shared/frags.h"\n#undef WARP_SIZE\n#define WARP_SIZE 32U',
        )
    )
    (tmp_path / "votes.cu").write_text(VOTE_USER)
    assert_nvcc_builds(nvcc, [tmp_path / "votes.cu"], [], tmp_path)
    assert [f[:2] for f in _tree_hz107(tmp_path)] == [("common.h", 5)]
    # decoy: the includer does not define it: the sub-header's value is the one the votes use
    (tmp_path / "common.h").write_text(
        HEADER_CONSTANT.replace("#define WARP_SIZE 32U", '#include "shared/frags.h"')
    )
    assert [f[:2] for f in _tree_hz107(tmp_path)] == [("frags.h", 3)]


# PyTorch-Encoding's and inplace_abn's helpers (round 34): a shuffle wrapper whose width
# defaults to the hardware warp, called with the file's 32 by a group sum
DEFAULTED_WIDTH = """static const unsigned WARP_SIZE = 32;
template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize,
                                           unsigned long long mask = 0xffffffffull) {
  return __shfl_xor_sync(mask, value, laneMask, width);
}
template <typename T>
__device__ T warpSum(T val) {
  for (int i = 1; i < WARP_SIZE; i <<= 1) val += WARP_SHFL_XOR(val, i, WARP_SIZE);
  return val;
}
__global__ void block_sum(const float* x, float* out) {
  __shared__ float shared[32];
  float sum = warpSum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x % WARP_SIZE == 0) shared[threadIdx.x / WARP_SIZE] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (unsigned g = 0; g < blockDim.x / WARP_SIZE; ++g) total += shared[g];
    out[blockIdx.x] = total;
  }
}
"""


def test_hz107_a_hardware_width_default_every_call_overrides_is_no_evidence(nvcc, tmp_path):
    src = tmp_path / "common.cu"
    src.write_text(DEFAULTED_WIDTH)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert [f.rule for f in findings(DEFAULTED_WIDTH) if f.rule in WAVE_RULES] == []
    # decoy: a call that leaves the width to its default sums the whole wavefront, so the
    # group's slot of 32 lanes holds two groups' sums
    wide = DEFAULTED_WIDTH.replace("WARP_SHFL_XOR(val, i, WARP_SIZE)", "WARP_SHFL_XOR(val, i)")
    assert [f.rule for f in findings(wide) if f.rule in WAVE_RULES] == ["HZ107"]


def test_hz107_an_explicit_specialisation_takes_its_templates_default_width(nvcc, tmp_path):
    """cuda-kernel-study's shuffle demo (round 44, a false HZ107): `width = warp_size` is
    the primary template's default; the `__half` specialisation restates no default, yet
    its shuffle works in the same 32-lane groups."""
    src = tmp_path / "shuffle.cu"
    src.write_text(SPECIALISED_WIDTH)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert [f.rule for f in findings(SPECIALISED_WIDTH) if f.rule in WAVE_RULES] == []
    # decoy: a specialisation that shuffles without its width reads across the groups
    wide = SPECIALISED_WIDTH.replace(
        "var, src_lane, width);\n    vars[idx] = var;\n  }\n}\nvoid",
        "var, src_lane);\n    vars[idx] = var;\n  }\n}\nvoid",
    )
    assert wide != SPECIALISED_WIDTH
    assert [f.rule for f in findings(wide) if f.rule in WAVE_RULES] == ["HZ107"]


SPECIALISED_WIDTH = """#include <cuda_fp16.h>
constexpr int warp_size = 32;
template <typename T>
__global__ void broadcast_kernel(T* vars, int src_lane, int n, int width = warp_size) {
  int idx = blockDim.x * blockIdx.x + threadIdx.x;
  if (idx < n) {
    T var = vars[idx];
    var = __shfl_sync(0xffffffff, var, src_lane, width);
    vars[idx] = var;
  }
}
template <>
__global__ void broadcast_kernel(__half* vars, int src_lane, int n, int width) {
  int idx = blockDim.x * blockIdx.x + threadIdx.x;
  if (idx < n) {
    __half var = vars[idx];
    var = __shfl_sync(0xffffffff, var, src_lane, width);
    vars[idx] = var;
  }
}
void broadcast(__half* d, int src_lane, int n, int width = warp_size) {
  broadcast_kernel<<<(n + 255) / 256, 256>>>(d, src_lane, n, width);
}
"""
