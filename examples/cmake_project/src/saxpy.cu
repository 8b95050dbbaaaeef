#include "saxpy.cuh"

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t saxpy(int n, float a, const float* x, float* y, cudaStream_t stream) {
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    saxpy_kernel<<<blocks, threads, 0, stream>>>(n, a, x, y);
    return cudaGetLastError();
}
