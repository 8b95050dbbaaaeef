#pragma once
#include <cuda_runtime.h>

// C = scale * (A * B) for column-major A (m x k), B (k x n), C (m x n) in device memory.
cudaError_t gemm_scaled(int m, int n, int k, const float* A, const float* B, float* C,
                        float scale, cudaStream_t stream);
