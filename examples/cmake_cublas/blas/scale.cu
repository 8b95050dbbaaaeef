#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

cudaError_t launch_scale(float* x, int n, float s, cudaStream_t stream) {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n, s);
    return cudaGetLastError();
}
