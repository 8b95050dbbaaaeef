// Warp-level reduction, scan and vote, written the way most CUDA code is: 32 lanes per warp.
#include <cstdio>
#include <cuda_runtime.h>

__device__ float warp_reduce_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;  // lane 0 holds the warp's sum
}

__device__ int warp_inclusive_scan(int v) {
    int lane = threadIdx.x & 31;
    for (int offset = 1; offset < 32; offset *= 2) {
        int up = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// One float sum per block: reduce inside each warp, then the first warp reduces the partials.
__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x / 32;
    float v = i < n ? in[i] : 0.0f;
    v = warp_reduce_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        v = warp_reduce_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// Per element: its inclusive prefix sum within the warp, and how many lanes had a positive value.
__global__ void warp_scan_count(const int* in, int* prefix, int* positives, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    if (i < n) prefix[i] = warp_inclusive_scan(v);
    unsigned mask = __ballot_sync(0xffffffff, v > 0);
    if ((threadIdx.x & 31) == 0) positives[i / 32] = __popc(mask);
}

int main() {
    const int n = 1 << 12, threads = 256, blocks = n / threads;
    float *d_in, *d_out;
    int *d_vals, *d_prefix, *d_pos;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, blocks * sizeof(float));
    cudaMalloc(&d_vals, n * sizeof(int));
    cudaMalloc(&d_prefix, n * sizeof(int));
    cudaMalloc(&d_pos, (n / 32) * sizeof(int));
    cudaMemset(d_in, 0, n * sizeof(float));
    cudaMemset(d_vals, 0, n * sizeof(int));
    block_sum<<<blocks, threads>>>(d_in, d_out, n);
    warp_scan_count<<<blocks, threads>>>(d_vals, d_prefix, d_pos, n);
    cudaError_t err = cudaDeviceSynchronize();
    std::printf("%s\n", cudaGetErrorString(err));
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_vals);
    cudaFree(d_prefix);
    cudaFree(d_pos);
    return 0;
}
