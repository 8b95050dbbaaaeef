"""HZ109: host launch geometry and per-warp shared arrays that count 32 threads per warp,
for kernels that take their warps from warpSize (64 on MI300X)."""

from __future__ import annotations

import subprocess

from test_hazard_common import only

# rows of a matrix per hardware warp: the host sizes blocks as 32 threads per row, and a
# shared array holds 32 entries per warp but is indexed by `F * lane`, lane < warpSize
HARDWARE_ROWS = """#include <cuda_runtime.h>
template <int F>
__global__ void matvec(const int4* A, const int4* B, float* C, int rows, int k) {
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  int lane = threadIdx.x % warpSize;
  __shared__ int4 sh_b[32 * F];
  for (int i = threadIdx.x; i < 32 * F && i < k; i += blockDim.x) sh_b[i] = B[i];
  __syncthreads();
  int b_sh = F * lane;
  float res = 0.f;
  if (row < rows) res = A[row].x * sh_b[b_sh].x;
  for (int o = warpSize / 2; o > 0; o /= 2) res += __shfl_down_sync(0xffffffffu, res, o);
  if (lane == 0 && row < rows) C[row] = res;
}
__global__ void rows_per_warp(const float* a, float* c, int rows) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  if (warp < rows && threadIdx.x % warpSize == 0) c[warp] = a[warp];
}
void run(const int4* A, const int4* B, float* C, float* c, int rows, int k) {
  int thread_m = 8;
  int blocks = (rows + thread_m - 1) / thread_m;
  int threads = 32 * thread_m;
  matvec<4><<<blocks, threads>>>(A, B, C, rows, k);
  rows_per_warp<<<(rows * 32 + 255) / 256, 256>>>(C, c, rows);
}
"""

# consistent geometry: the grid counts blocks of `32 * per_block` threads, a 32-lane group
# kernel, a 32 x 33 transpose tile indexed by thread ids
DECOYS = """#include <cuda_runtime.h>
// the kernel adapts to warpSize and the grid does not count warps: right on 64 lanes
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float part[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % warpSize == 0) part[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += part[w];
    atomicAdd(out, s);
  }
}
// consistent 32-lane groups: 32 threads per row is right on any wave size
__global__ void group_rows(const float* a, float* c, int rows) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (row < rows && (threadIdx.x & 31) == 0) c[row] = a[row];
}
__global__ void tiled(float* t) {
  __shared__ float tile[32 * 33];
  tile[threadIdx.y * 33 + threadIdx.x] = t[threadIdx.x];
  t[threadIdx.x] = tile[threadIdx.x * 33 + threadIdx.y] + warpSize;
}
// KarhouTam's softmax (round 45): a grid-stride loop over warps; with half the warps each
// takes two rows and none is left
__global__ void row_max(const float* x, float* y, int M, int N) {
  const int warpsPerBlock = blockDim.x / warpSize;
  const int numWarps = warpsPerBlock * gridDim.x;
  const int lane = threadIdx.x % warpSize;
  for (int m = warpsPerBlock * blockIdx.x + threadIdx.x / warpSize; m < M; m += numWarps) {
    float v = -1e30f;
    for (int i = lane; i < N; i += warpSize) v = fmaxf(v, x[m * N + i]);
    for (int o = warpSize / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) y[m] = v;
  }
}
void run(const float* in, float* out, float* c, int n, int rows) {
  row_max<<<(rows * 32 + 127) / 128, 128>>>(in, out, rows, n);
  const int per_block = 8;
  block_sum<<<(n + 32 * per_block - 1) / (32 * per_block), 32 * per_block>>>(in, out, n);
  group_rows<<<(rows * 32 + 255) / 256, 256>>>(in, c, rows);
  tiled<<<1, dim3(32, 32)>>>(out);
}
"""


def test_inputs_are_real_cuda(nvcc, tmp_path):
    for n, src in enumerate((HARDWARE_ROWS, DECOYS)):
        f = tmp_path / f"g{n}.cu"
        f.write_text(src)
        proc = subprocess.run(
            [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / f"g{n}.o")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr


def test_32_per_warp_geometry_of_hardware_warp_kernels_is_reported():
    found = only("HZ109", HARDWARE_ROWS)
    assert [(f.line, f.column) for f in found] == [(6, 24), (22, 17), (24, 27)]
    assert found[1].extra["related_lines"] == "23" and "`matvec`" in found[1].message
    assert "`sh_b` holds 32 entries per warp" in found[0].message


def test_consistent_geometry_is_silent():
    assert only("HZ109", DECOYS) == []
    # decoy of the decoy: without its grid stride the kernel leaves half the rows
    one_pass = DECOYS.replace("m < M; m += numWarps", "m < M; m += M")
    assert [f.line for f in only("HZ109", one_pass)] == [40]


def test_a_block_that_does_not_size_the_grid_is_silent():
    src = HARDWARE_ROWS.replace("(rows + thread_m - 1) / thread_m", "(rows + 255) / 256")
    assert [f.line for f in only("HZ109", src)] == [6, 24]


# the kernel lives in a header this file includes: only the comment says the 32 is a warp
HEADER_KERNEL = """#pragma once
__global__ void scatter(float* out) {
  int t = threadIdx.y * warpSize + threadIdx.x;
  out[blockIdx.x * blockDim.x * blockDim.y + t] += 1.f;
}
"""

COMMENTED_HOST = """#include "scatter.h"
void run(float* out, int n) {
  int thread_x = 32; //warpSize;
  int thread_y = 1024 / 32; //warpSize;
  dim3 threads(thread_x, thread_y);
  scatter<<<n, threads>>>(out);
  int tile = 32;  // tile width
  scatter<<<n, dim3(tile, tile)>>>(out);
}
"""


def test_inputs_with_a_header_kernel_are_real_cuda(nvcc, tmp_path):
    (tmp_path / "scatter.h").write_text(HEADER_KERNEL)
    f = tmp_path / "host.cu"
    f.write_text(COMMENTED_HOST)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / "host.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


def test_a_32_its_comment_calls_the_warp_size_is_reported_for_a_kernel_of_another_file():
    found = only("HZ109", COMMENTED_HOST)
    assert [(f.line, f.column, f.severity.value) for f in found] == [(3, 18, "warning")]
    assert "`scatter`" in found[0].message and found[0].extra["related_lines"] == "6"


def test_a_32_without_such_a_comment_or_for_a_kernel_of_this_file_is_silent():
    assert only("HZ109", COMMENTED_HOST.replace("//warpSize", "// x")) == []
    assert only("HZ109", HEADER_KERNEL.replace("#pragma once", "") + COMMENTED_HOST[21:]) == []
