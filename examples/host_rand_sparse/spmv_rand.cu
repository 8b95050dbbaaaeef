// Host program: fill a vector with cuRAND, multiply it by a small CSR matrix with the generic
// cuSPARSE SpMV API on a stream, and time the multiply with events.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <curand.h>
#include <cusparse.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                      \
                         cudaGetErrorString(err_), __FILE__, __LINE__);           \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CURAND_CHECK(call)                                                        \
    do {                                                                          \
        curandStatus_t st_ = (call);                                              \
        if (st_ != CURAND_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "cuRAND error %d at %s:%d\n", (int)st_,          \
                         __FILE__, __LINE__);                                     \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUSPARSE_CHECK(call)                                                      \
    do {                                                                          \
        cusparseStatus_t st_ = (call);                                            \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                     \
            std::fprintf(stderr, "cuSPARSE error %d at %s:%d\n", (int)st_,        \
                         __FILE__, __LINE__);                                     \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

int main() {
    // 4x4 tridiagonal matrix in CSR form.
    const int rows = 4, cols = 4, nnz = 10;
    std::vector<int> h_row_ptr = {0, 2, 5, 8, 10};
    std::vector<int> h_col_ind = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    std::vector<float> h_val = {2, -1, -1, 2, -1, -1, 2, -1, -1, 2};

    int *d_row_ptr, *d_col_ind;
    float *d_val, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_row_ptr, (rows + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_col_ind, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, rows * sizeof(float)));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaMemcpyAsync(d_row_ptr, h_row_ptr.data(), (rows + 1) * sizeof(int),
                               cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_col_ind, h_col_ind.data(), nnz * sizeof(int),
                               cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_val, h_val.data(), nnz * sizeof(float),
                               cudaMemcpyHostToDevice, stream));

    // x ~ U(0, 1]
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetStream(gen, stream));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CHECK(curandGenerateUniform(gen, d_x, cols));

    // y = A * x
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, stream));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    CUSPARSE_CHECK(cusparseCreateCsr(&mat, rows, cols, nnz, d_row_ptr, d_col_ind, d_val,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x, cols, d_x, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y, rows, d_y, CUDA_R_32F));
    float alpha = 1.0f, beta = 0.0f;
    size_t buffer_size = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat,
                                           vec_x, &beta, vec_y, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
    void* d_buffer = nullptr;
    CUDA_CHECK(cudaMalloc(&d_buffer, buffer_size));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, stream));
    CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x,
                                &beta, vec_y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, d_buffer));
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    std::vector<float> h_y(rows);
    CUDA_CHECK(cudaMemcpyAsync(h_y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < rows; ++i) std::printf("y[%d] = %f\n", i, h_y[i]);
    std::printf("SpMV took %.3f ms\n", ms);

    CUSPARSE_CHECK(cusparseDestroyDnVec(vec_x));
    CUSPARSE_CHECK(cusparseDestroyDnVec(vec_y));
    CUSPARSE_CHECK(cusparseDestroySpMat(mat));
    CUSPARSE_CHECK(cusparseDestroy(handle));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_buffer));
    CUDA_CHECK(cudaFree(d_row_ptr));
    CUDA_CHECK(cudaFree(d_col_ind));
    CUDA_CHECK(cudaFree(d_val));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return 0;
}
