#pragma once
#include <cuda_runtime.h>

// y = a * x + y on the device, launched on `stream`.
cudaError_t saxpy(int n, float a, const float* x, float* y, cudaStream_t stream);
