#include "vecops.cuh"

__global__ void axpy_kernel(int n, float a, const float* x, const float* y, float* out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}

// one block per 256 elements; each block adds its partial sum to *result
__global__ void sum_kernel(int n, const float* x, float* result) {
    __shared__ float partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

cudaError_t axpy(int n, float a, const float* x, const float* y, float* out, cudaStream_t stream) {
    axpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
    return cudaGetLastError();
}

cudaError_t sum(int n, const float* x, float* result, cudaStream_t stream) {
    cudaError_t err = cudaMemsetAsync(result, 0, sizeof(float), stream);
    if (err != cudaSuccess) return err;
    sum_kernel<<<(n + 255) / 256, 256, 0, stream>>>(n, x, result);
    return cudaGetLastError();
}
