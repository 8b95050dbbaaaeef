#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include "saxpy.cuh"

int main() {
    const int n = 1 << 20;
    std::vector<float> x(n, 1.0f), y(n, 2.0f);
    float *d_x = nullptr, *d_y = nullptr;
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMemcpyAsync(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);
    cudaMemcpyAsync(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);
    cudaError_t err = saxpy(n, 3.0f, d_x, d_y, stream);
    cudaMemcpyAsync(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    std::printf("%s: y[0] = %.1f (expected 5.0)\n", cudaGetErrorString(err), y[0]);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaStreamDestroy(stream);
    return y[0] == 5.0f ? 0 : 1;
}
