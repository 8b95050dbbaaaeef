#include <cstdio>
#include <vector>

#include "vecops.cuh"

#define CHECK(call)                                                               \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            return 1;                                                             \
        }                                                                         \
    } while (0)

int main() {
    const int n = 1 << 16;
    std::vector<float> x(n, 1.0f), y(n, 2.0f);
    float *d_x, *d_y, *d_out, *d_sum;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpyAsync(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(axpy(n, 3.0f, d_x, d_y, d_out, stream));
    CHECK(sum(n, d_out, d_sum, stream));
    float total = 0.0f;
    CHECK(cudaMemcpyAsync(&total, d_sum, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    std::printf("sum = %.0f (expected %d)\n", total, 5 * n);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_sum));
    CHECK(cudaStreamDestroy(stream));
    return total == 5.0f * n ? 0 : 1;
}
