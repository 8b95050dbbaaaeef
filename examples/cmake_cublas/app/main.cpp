#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include "blas_ops.h"

int main() {
    const int m = 64, n = 32, k = 16;
    std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n, 0.0f);
    float *d_a, *d_b, *d_c;
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
    if (cudaMalloc(&d_a, a.size() * sizeof(float)) != cudaSuccess) return 1;
    if (cudaMalloc(&d_b, b.size() * sizeof(float)) != cudaSuccess) return 1;
    if (cudaMalloc(&d_c, c.size() * sizeof(float)) != cudaSuccess) return 1;
    cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaError_t err = gemm_scaled(m, n, k, d_a, d_b, d_c, 0.5f, stream);
    cudaMemcpyAsync(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    // every element is 0.5 * sum over k of 1 * 2 = k
    std::printf("%s: c[0] = %.1f (expected %d)\n", cudaGetErrorString(err), c[0], k);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaStreamDestroy(stream);
    return c[0] == static_cast<float>(k) ? 0 : 1;
}
