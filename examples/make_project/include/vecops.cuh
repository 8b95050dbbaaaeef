#pragma once
#include <cuda_runtime.h>

// out[i] = a * x[i] + y[i], and the sum of out, both on the device.
cudaError_t axpy(int n, float a, const float* x, const float* y, float* out, cudaStream_t stream);
cudaError_t sum(int n, const float* x, float* result, cudaStream_t stream);
