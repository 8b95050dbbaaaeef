"""HZ2xx: synchronisation and scheduling."""

from __future__ import annotations

import subprocess

from test_hazard_common import fixed, only

# nvcc -arch=sm_90 -c accepts it: a warp reduction with plain barriers, and a handshake
# where only the lower half-warp reaches the barrier
SYNCWARPS = """__global__ void k(float* s, int* flag) {
  int lane = threadIdx.x & 31;
  s[lane] += s[lane + 16];
  __syncwarp();
  s[lane] += s[lane + 8];
  __syncwarp();
  if (lane < 16) {
    s[lane] = 1.f;
    __syncwarp(0xffffu);
  }
}
"""


def test_hz201_reports_only_a_syncwarp_reached_while_diverged(nvcc, tmp_path):
    (f,) = only("HZ201", SYNCWARPS)
    assert f.line == 9 and f.severity.value == "info"
    assert "independent thread scheduling" in f.message
    cu = tmp_path / "s.cu"
    cu.write_text(SYNCWARPS)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "s.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


def test_hz202_spin_lock_in_device_code():
    src = """__device__ int lock;
__device__ void crit(float* x) {
  while (atomicCAS(&lock, 0, 1) != 0) {}
  x[0] += 1;
  atomicExch(&lock, 0);
}"""
    assert [f.line for f in only("HZ202", src)] == [3]


def test_hz202_negatives_lock_released_in_the_loop_and_host_code():
    src = """__device__ int lock;
__device__ void crit(float* x) {
  bool done = false;
  while (!done) {
    if (atomicCAS(&lock, 0, 1) == 0) { x[0] += 1; atomicExch(&lock, 0); done = true; }
  }
}
void host(int* flag) { while (atomicExch(flag, 0)) {} }"""
    assert only("HZ202", src) == []


def test_hz203_barrier_under_thread_dependent_conditions():
    src = """__global__ void k(float* s, int n) {
  int tid = threadIdx.x;
  if (tid < 32) {
    s[tid] += 1;
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) { s[i] = 0; __syncthreads(); }
  int lane = tid & 63;
  if (lane == 0) __syncthreads();
  if (n > 0) { } else if (tid) { __syncthreads(); }
}"""
    found = only("HZ203", src)
    assert [f.line for f in found] == [5, 7, 9, 10]
    assert "`tid < 32`" in found[0].message


def test_hz203_uniform_conditions_do_not_fire():
    src = """__global__ void reduce(float* s, int n) {
  int tid = threadIdx.x;
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (n > 128) { __syncthreads(); }
  if (blockIdx.x == 0) __syncthreads();
  if (tid == 0) s[0] = 1;
  __syncthreads();
}"""
    assert only("HZ203", src) == []


def test_hz204_launch_bounds_second_argument_and_unsafe_fix():
    src = (
        "__global__ void __launch_bounds__(256, 2) k(float* x) { x[0] = 1; }\n"
        "__global__ void __launch_bounds__(128) k2(float* x) { x[0] = 1; }\n"
    )
    (f,) = only("HZ204", src)
    assert f.line == 1 and not f.fix.safe
    assert "__launch_bounds__(256, 16)" in fixed(src, unsafe_fixes=True)
    assert "__launch_bounds__(256, 2)" in fixed(src)


def test_hz204_hip_side_reports_without_fix():
    src = (
        "#include <hip/hip_runtime.h>\n"
        "__global__ void __launch_bounds__(256, 4) k(float* x) { x[0] = 1; }\n"
    )
    (f,) = only("HZ204", src, "t.hip")
    assert f.fix is None and "check it was converted" in f.message


def test_hz205_grid_sync_however_launched():
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x) {
  cg::grid_group grid = cg::this_grid();
  x[grid.thread_rank()] = 1;
  grid.sync();
}
void run(float* x) { k<<<80, 256>>>(x); }"""
    [plain] = only("HZ205", src)
    assert plain.line == 6 and "needs a cooperative launch" in plain.message
    coop = src.replace(
        "k<<<80, 256>>>(x);", "void* a[] = {&x}; cudaLaunchCooperativeKernel((void*)k, 80, 256, a);"
    )
    [launched] = only("HZ205", coop)
    assert launched.line == 6 and "co-resident" in launched.message


def test_hz205_block_sync_is_not_grid_sync():
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(float* x) { auto b = cg::this_thread_block(); x[0] = 1; b.sync(); }"""
    assert only("HZ205", src) == []
