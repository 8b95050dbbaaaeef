"""Throughput and memory of `convert` on a generated corpus of realistic CUDA files.

Usage: python benchmarks/bench_convert.py [--files 300] [--jobs 1] [--no-hazards]

Each generated file is ~200 lines: includes, a templated reduction kernel with shared memory and
warp shuffles, an element-wise and shared-memory transpose kernels, error-check macros, and host
code with allocation, pinned and device copies, streams, events, cuBLAS and several launch forms.
Files differ in names and constants so no cache can short-circuit the work. Prints files/s,
lines/s and peak RSS for growing corpus sizes (memory should stay flat as the number of files
grows).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from hipify_py.context import Context, Options
from hipify_py.discover import walk
from hipify_py.mappings import load_index
from hipify_py.runner import run

TEMPLATE = """// generated benchmark file {i}
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(call)                                                      \\
  do {{                                                                        \\
    cudaError_t err_ = (call);                                                \\
    if (err_ != cudaSuccess) {{                                                \\
      fprintf(stderr, "%s:%d %s\\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \\
      return err_;                                                            \\
    }}                                                                         \\
  }} while (0)

namespace bench{i} {{

constexpr int kBlock = {block};

template <typename T, int BLOCK>
__global__ void reduce_sum(const T* __restrict__ in, T* __restrict__ out, int n) {{
  __shared__ T partial[BLOCK / 32];
  int tid = threadIdx.x;
  int idx = blockIdx.x * BLOCK + tid;
  T v = idx < n ? in[idx] : T(0);
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  int lane = tid & 31;
  int warp = tid >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {{
    v = lane < BLOCK / 32 ? partial[lane] : T(0);
    for (int offset = 16; offset > 0; offset /= 2)
      v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0) atomicAdd(out, v);
  }}
}}

__global__ void saxpy(int n, float a, const float* x, float* y) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + {scale}.0f;
}}

__global__ void scale_rows(float* m, int rows, int cols, const float* s) {{
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) m[r * cols + c] *= s[r];
}}

__device__ float clampf(float v, float lo, float hi) {{ return fminf(fmaxf(v, lo), hi); }}

__global__ void clamp_kernel(float* p, int n, float lo, float hi) {{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = clampf(p[i], lo, hi);
}}

constexpr int kTile = 32;

__global__ void transpose(float* out, const float* in, int width, int height) {{
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}}

cudaError_t run_transpose(float* out, const float* in, int width, int height,
                          cudaStream_t stream) {{
  dim3 block(kTile, kTile);
  dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  transpose<<<grid, block, 0, stream>>>(out, in, width, height);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {{
    fprintf(stderr, "transpose {i}: %s\\n", cudaGetErrorString(err));
    return err;
  }}
  return cudaStreamSynchronize(stream);
}}

cudaError_t copy_pinned(std::vector<float>& host, int n) {{
  float* pinned = nullptr;
  float* device = nullptr;
  CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&device, n * sizeof(float)));
  for (int k = 0; k < n; ++k) pinned[k] = host[k] * {scale}.5f;
  CUDA_CHECK(cudaMemcpy(device, pinned, n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(pinned, device, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int k = 0; k < n; ++k) host[k] = pinned[k];
  CUDA_CHECK(cudaFree(device));
  CUDA_CHECK(cudaFreeHost(pinned));
  return cudaSuccess;
}}

struct DeviceBuffer {{
  float* ptr = nullptr;
  size_t bytes = 0;
  cudaError_t allocate(size_t n) {{
    bytes = n * sizeof(float);
    return cudaMalloc(&ptr, bytes);
  }}
  ~DeviceBuffer() {{ if (ptr) cudaFree(ptr); }}
}};

cudaError_t run_saxpy(int n, float a, const std::vector<float>& hx, std::vector<float>& hy) {{
  DeviceBuffer x, y;
  CUDA_CHECK(x.allocate(n));
  CUDA_CHECK(y.allocate(n));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaMemcpyAsync(x.ptr, hx.data(), x.bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(y.ptr, hy.data(), y.bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(start, stream));
  int blocks = (n + kBlock - 1) / kBlock;
  saxpy<<<blocks, kBlock, 0, stream>>>(n, a, x.ptr, y.ptr);
  CUDA_CHECK(cudaGetLastError());
  clamp_kernel<<<dim3(blocks), dim3(kBlock), 0, stream>>>(y.ptr, n, -1.0f, 1.0f);
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaMemcpyAsync(hy.data(), y.ptr, y.bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaStreamDestroy(stream));
  printf("saxpy {i}: %f ms\\n", ms);
  return cudaSuccess;
}}

cudaError_t run_reduce(const std::vector<float>& h, float* result) {{
  int n = static_cast<int>(h.size());
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  CUDA_CHECK(cudaMemset(d_out, 0, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  reduce_sum<float, kBlock><<<(n + kBlock - 1) / kBlock, kBlock>>>(d_in, d_out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(result, d_out, sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return cudaSuccess;
}}

cudaError_t run_scale(float* m, const float* s, int rows, int cols) {{
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  scale_rows<<<grid, block>>>(m, rows, cols, s);
  return cudaGetLastError();
}}

int run_gemm(int n) {{
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  float *a, *b, *c;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &alpha, a, n, b, n, &beta, c, n);
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}}

int query_device() {{
  int count = 0;
  cudaGetDeviceCount(&count);
  for (int d = 0; d < count; ++d) {{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, d);
    printf("%d: %s, %d SMs, warp %d\\n", d, prop.name, prop.multiProcessorCount, prop.warpSize);
    cudaSetDevice(d);
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
  }}
  return count;
}}

}}  // namespace bench{i}

int main_{i}() {{
  std::vector<float> x(1 << 16, 1.0f), y(1 << 16, 2.0f);
  if (bench{i}::run_saxpy(static_cast<int>(x.size()), 2.0f, x, y) != cudaSuccess) return 1;
  float sum = 0.0f;
  if (bench{i}::run_reduce(x, &sum) != cudaSuccess) return 1;
  bench{i}::query_device();
  return bench{i}::run_gemm(64) + (sum > 0 ? 0 : 1);
}}
"""


def generate(root: Path, count: int) -> int:
    lines = 0
    for i in range(count):
        text = TEMPLATE.format(i=i, block=128 << (i % 3), scale=i % 7)
        (root / f"file_{i:05d}.cu").write_text(text)
        lines += text.count("\n")
    return lines


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-hazards", action="store_true")
    args = parser.parse_args()

    ctx = Context(Options(), load_index())
    mode = "rewrite" if args.no_hazards else "convert"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lines = generate(root, args.files)
        files = list(walk([root]))
        # warm up: first parse in a process loads libclang
        for _ in run(files[:2], ctx, jobs=1, mode=mode):
            pass
        print(
            f"corpus: {len(files)} files, {lines} lines ({lines // len(files)} per file); "
            f"jobs={args.jobs}, hazards={'off' if args.no_hazards else 'on'}"
        )
        for fraction in (0.25, 0.5, 1.0):
            subset = files[: max(1, int(len(files) * fraction))]
            start = time.perf_counter()
            converted = 0
            for outcome in run(subset, ctx, jobs=args.jobs, mode=mode):
                converted += outcome.status == "converted"
                outcome.result = None
            elapsed = time.perf_counter() - start
            print(
                f"{len(subset):5d} files: {elapsed:6.2f} s, {len(subset) / elapsed:6.1f} files/s, "
                f"{lines * fraction / elapsed:8.0f} lines/s, converted {converted}, "
                f"peak RSS {peak_rss_mib():.0f} MiB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
