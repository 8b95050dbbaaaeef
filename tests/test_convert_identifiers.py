"""Identifier renames through the mapping tables."""

from _convert import body, hip, result
from _units import assert_ported_builds


def test_runtime_and_library_names_are_renamed() -> None:
    src = (
        "void f(float* d, int n) {\n  cudaStream_t s; cudaStreamCreate(&s);\n"
        "  cudaMemcpyAsync(d, d, n, cudaMemcpyDeviceToDevice, s);\n"
        "  cublasHandle_t h; cublasCreate(&h);\n"
        "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, 0, d, n, d, n, 0, d, n);\n}\n"
    )
    out = body(src)
    assert "hipStream_t s; hipStreamCreate(&s);" in out
    assert "hipMemcpyAsync(d, d, n, hipMemcpyDeviceToDevice, s);" in out
    assert "hipblasHandle_t h; hipblasCreate(&h);" in out
    assert "hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_T," in out


def test_comments_and_strings_are_never_rewritten() -> None:
    src = (
        "void f(void** p) {\n  cudaMalloc(p, 4);  // cudaMalloc in a comment\n"
        '  /* cudaFree(p) */ printf("cudaMalloc done\\n");\n'
        '  const char* r = R"(cudaFree)";\n}\n'
    )
    out = body(src)
    assert "hipMalloc(p, 4);  // cudaMalloc in a comment" in out
    assert '/* cudaFree(p) */ printf("cudaMalloc done\\n");' in out
    assert 'R"(cudaFree)"' in out


def test_inactive_branches_and_macro_bodies_are_renamed() -> None:
    src = (
        "#if defined(NEVER_DEFINED)\nvoid g() { cudaDeviceReset(); }\n#endif\n"
        "#define CHECK(x) if ((x) != cudaSuccess) cudaGetErrorString(x)\n"
    )
    out = body(src)
    assert "void g() { hipDeviceReset(); }" in out
    assert "#define CHECK(x) if ((x) != hipSuccess) hipGetErrorString(x)" in out


def test_user_declarations_shadowing_cuda_names_stay_consistent() -> None:
    src = (
        "struct S { int cudaMalloc; };\n"
        "namespace mine { int cudaFree(void* p); }\n"
        "void f(S s, S* t) { s.cudaMalloc = 1; t->cudaMalloc = 2; mine::cudaFree(0); }\n"
    )
    out = body(src)
    assert "struct S { int hipMalloc; };" in out
    assert "namespace mine { int hipFree(void* p); }" in out
    assert "s.hipMalloc = 1; t->hipMalloc = 2; mine::hipFree(0);" in out


def test_cub_namespace_becomes_hipcub() -> None:
    out = body("typedef ::cub::BlockReduce<float, 256> R;\nusing cub::WarpReduce;\n")
    assert "typedef ::hipcub::BlockReduce<float, 256> R;" in out
    assert "using hipcub::WarpReduce;" in out


def test_device_functions_and_warp_intrinsics() -> None:
    src = (
        "__device__ float f(float v) "
        "{ return __fdividef(v, 2.f) + __shfl_down_sync(0xffffffffULL, v, 1); }\n"
    )
    out = body(src)
    assert "__fdividef(v, 2.f)" in out  # same name in HIP
    assert "__shfl_down_sync(0xffffffffULL, v, 1)" in out


def test_unsupported_api_is_left_and_reported_with_its_line() -> None:
    src = "void f() {\n  cudaDeviceSynchronize();\n  cudaInitDevice(0, 0, 0);\n}\n"
    res = result(src)
    assert "cudaInitDevice(0, 0, 0);" in res.text
    assert "hipDeviceSynchronize();" in res.text
    hits = [f for f in res.findings if f.extra.get("api") == "cudaInitDevice"]
    assert len(hits) == 1 and hits[0].line == 3
    assert not [f for f in res.findings if f.extra.get("api") == "cudaDeviceSynchronize"]


