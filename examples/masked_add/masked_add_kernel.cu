// Attention-mask style op: add 1.0f where the mask is set, copy the input elsewhere.
#include <cuda_runtime.h>

__global__ void masked_add_kernel(float* input, float* mask, float* output, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        if (mask[idx] > 0.5f) {
            output[idx] = input[idx] + 1.0f;
        } else {
            output[idx] = input[idx];
        }
    }
}

void launch_kernel(float* input, float* mask, float* output, int n) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    masked_add_kernel<<<blocks, threads>>>(input, mask, output, n);
    cudaDeviceSynchronize();
}