def test_experimental_api_needs_the_option() -> None:
    from _convert import ctx

    index = ctx().mappings
    name = next(
        e.cuda
        for e in index.all_entries
        if e.status == "experimental" and e.kind == "function" and e.hip
    )
    src = f"void f() {{ {name}(); }}\n"
    assert f"{name}();" in body(src)
    converted = body(src, experimental=True, target_rocm=(7, 13))
    assert f"{index.get(name).hip}();" in converted


def test_roc_option_uses_rocblas_names() -> None:
    out = body("void f() { cublasHandle_t h; cublasCreate(&h); }\n", roc=True)
    assert "rocblas_handle h; rocblas_create_handle(&h);" in out


def test_pytorch_names_keep_cuda_spelling() -> None:
    src = (
        "#include <ATen/cuda/CUDAContext.h>\n"
        "void f() { cudaStream_t s = at::cuda::getCurrentCUDAStream(); "
        "C10_CUDA_KERNEL_LAUNCH_CHECK(); }\n"
    )
    out = body(src)
    assert "#include <ATen/hip/HIPContext.h>" in out
    assert (
        "hipStream_t s = at::cuda::getCurrentCUDAStream(); C10_CUDA_KERNEL_LAUNCH_CHECK();" in out
    )


def test_statistics_count_renames_by_family() -> None:
    res = result("void f() { cudaFree(0); cublasDestroy(0); cufftDestroy(0); }\n")
    assert res.conversions["rename/runtime"] == 1
    assert res.conversions["rename/blas"] == 1
    assert res.conversions["rename/fft"] == 1


# cudaKDTree's checking macro (issue 23 round 35): the runtime's prefix pasted onto the call
PASTED_CALLS = """#include <cstdio>
#include <cuda_runtime.h>
#define CHECK(call)                                                      \\
  {                                                                      \\
    cudaError_t rc = call;                                               \\
    if (rc != cudaSuccess) printf("%s\\\\n", cudaGetErrorString(rc));    \\
  }
#define CUDA_CALL(call) CHECK(cuda##call)
void clear(unsigned* tags, int n, cudaStream_t stream) {
  CUDA_CALL(MemsetAsync(tags, 0, n * sizeof(unsigned), stream));
  CUDA_CALL(StreamSynchronize(stream));
}
"""


def test_the_runtime_prefix_pasted_in_a_macro_becomes_hips(nvcc, gfx942_check, tmp_path):
    """`cuda##call` pastes `hip` after the conversion; a use whose HIP name is not `hip` and
    the same rest (`ThreadSynchronize`: hipDeviceSynchronize) keeps the macro as it is."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", PASTED_CALLS)
    assert "CHECK(hip##call)" in hip(PASTED_CALLS)
    other = PASTED_CALLS.replace("StreamSynchronize(stream)", "ThreadSynchronize()")
    assert "CHECK(cuda##call)" in hip(other)


# qulacs' gpu_wrapping.h (issue 23 compile round 35): its own HIP branch names hipBLAS 2's
# complex type, which hipBLAS 3.0 (ROCm 7.0) removed
OWN_HIP_BRANCH = """#ifdef __HIP_PLATFORM_AMD__
#include <hip/hip_complex.h>
#include <hipblas/hipblas.h>
using gpuDoubleComplex = hipblasDoubleComplex;
#else
#include <cuComplex.h>
using gpuDoubleComplex = cuDoubleComplex;
#endif
__global__ void scale(gpuDoubleComplex* v, double s) {
  v[threadIdx.x].x *= s;
  v[threadIdx.x].y *= s;
}
"""


def test_a_hip_name_rocm_7_removed_becomes_its_replacement(nvcc, gfx942_check, tmp_path):
    """The project's HIP branch compiles against ROCm 7.2.4, whose hipblas.h has no
    hipblasDoubleComplex any more; both branches name HIP's hipDoubleComplex."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", OWN_HIP_BRANCH)
    out = hip(OWN_HIP_BRANCH)
    assert "hipblasDoubleComplex" not in out and out.count("= hipDoubleComplex;") == 2
