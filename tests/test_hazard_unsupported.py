"""HZ3xx: APIs and features with no HIP equivalent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from _convert import hip
from _units import (
    assert_converted_compiles,
    assert_nvcc_builds,
    assert_ported_builds,
    converted_tree,
)
from hipify_py.cli.check import check
from hipify_py.findings import Severity
from hipify_py.pipeline import check_result
from test_hazard_common import ctx, fixed, only, rules_of


def test_hz300_unsupported_api_names_api_and_family():
    src = "void f(int* n, void* k) { cudaOccupancyMaxActiveClusters(n, k, 0); }\n"
    (f,) = only("HZ300", src)
    assert "`cudaOccupancyMaxActiveClusters`" in f.message and "runtime" in f.message
    assert f.severity.value == "error"


def test_hz300_library_family_and_device_function():
    src = (
        "__global__ void k() { __prof_trigger(0); }\n"
        "void f(cublasHandle_t h) { cublasSgemmEx(h, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0); }\n"
    )
    msgs = [f.message for f in only("HZ300", src)]
    wanted = "`__prof_trigger` (device function) has no HIP equivalent"
    assert any(m.startswith(wanted) for m in msgs)


GTEST_NAMES = """#define TEST(suite, name) void suite##_##name()
TEST(ConvertSat, float2int) {}
TEST(ConvertSat, int2float) {}
__global__ void k(int* out) { __prof_trigger(0); out[0] = 1; }
"""


def test_hz300_a_device_functions_name_that_is_not_called_is_no_use(nvcc, tmp_path):
    """oneflow's gtest cases `TEST(ConvertSat, float2int)` (round 32, a false HZ300) name
    tests, not CUDA's unsupported device functions; the call in the kernel is reported."""
    src = tmp_path / "names.cu"
    src.write_text(GTEST_NAMES)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert [f.line for f in only("HZ300", GTEST_NAMES)] == [4]
    called = GTEST_NAMES.replace("float2int)", "float2int(1))")
    assert [f.line for f in only("HZ300", called)] == [2]  # one finding for both (folded)


def test_hz300_ignores_members_comments_strings_and_supported_apis():
    src = """// cudaOccupancyMaxActiveClusters in a comment
void f(S s) {
  const char* t = "cudaOccupancyMaxActiveClusters";
  s.cudaOccupancyMaxActiveClusters = 1;
  cudaMalloc(0, 4);
}"""
    assert only("HZ300", src) == []


def test_hz300_a_function_the_file_defines_and_dead_library_branches():
    # moderngpu defines its own mulhi; apex's cublasLt code sits under CUBLAS_VERSION, which no
    # ROCm header defines, so the HIP build never compiles it
    own = "namespace mgpu {\n__device__ int mulhi(int a, int b) { return __mulhi(a, b); }\n}\n"
    assert only("HZ300", own) == []
    assert len(only("HZ300", "__device__ int f(int a) { return mulhi(a, a); }\n")) == 1
    # nccl's DOCA wrapper declares CUDA's enumerators itself
    enum = "enum Attr { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118, OTHER };\n"
    assert only("HZ300", enum) == []
    use = "int a = CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING;\n"
    assert len(only("HZ300", use)) == 1
    lt = (
        "#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\n"
        "void f() { cublasLtMatmulDescInit(0, 0, 0); }\n#endif\n"
    )
    assert only("HZ300", lt) == []
    assert len(only("HZ300", lt.split("\n", 1)[1].replace("#endif\n", ""))) == 1


def test_hz300_a_pointer_the_file_declares_under_an_api_name_is_its_variable(nvcc, tmp_path):
    """The CUDA samples' matrixMulDynlinkJIT (round 21) loads each driver function into a
    pointer of its name; the file's variable compiles on HIP as it is.  A call of the API
    itself in a file without the pointer is reported."""
    src = """typedef int CUresult;
typedef struct CUfunc_st* CUfunction;
typedef enum CUsharedconfig_enum { CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 2 } CUsharedconfig;
typedef CUresult tcuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config);
extern "C" {
    extern tcuFuncSetSharedMemConfig *cuFuncSetSharedMemConfig;
}
tcuFuncSetSharedMemConfig *cuFuncSetSharedMemConfig;
CUresult prefer_banks(CUfunction f) {
  return cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE);
}
"""
    (tmp_path / "d.cpp").write_text(src)
    cmd = [nvcc, "-c", str(tmp_path / "d.cpp"), "-o", str(tmp_path / "d.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [f for f in only("HZ300", src) if "cuFuncSetSharedMemConfig" in f.message] == []
    call = "CUresult f(CUfunction k, CUsharedconfig c) { return cuFuncSetSharedMemConfig(k, c); }\n"
    assert ["cuFuncSetSharedMemConfig" in f.message for f in only("HZ300", call)] == [True]


def test_hz300_a_variable_the_file_names_like_a_cuda_type_is_its_own(
    nvcc, nvidia_include, tmp_path
):
    """optimize-cuda-memory-usage's tiled Cholesky (round 43: 2 false HZ300) names its
    `cusolverDnParams_t` parameter, member and local `cusolverDnParams`, as cuSOLVER names its
    opaque struct; hipSOLVER has every call the variable takes part in.  A use of CUDA's
    struct itself is still reported."""
    src = """#include <cusolverDn.h>
struct Solver {
  cusolverDnParams_t cusolverDnParams;
  void set(cusolverDnParams_t cusolverDnParams) { this->cusolverDnParams = cusolverDnParams; }
};
int run(Solver& s) {
  cusolverDnParams_t cusolverDnParams;
  if (cusolverDnCreateParams(&cusolverDnParams) != CUSOLVER_STATUS_SUCCESS) return 1;
  s.set(cusolverDnParams);
  return cusolverDnDestroyParams(cusolverDnParams) != CUSOLVER_STATUS_SUCCESS;
}
"""
    (tmp_path / "chol.cu").write_text(src)
    flags = [f"-I{nvidia_include(lib)}" for lib in ("cusolver", "cublas", "cusparse")]
    assert_nvcc_builds(nvcc, [tmp_path / "chol.cu"], flags, tmp_path)
    assert only("HZ300", src) == []
    struct = "#include <cusolverDn.h>\nsize_t n = sizeof(cusolverDnParams*);\n"
    assert ["cusolverDnParams" in f.message for f in only("HZ300", struct)] == [True]


def test_hz300_a_function_of_the_projects_namespace_is_the_projects():
    # CTranslate2 declares and calls its own ctranslate2::cuda::cublasGetStatusName
    own = (
        "namespace ct { namespace cuda { const char* cublasGetStatusName(int s); } }\n"
        "void f(int s) { puts(ct::cuda::cublasGetStatusName(s)); }\n"
    )
    assert only("HZ300", own) == []
    # CUDA's names stay CUDA's (hipBLAS has it as hipblasStatusToString): global scope, a call
    # inside a namespace
    assert "::hipblasStatusToString(s)" in hip("void f(int s) { puts(::cublasGetStatusName(s)); }")
    called = "namespace ct { void f(int s) { puts(cublasGetStatusName(s)); } }\n"
    assert "puts(hipblasStatusToString(s))" in hip(called)


def test_hz301_experimental_only_without_flag():
    src = "void f(int* s, void* fn, void* c) { cudaOccupancyMaxPotentialClusterSize(s, fn, c); }\n"
    (f,) = only("HZ301", src, target_rocm=(7, 14))
    assert f.severity.value == "info" and "--experimental" in f.message
    assert only("HZ301", src, experimental=True, target_rocm=(7, 14)) == []
    # newer than the targeted ROCm (7.13): --experimental would not help; HZ302 says why
    assert only("HZ301", src) == [] and len(only("HZ302", src)) == 1


def test_hz302_fftw_names_are_cpu_fftws_too():
    """MatX's host FFT path (round 16, judged false): CPU FFTW's `fftwf_plan_many_dft`, a name
    cuFFTW and hipFFTW share; nothing is converted, and a cuFFTW source is reported at its
    header (HP001)."""
    call = "fftwf_plan_many_dft(1, &n, 1, 0, 0, 1, 1, 0, 0, 1, 1, -1, 0)"
    cpu = f"#include <fftw3.h>\nvoid* plan(int n) {{ return {call}; }}\n"
    assert only("HZ302", cpu) == []
    found = check_result(cpu.replace("fftw3.h", "cufftw.h"), "t.cu", ctx()).findings
    assert [(f.rule, f.line) for f in found] == [("HP001", 1)]


def test_hz302_newer_rocm_on_both_sides():
    cuda = "__device__ int f(int v) { return __reduce_add_sync(0xffffffffffffffffULL, v); }\n"
    assert only("HZ302", cuda) == []
    (f,) = only("HZ302", cuda, target_rocm=(6, 4))
    assert "7.0" in f.message and "6.4" in f.message
    hip = (
        "#include <hip/hip_runtime.h>\n"
        "__device__ int f(int v) { return __reduce_max_sync(~0ULL, v); }\n"
    )
    assert len(only("HZ302", hip, "t.hip", target_rocm=(6, 4))) == 1
    # __syncwarp below 7.0 is rewritten and reported by HP010, not HZ302
    sync = "#include <hip/hip_runtime.h>\n__device__ int f(int v) { __syncwarp(); return v; }\n"
    assert only("HZ302", sync, "t.hip", target_rocm=(6, 4)) == []
    reported = check_result(sync, "t.hip", ctx(target_rocm=(6, 4))).findings
    assert [f.rule for f in reported if f.rule.startswith("HP")] == ["HP010"]


def test_hz310_inline_ptx_but_not_amdgpu_asm():
    src = """__device__ unsigned lane() {
  unsigned l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }
__device__ void stop() { asm("trap;"); }
__device__ void amd() { asm volatile("s_waitcnt vmcnt(0)" ::: "memory"); }"""
    found = only("HZ310", src)
    assert [f.line for f in found] == [2, 3]
    assert "mov.u32" in found[0].message


def test_hz310_ptx_instruction_names_not_other_isas():
    """A dotted instruction is PTX only when PTX has that instruction: ggml's Esperanto backend
    carries RISC-V vector asm (`flw.ps`, `fbci.ps`) that no HIP build compiles; `lop3.b32`
    (a digit in the name), `fence.acq_rel.gpu` and nccl's `ld..global` (an empty macro between
    the dots) are PTX."""
    src = """__device__ void riscv(float* p) {
  __asm__ volatile("flw.ps f10, (%0)" ::"r"(p));
  __asm__ volatile("fbci.ps f10, 0" ::: "f10"); }
__device__ unsigned lop(unsigned a, unsigned b, unsigned c) {
  unsigned d; asm("lop3.b32 %0, %1, %2, %3, 202;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
__device__ void fence() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
#define LD(sp) asm volatile("ld." #sp ".global.v2.b64 {%0,%1}, [%2];" : "=l"(a), "=l"(b) : "l"(p))
__device__ void ld(const long* p) { long a, b; LD(); }"""
    assert [f.line for f in only("HZ310", src)] == [5, 6, 7]


def test_hz310_arm_asm_with_ptx_like_names_is_not_ptx():
    """MegEngine's ARM kernels (round 32, unsampled): NEON's `vadd.f16` with `"w"` register
    operands and armv7's `subs ..., #4` / `vld1.32` share names with PTX's video instructions
    and loads, but PTX writes no `#` before an immediate and has no `"w"` constraint."""
    src = """typedef __fp16 half8 __attribute__((vector_size(16)));
half8 add(half8 a, half8 b) {
  half8 r;
  asm volatile("vadd.f16 %0, %1, %2\\n" : "+w"(r) : "w"(a), "w"(b));
  return r;
}
void kern(const float* a, int k) {
  asm volatile("subs %[K], %[K], #4\\n" "vld1.32 {d8-d11}, [%[a]]!\\n" : [K] "+r"(k), [a] "+r"(a));
}
__device__ unsigned vadd(unsigned a, unsigned b) {
  unsigned d; asm("vadd.u32.u32.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
"""
    assert [f.line for f in only("HZ310", src)] == [11]


# LeetCUDA's sgemm_async.cu (round 15): two PTX macros, one of them expanded
TWO_PTX_MACROS = """#define CP_ASYNC_CA(dst, src) \\
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src))
#define CP_ASYNC_CG(dst, src) \\
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src))
__global__ void copy(const float* in) {
  __shared__ float s[4];
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s));
  CP_ASYNC_CA(dst, in);
}
"""


def test_hz310_a_source_files_macro_it_never_expands_holds_no_ptx(nvcc, tmp_path):
    src = tmp_path / "async.cu"
    src.write_text(TWO_PTX_MACROS)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert [f.line for f in only("HZ310", TWO_PTX_MACROS)] == [2]
    # a header's macros may be expanded by the files that include it: adjacent PTX macros are
    # one block to port, one finding with the others as its dependent lines
    [found] = only("HZ310", TWO_PTX_MACROS, "t.cuh")
    assert found.line == 2 and found.extra["related_lines"] == "4"


# VanitySearch's GPUMath.h (round 28): a carry chain written as a block of PTX macros
CARRY_MACROS = """#include <cstdint>
#define UADDO(c, a, b) asm volatile("add.cc.u64 %0, %1, %2;" : "=l"(c) : "l"(a), "l"(b))
#define UADDC(c, a, b) asm volatile("addc.cc.u64 %0, %1, %2;" : "=l"(c) : "l"(a), "l"(b))
// the last add of the chain
#define UADD(c, a, b) asm volatile("addc.u64 %0, %1, %2;" : "=l"(c) : "l"(a), "l"(b))
__device__ void add2(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  UADDO(r[0], a[0], b[0]);
  UADD(r[1], a[1], b[1]);
}
#define USUBO(c, a, b) asm volatile("sub.cc.u64 %0, %1, %2;" : "=l"(c) : "l"(a), "l"(b))
__device__ void sub1(uint64_t* r, const uint64_t* a) {
  USUBO(r[0], a[0], a[1]);
  UADDC(r[1], a[1], a[0]);
}
"""


def test_hz310_a_block_of_ptx_macros_is_one_finding(nvcc, tmp_path):
    (tmp_path / "carry.cu").write_text(CARRY_MACROS)
    assert_nvcc_builds(nvcc, [tmp_path / "carry.cu"], [], tmp_path)
    found = only("HZ310", CARRY_MACROS)
    # the block of three macros (a comment between them), and the macro after the code apart
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(2, "3,5"), (10, None)]


def test_hz310_a_headers_macro_no_file_of_the_tree_expands_holds_no_ptx(nvcc, tmp_path):
    """cuda_hgemm's ptx.h (round 18): the kernels include it and expand one of its macros."""
    macros, kernel = TWO_PTX_MACROS.split("__global__", 1)
    (tmp_path / "ptx.cuh").write_text("#pragma once\n" + macros)
    (tmp_path / "copy.cu").write_text('#include "ptx.cuh"\n__global__' + kernel)
    assert_nvcc_builds(nvcc, [tmp_path / "copy.cu"], [], tmp_path)
    args = ["--select", "HZ310", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    found = [(Path(f["path"]).name, f["line"]) for f in json.loads(run.stdout)["findings"]]
    assert found == [("ptx.cuh", 3)]


def test_hz310_quotes_the_template_not_the_operands():
    src = """#define WAIT_GROUP(N) asm volatile("cp.async.wait_group %0;\\n" ::"n"(N))
__device__ void k() { WAIT_GROUP(1); }"""
    [found] = only("HZ310", src)
    assert "`cp.async.wait_group %0;`" in found.message


def test_texture_references_are_reported_at_their_reads_only():
    src = """texture<float, 1, cudaReadModeElementType> tex;
__global__ void k(float* o) { o[0] = tex1Dfetch(tex, 0); }
void h(float* d) { cudaBindTexture(0, tex, d, 4); cudaUnbindTexture(tex); }"""
    # HZ311 is retired: ROCm 7.2.4 compiles the reference and its binding (test_hazard_premises)
    assert set(rules_of(src)) == {"HZ320"}
    assert [f.line for f in only("HZ320", src)] == [2]


def test_hz312_dynamic_parallelism():
    src = """__global__ void child(int* d) { d[0] = 1; }
__global__ void parent(int* d) {
  child<<<1, 64>>>(d);
  cudaDeviceSynchronize();
}
void host(int* d) { parent<<<1, 1>>>(d); cudaDeviceSynchronize(); }"""
    assert [f.line for f in only("HZ312", src)] == [3, 4]
    hip = (
        "#include <hip/hip_runtime.h>\n__global__ void c(int* d) { d[0] = 1; }\n"
        "__global__ void p(int* d) { hipLaunchKernelGGL(c, dim3(1), dim3(1), 0, 0, d); }\n"
    )
    assert len(only("HZ312", hip, "t.hip")) == 1


def test_hz312_the_device_runtimes_calls_in_a_kernel(nvcc, gfx942_check, tmp_path):
    """simple-cuda-voxel-engine allocates with `cudaMalloc` inside a kernel (compile round 43:
    a silent TU): CUDA's device runtime has it with -rdc; HIP declares its runtime for the host
    only.  The same calls on the host are no finding."""
    src = """#include <cstdlib>
__device__ float** variants;
__global__ void create(int n) {
  cudaMalloc(&variants, sizeof(float*) * n);
  if (cudaGetLastError() != cudaSuccess) return;
  for (int i = 0; i < n; i++) variants[i] = (float*)malloc(sizeof(float));
}
int main() {
  float* d;
  cudaMalloc(&d, 4);
  create<<<1, 1>>>(4);
  return cudaFree(d) != cudaSuccess;
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], ["-rdc=true"], tmp_path)
    assert [f.line for f in only("HZ312", src)] == [4, 5]
    # the premise: HIP's runtime calls do not compile in a kernel
    port = tmp_path / "k.hip"
    port.write_text(hip(src))
    assert "no matching function for call to 'hipMalloc'" in gfx942_check(port).stderr


def test_hz313_wmma_and_hz314_clusters():
    src = """#include <mma.h>
using namespace nvcuda;
__global__ void __cluster_dims__(2, 1, 1) k(half* a, float* c) {
  int warp = threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::load_matrix_sync(fa, a + warp * 256, 16);
}"""
    [wmma] = only("HZ313", src)  # translated: one warning per kernel, at its first WMMA line
    assert wmma.line == 5 and wmma.severity is Severity.WARNING
    assert "`k` uses WMMA, translated to rocWMMA" in wmma.message
    assert "64-lane wavefront" in wmma.message and "line 4 divides by 32" in wmma.message
    assert [f.line for f in only("HZ313", src)] == [5]
    assert [f.line for f in only("HZ314", src)] == [3]


def test_hz313_one_warning_per_function_none_outside_functions():
    src = """#include <mma.h>
using namespace nvcuda;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> Acc;
__device__ void zero(Acc& c) { wmma::fill_fragment(c, 0.f); }
__global__ void a(float* c) {
  Acc acc;
  zero(acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(c + 256, acc, 16, wmma::mem_col_major);
}
__global__ void b(float* c) { c[0] = 1.f; }
"""
    found = only("HZ313", src)
    assert [(f.line, f.severity) for f in found] == [(4, Severity.WARNING), (8, Severity.WARNING)]
    assert "`zero`" in found[0].message and "divides by 32" not in found[0].message


def test_hz313_what_rocwmma_lacks_is_an_error_at_its_line():
    src = """#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;
__global__ void k(const float* a, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ft;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
  wmma::fragment<wmma::accumulator, 32, 32, 8, float> fine;
  float t = nvcuda::wmma::__float_to_tf32(a[0]);
  wmma::bmma_sync(acc, ft, fb, acc);
}"""
    errors = [f for f in only("HZ313", src) if f.severity is Severity.ERROR]
    assert [f.line for f in errors] == [5, 6, 7, 9, 10]
    assert "`wmma::precision` has no rocWMMA counterpart" in errors[0].message
    assert "rocwmma::bfloat16_t (hip_bfloat16)" in errors[1].message
    assert "32x8x16 WMMA fragment" in errors[2].message
    assert "`nvcuda::wmma::__float_to_tf32`" in errors[3].message


def test_hz314_the_clusters_of_a_file_are_one_finding():
    # apex group_norm_v2: `cg::this_cluster()` in a dozen kernels, one redesign without clusters
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) a(float* x) { x[cg::this_cluster().block_rank()] = 1; }
__global__ void b(float* x) { cg::this_cluster().sync(); x[0] = 2; }
"""
    (f,) = only("HZ314", src)
    assert f.line == 3 and f.extra["related_lines"] == "4"
    assert "`this_cluster`" in f.message


def test_hz313_reports_the_uses_the_hip_build_compiles():
    src = """#ifndef USE_ROCM
#include <mma.h>
using namespace nvcuda;
#endif
__global__ void k(half* a) {
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> f;
  nvcuda::wmma::load_matrix_sync(f, a, 16);
}"""
    [wmma] = only("HZ313", src)
    assert wmma.line == 6 and wmma.severity is Severity.WARNING


def test_hz313_rocwmma_is_fine():
    src = (
        "#include <rocwmma/rocwmma.hpp>\n__global__ void k(float* c) {\n"
        "  rocwmma::fragment<rocwmma::accumulator, 16, 16, 16, float> f;\n"
        "  rocwmma::fill_fragment(f, 0.f);\n}\n"
    )
    assert only("HZ313", src, "t.hip") == []


def test_hz315_half2_members():
    src = """__global__ void k(__half2* d, float2* f) {
  __half2 h = d[0];
  float2 g = f[0];
  float a = __half2float(h.x) + g.x + __low2float(h);
  d[0] = __floats2half2_rn(a, g.y);
}"""
    found = only("HZ315", src, target_rocm=(6, 4))
    assert [f.line for f in found] == [4] and "h.x" in found[0].message
    assert only("HZ315", src) == []  # ROCm 7 declares `__half x, y` as CUDA does


def test_hz315_names_are_scoped_to_their_function():
    src = """__device__ float a(__half2 u) { return __low2float(u); }
__device__ float b(float2 u) { return u.x + u.y; }"""
    assert only("HZ315", src, target_rocm=(6, 4)) == []


def test_rule_findings_name_the_construct():
    src = '__global__ void k(float* o) { asm("exit;"); o[threadIdx.x & 31] = warpSize; }\n'
    assert {"HZ310", "HZ101"} <= set(rules_of(src))


def test_hz317_ffsll_on_uint64_is_cast_as_cuda_converts_it():
    """convert casts by default (the `ffs-cast` conversion); converting again adds nothing."""
    src = "__device__ int f(uint64_t m) { return __ffsll(m); }\n"
    [found] = only("HZ317", src)
    assert "uint64_t" in found.message
    assert "__ffsll((long long)m)" in hip(src)  # hip() also converts its output again
    assert only("HZ317", src.replace("uint64_t m", "unsigned long long m")) == []


# nvcc -arch=sm_90 -c accepts it; clang-19 with ROCm 7.2.4 calls the first two ambiguous
FFS_ELEMENTS = """#include <cstdint>
__global__ void k(const int64_t* masks, int* o) { o[threadIdx.x] = __ffsll(masks[threadIdx.x]); }
__global__ void k2(int* o) { int64_t m[4] = {1, 2, 4, 8}; o[threadIdx.x] = __ffsll(m[o[0] & 3]); }
__global__ void d(const long long* masks, int* o) { o[threadIdx.x] = __ffsll(masks[threadIdx.x]); }
__global__ void k3(unsigned long long x, int* o) { o[0] = __ffsll(static_cast<int64_t>(x)); }
"""


def test_hz317_ffsll_on_int64_elements(nvcc, rocm7, clang19, tmp_path):
    # CUDA_gpca_proj1's `__ffsll(static_cast<int64_t>(x))` (compile round 46: 7 TUs)
    assert [f.line for f in only("HZ317", FFS_ELEMENTS)] == [2, 3, 5]
    out = hip(FFS_ELEMENTS)
    assert "__ffsll((long long)masks[threadIdx.x])" in out
    cu = tmp_path / "f.cu"
    cu.write_text(FFS_ELEMENTS)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "f.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    for text, ambiguous in ((FFS_ELEMENTS, 3), (out, 0)):
        hip_file = tmp_path / "f.hip"
        hip_file.write_text("#include <hip/hip_runtime.h>\n" + text)
        cmd = [
            clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
            "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
            str(hip_file),
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.stderr.count("call to '__ffsll' is ambiguous") == ambiguous, proc.stderr


def test_hz207_names_the_rocm_version_that_supports_nested_tiles():
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ int f() {
  auto t32 = cg::tiled_partition<32>(cg::this_thread_block());
  auto t4 = cg::tiled_partition<4>(t32);
  return t4.thread_rank();
}"""
    assert "not before HIP 7.1" in only("HZ207", src, target_rocm=(6, 4))[0].message
    assert "from HIP 7.1" in only("HZ207", src)[0].message


def test_hz330_operators_hip_cannot_take_are_not_its_own(tmp_path, gfx942_check):
    """QUDA's double_single.h and float_vector.h (round 15, judged false): a class's member
    operator on a vector operand, an operator with a class operand, a stream printer.  None of
    HIP's vector operators can take such a call; the converted code compiles for gfx942."""
    src = (
        "#include <iostream>\n"
        "struct ds2 {\n  double2 v;\n"
        "  __host__ __device__ void operator+=(const double2& b) { v.x += b.x; v.y += b.y; }\n};\n"
        "__host__ __device__ double2 operator+=(double2& a, const ds2& b)"
        " { a.x += b.v.x; a.y += b.v.y; return a; }\n"
        "inline std::ostream& operator<<(std::ostream& o, const double2& a)"
        " { return o << a.x << ',' << a.y; }\n"
        "__global__ void k(double2* p, ds2* q) { q[0] += p[0]; p[1] += q[0]; }\n"
    )
    assert only("HZ330", src) == []
    f = tmp_path / "t.hip"
    f.write_text(hip(src))
    proc = gfx942_check(f)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # the same operator at namespace scope on two vectors is HIP's own
    free = src.replace("struct ds2 {\n  double2 v;\n", "").replace(
        "  __host__ __device__ void operator+=(const double2& b) { v.x += b.x; v.y += b.y; }\n};\n",
        "__host__ __device__ void operator+=(double2& a, const double2& b) { a = a + b; }\n",
    )
    assert [f.line for f in only("HZ330", free.split("__host__ __device__ double2")[0])] == [2]


def test_hz330_vector_operators_that_hip_defines(tmp_path, gfx942_check):
    # a complex product and a compound assignment not written per component: `convert`
    # cannot prove them element-wise, so they stay and are reported
    src = (
        "inline __host__ __device__ float2 operator*(float2 a, float2 b)"
        " { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
        "inline __host__ __device__ void operator+=(float2 &a, float2 b) { a = a + b; }\n"
        "struct V { int x; V operator+(const V& o) const { return {x + o.x}; } };\n"
        "float2 operator*(float2 a, float b);\n"  # a declaration: the definition is reported
        "__global__ void k(float2* p, const float2* q) { p[0] += q[0]; }\n"
    )
    [found] = only("HZ330", src)  # one diagnosis: one guard fixes the file's operators
    assert (found.line, found.severity.value, found.extra["related_lines"]) == (1, "error", "2")
    assert "so is the one more such operator of this file" in found.message
    [compound] = only("HZ330", src.split("\n", 1)[1])
    assert "always ambiguous" in compound.message and "float2::operator+=" in compound.message
    # the cause is real: the converted code does not compile for gfx942 because of it
    f = tmp_path / "t.hip"
    f.write_text(hip(src))
    proc = gfx942_check(f)
    assert "use of overloaded operator '+=' is ambiguous" in proc.stderr


def test_hz321_a_copy_of_the_cuda_api_is_reported_once_at_its_first_type():
    # cuda-samples' matrixMulDynlinkJIT/cuda_drvapi_dynlink_cuda.h: a dlopen loader's copy of
    # cuda.h; converted, `typedef unsigned long long hipDeviceptr_t` clashes with HIP's void*
    src = (
        "#include <cuda.h>\n"
        "#define API 5000\n"
        "#if API >= 3020\n"
        "#if defined(_WIN64) || defined(__LP64__)\n"
        "typedef unsigned long long CUdeviceptr;\n"
        "#else\n"
        "typedef unsigned int CUdeviceptr;\n"
        "#endif\n"
        "#endif\n"
        "typedef struct CUctx_st *CUcontext;\n"
    )
    assert [f.line for f in only("HZ321", src)] == [5]


def test_hz321_a_hip_compat_header_keeps_its_aliases():
    """ggml's vendors/hip.h includes HIP's headers and gives HIP types CUDA's names: those
    typedefs keep their names in the conversion, so they redeclare nothing."""
    src = "#include <hip/hip_runtime.h>\n#include <hip/hip_bf16.h>\n"
    src += "typedef __hip_bfloat16 nv_bfloat16;\n"
    assert only("HZ321", src) == []
    assert "typedef __hip_bfloat16 nv_bfloat16;" in fixed(src)


def test_hz321_a_declaration_that_converts_to_hips_own_is_no_clash():
    """arrayfire's af/cuda.h, NVIDIA warp's CPU stubs, fastllm's placeholder handle (rounds
    10-13, all judged false): converted, each says what HIP's headers say (a typedef may be
    redeclared as the same type), as does C's `typedef struct X X;`.  A different definition
    still clashes."""
    same = (
        "typedef struct CUstream_st *cudaStream_t;\ntypedef int CUdevice;\n"
        "typedef void* cublasHandle_t;\ntypedef float2 cuFloatComplex;\n"
        "typedef struct cudaDeviceProp cudaDeviceProp;\n"
    )
    assert only("HZ321", same) == []
    clash = same + "typedef unsigned long long CUdeviceptr;\n"
    assert [f.line for f in only("HZ321", clash)] == [6]


NAMESPACED_STREAM = """#include <cuda_runtime.h>
namespace slide::codec {
typedef void* cudaStream_t;  // a placeholder where the codec library is absent
inline int decode(cudaStream_t stream) { return stream == nullptr; }
}  // namespace slide::codec
int run() { return slide::codec::decode(nullptr); }
__global__ void k(int* p) { p[0] = 1; }
void launch(int* p, ::cudaStream_t s) { k<<<1, 1, 0, s>>>(p); }
"""


def test_hz321_a_declaration_in_a_namespace_of_the_project_is_its_own(nvcc, gfx942_check, tmp_path):
    """cuCIM's nvimgcodec_decoder.h (round 26, judged false): `typedef void* cudaStream_t;` in
    `namespace cuslide2::nvimgcodec` names that namespace's type; converted, it shadows HIP's
    global `hipStream_t` and redeclares nothing.  At global scope it clashes."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", NAMESPACED_STREAM)
    assert only("HZ321", NAMESPACED_STREAM) == []
    assert [f.line for f in only("HZ321", "typedef void* cudaStream_t;\n")] == [1]


def test_hz321_another_platforms_port_layer_is_not_a_copy_of_cuda():
    """ggml's and ktransformers' vendors/musa.h and maca.h (rounds 8 and 23, judged false):
    `#define`s map CUDA's names onto another vendor's API, and the typedefs give that vendor's
    types CUDA's names; the HIP build includes vendors/hip.h instead.  A copy of cuda.h maps
    its names onto CUDA's own (`cuCtxCreate_v2`) and is still reported."""
    musa = (
        "#include <musa_runtime.h>\n#define cublasCreate mublasCreate\n"
        "#define cudaStream_t musaStream_t\n#define CUDA_R_16F MUSA_R_16F\n"
        "typedef __mt_bfloat16 nv_bfloat16;\n"
    )
    assert only("HZ321", musa) == []
    copy = (
        "#define cuCtxCreate cuCtxCreate_v2\n#define cuMemAlloc cuMemAlloc_v2\n"
        "#define cuMemFree cuMemFree_v2\ntypedef unsigned long long CUdeviceptr;\n"
    )
    assert [f.line for f in only("HZ321", copy)] == [4]


_DRIVER_API = (
    "cuInit cuDeviceGet cuDeviceGetCount cuCtxCreate cuCtxDestroy cuMemAlloc cuMemFree "
    "cuMemcpyHtoD cuMemcpyDtoH cuModuleLoad cuModuleGetFunction cuLaunchKernel"
).split()


def _implementation(tmp_path: Path, functions: list[str]) -> list[int]:
    """A tree whose `cuda.h` declares the driver's types and whose `driver.cpp` defines
    ``functions`` with bodies: the lines of `check --select HZ321`."""
    tmp_path.mkdir()
    (tmp_path / "cuda.h").write_text("#pragma once\ntypedef unsigned long long CUdeviceptr;\n")
    bodies = "".join(f'extern "C" int {name}() {{ return 0; }}\n' for name in functions)
    (tmp_path / "driver.cpp").write_text('#include "cuda.h"\n' + bodies)
    args = [str(tmp_path), "--select", "HZ321", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    return [f["line"] for f in json.loads(run.stdout)["findings"]]


def test_hz321_a_tree_that_implements_the_cuda_api_declares_its_own(tmp_path):
    """cuda-metal (round 39, 7 false findings): a CUDA runtime and driver over Apple's Metal;
    its `cuda.h` declares the types its own `cuInit`, `cuMemAlloc`... implement.  A loader
    that defines a wrapper or two is still a copy of the API."""
    assert _implementation(tmp_path / "impl", _DRIVER_API) == []
    assert _implementation(tmp_path / "loader", _DRIVER_API[:2]) == [2]


def test_hz321_using_the_cuda_types_is_not_declaring_them():
    src = "#include <cuda.h>\ntypedef CUdeviceptr devptr;\nCUcontext ctx;\nvoid f(CUdeviceptr);\n"
    assert only("HZ321", src) == []


def test_hz321_only_names_the_conversion_renames_into_hip_types():
    # nccl mem_manager.h's fallback for CUDA < 12.3: ROCm 7.2.4 has no fabric handle, so the
    # name stays CUDA's and redeclares nothing of HIP's
    src = "#include <cuda.h>\ntypedef struct CUmemFabricHandle_st CUmemFabricHandle;\n"
    assert only("HZ321", src) == []
    assert len(only("HZ321", src, target_rocm=(7, 14))) == 1


def test_hz322_an_instantiation_the_hip_build_never_compiles_is_no_evidence():
    kernel = (
        "#include <cub/cub.cuh>\n"
        "template <int NT>\n__global__ void k(const int* in, int* out) {\n"
        "  typedef cub::BlockLoad<int, NT, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;\n"
        "  __shared__ typename Load::TempStorage s; int v[4]; Load(s).Load(in, v); out[0] = v[0];\n"
        "}\n"
    )
    launches = (
        "void run(const int* in, int* out) {\n#%s\n"
        "  k<32><<<1, 32>>>(in, out);\n#else\n  k<64><<<1, 64>>>(in, out);\n#endif\n}\n"
    )
    assert only("HZ322", kernel + launches % "ifndef USE_ROCM") == []
    # decoy: the same 32-thread launch where HIP compiles it (an unknown switch) is reported
    (f,) = only("HZ322", kernel + launches % "ifdef SMALL_BLOCKS")
    assert f.line == 4 and "`k<32, ...>` at line 9" in f.message


HZ340_TEMPLATES = """\
#include <cuda_bf16.h>
#include <cuda_fp16.h>
template <typename To, typename From>
__device__ To direct(From v) { return static_cast<To>(v); }
template <>
__device__ __half direct<__half, __nv_bfloat16>(__nv_bfloat16 v) {
  return __float2half(__bfloat162float(v));
}
template <typename TIn, typename TOut>
__global__ void via_float(const TIn* in, TOut* out) { out[0] = (TOut)((float)in[0]); }
template <typename TIn, typename TOut>
__global__ void c_cast(const TIn* in, TOut* out) { out[0] = (TOut)(in[0]); }
__global__ void k(const __half* h, const __nv_bfloat16* b, __half* oh, __nv_bfloat16* ob) {
  oh[0] = direct<__half, __nv_bfloat16>(b[0]);
  ob[0] = direct<__nv_bfloat16, __half>(h[0]);
  ob[1] = elsewhere<__nv_bfloat16, __half>(h[0]);
}
template void via_float<__half, __nv_bfloat16>(const __half*, __nv_bfloat16*);
template void c_cast<__half, __nv_bfloat16>(const __half*, __nv_bfloat16*);
template <typename A, typename B>
void launch(const A* a, B* b) { c_cast<A, B><<<1, 1>>>(a, b); via_float<A, B><<<1, 1>>>(a, b); }
template <typename A, typename B>
void launch_float(const A* a, B* b) { via_float<A, B><<<1, 1>>>(a, b); }
void run(const __half* h, __nv_bfloat16* b) { launch<__half, __nv_bfloat16>(h, b); }
void run_float(const __half* h, __nv_bfloat16* b) { launch_float<__half, __nv_bfloat16>(h, b); }
"""


def test_hz340_an_instantiation_only_where_the_templates_body_casts_directly():
    # the specialisation (through float) and what it serves, a template that converts through
    # float (also through another template), and one defined in another file are not
    # reported; the direct casts are, also where a template launches one with its parameters
    found = only("HZ340", HZ340_TEMPLATES)
    assert [(f.line, f.message.split("`")[1]) for f in found] == [
        (15, "direct"),
        (19, "c_cast"),
        (24, "launch"),
    ]
    assert "where its body casts one to the other" in found[0].message


def test_hz323_thrust_and_cub_through_a_namespace_of_the_project():
    """AMGX names `amgx::thrust::` (built with -DTHRUST_CUB_WRAPPED_NAMESPACE=amgx, which
    rocThrust 7.2.4 does not build with) and reopens `namespace thrust` inside `amgx`;
    lightseq's `ls::cub::` comes from CUB_NS_PREFIX.  One finding per file; Thrust's own
    qualified names are not reported."""
    src = """#include <thrust/device_vector.h>
namespace amgx {
namespace thrust { namespace handle = ::amgx; }
using device_memory = amgx::thrust::device_system_tag;
void f(amgx::thrust::device_vector<int>& v);
}
ls::cub::CachingDeviceAllocator g_allocator(true);
auto p = thrust::cuda::par;
using T = std::thrust_like;
int g(::thrust::device_vector<int>& v, thrust::system::cuda::tag t);
"""
    found = only("HZ323", src)
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(3, "4,5,7")]
    # rmm's thrust_namespace.h (round 26): only a build that wraps Thrust compiles it, and the
    # converted build files drop the wrapping flag
    wrapped_only = (
        "#include <thrust/detail/config.h>\n#ifdef THRUST_WRAPPED_NAMESPACE\n"
        "namespace THRUST_WRAPPED_NAMESPACE {\nnamespace thrust {\n}\n}\n#endif\n"
    )
    assert only("HZ323", wrapped_only) == []
    assert [f.line for f in only("HZ323", wrapped_only.replace("#ifdef", "#ifndef"))] == [4]


MULTI_ADAPTOR = """#include <thrust/device_vector.h>
#include <thrust/complex.h>
namespace multi {
namespace thrust {
namespace cuda { template <class T> using array = ::thrust::device_vector<T>; }
}
template <class T> struct traits { using real_type = typename ::thrust::complex<T>::value_type; };
}
"""
MULTI_USE = """#include "adaptor.hpp"
int main() {
  multi::thrust::cuda::array<double> a(4);
  multi::traits<float>::real_type x = 1.0f;
  return a.size() == 4 && x == 1.0f ? 0 : 1;
}
"""


def _hz323_lines(root: Path) -> list[tuple[str, int]]:
    args = [str(root), "--format", "json", "--no-cache", "--select", "HZ323"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)
    return sorted((Path(f["path"]).name, f["line"]) for f in found["findings"])


def test_hz323_a_thrust_namespace_of_the_projects_own_where_no_build_wraps_thrust(nvcc, tmp_path):
    """Boost.Multi (in qmcpack, round 32: 6 false HZ323) defines `multi::thrust::cuda::array`
    itself and names `typename ::thrust::complex<T>`: no build of the tree wraps Thrust, so
    `multi::thrust` is the project's own namespace on both platforms, and `typename` is no
    namespace.  The same tree built with `-DTHRUST_CUB_WRAPPED_NAMESPACE` is reported."""
    root = tmp_path / "multi"
    root.mkdir()
    (root / "adaptor.hpp").write_text(MULTI_ADAPTOR)
    (root / "main.cu").write_text(MULTI_USE)
    assert_nvcc_builds(nvcc, [root / "main.cu"], [], tmp_path)
    assert _hz323_lines(root) == []
    (root / "CMakeLists.txt").write_text(
        "project(m LANGUAGES CXX CUDA)\n"
        "add_executable(m main.cu)\n"
        "target_compile_definitions(m PRIVATE THRUST_CUB_WRAPPED_NAMESPACE=multi)\n"
    )
    assert _hz323_lines(root) == [("adaptor.hpp", 4), ("main.cu", 3)]


NAMESPACED_ATOMICS = """#include <cuda_runtime.h>
namespace diagnose {
__device__ float atomicMin(float* address, float val) {
  int* p = (int*)address;
  int old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(fminf(val, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void smallest(const float* x, float* out) { atomicMin(out, x[threadIdx.x]); }
}  // namespace diagnose
"""


def test_hz318_an_atomic_of_a_named_namespace_is_its_own(nvcc, gfx942_check, tmp_path):
    """HugeCTR's `diagnose::atomicMin(float*, float)` (round 22): a function of its namespace,
    which the calls there find first, no redefinition of HIP's; at global scope it is one."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", NAMESPACED_ATOMICS)
    assert only("HZ318", NAMESPACED_ATOMICS) == []
    flat = NAMESPACED_ATOMICS.replace("namespace diagnose {\n", "").replace(
        "}  // namespace diagnose\n", ""
    )
    assert [f.line for f in only("HZ318", flat)] == [2]
    (tmp_path / "b.hip").write_text(hip(flat))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0  # the redefinition it reports


# CUDASW4's hpc_helpers (compile round 31): atomics for std::uint64_t forwarded to CUDA's
# unsigned long long ones; ROCm 7.2.4 overloads them for unsigned long itself
UINT64_ATOMICS = """#include <cstdint>
__device__ inline std::uint64_t atomicCAS(std::uint64_t* a, std::uint64_t c, std::uint64_t v) {
  return atomicCAS(reinterpret_cast<unsigned long long*>(a), (unsigned long long)c,
                   (unsigned long long)v);
}
__device__ inline long atomicAnd(long* a, long v) {
  return (long)atomicAnd(reinterpret_cast<unsigned long long*>(a), (unsigned long long)v);
}
__global__ void mark(std::uint64_t* flags, long* bits) {
  atomicCAS(flags, 0ull, 1ull);
  atomicAnd(bits, 3l);
}
"""


def test_hz318_an_atomic_on_unsigned_long_is_hips_own(nvcc, gfx942_check, tmp_path):
    """HIP has `unsigned long` overloads CUDA lacks (`std::uint64_t` on Linux): a redefinition;
    HIP has none for `long`, so that helper stays the one calls use."""
    (tmp_path / "a.cu").write_text(UINT64_ATOMICS)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    found = only("HZ318", UINT64_ATOMICS)
    assert [f.line for f in found] == [2] and "uint64_t" in found[0].message
    other = "__device__ int atomicAdd(int* p, size_t n) { return atomicAdd(p, (int)n); }\n"
    assert only("HZ318", other) == []  # a count of size_t, not an atomic on one
    (tmp_path / "a.hip").write_text(hip(UINT64_ATOMICS))
    proc = gfx942_check(tmp_path / "a.hip")
    assert proc.returncode != 0 and "redefinition of 'atomicCAS'" in proc.stderr
    guarded = UINT64_ATOMICS.replace(
        "__device__ inline std::uint64_t", "#if 0\n__device__ inline std::uint64_t", 1
    )
    guarded = guarded.replace("__device__ inline long", "#endif\n__device__ inline long", 1)
    (tmp_path / "b.hip").write_text(hip(guarded))
    assert gfx942_check(tmp_path / "b.hip").returncode == 0, "only the reported one is wrong"


def test_hz318_an_atomic_its_anonymous_namespace_alone_calls_is_its_own(
    nvcc, gfx942_check, tmp_path
):
    """CV-CUDA's `OpFindHomography.cu` (round 29): `atomicMax(float*, float)` in the file's
    anonymous namespace, called only there, where lookup finds it first; a call from outside
    the namespace sees HIP's too, and is ambiguous."""
    anonymous = NAMESPACED_ATOMICS.replace("namespace diagnose {", "namespace {")
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", anonymous)
    assert only("HZ318", anonymous) == []
    outside = anonymous.replace("}  // namespace diagnose\n", "").replace(
        "__global__ void smallest", "}\n__global__ void smallest"
    )
    assert [f.line for f in only("HZ318", outside)] == [3]
    (tmp_path / "b.hip").write_text(hip(outside))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0


SPECIALIZED_ATOMICS = """#include <cuda_runtime.h>
template <typename T>
__inline__ __device__ T atomicAdd(T* address, const T value) {
  return atomicAdd(address, value);
}
template <>
__inline__ __device__ double atomicAdd(double* address, const double val) {
  unsigned long long* p = (unsigned long long*)address;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
__global__ void sum(const double* x, double* out) { atomicAdd(out, x[threadIdx.x]); }
"""


def test_hz318_a_specialization_of_the_files_template_is_its_own(nvcc, gfx942_check, tmp_path):
    """cuDSS samples' `template <> double atomicAdd(double*, double)` (round 23): a
    specialization of the file's template coexists with HIP's plain overload (calls pick
    HIP's); the same function without `template <>` is the redefinition reported."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", SPECIALIZED_ATOMICS)
    assert only("HZ318", SPECIALIZED_ATOMICS) == []
    plain = SPECIALIZED_ATOMICS.replace("template <>\n", "")
    assert [f.line for f in only("HZ318", plain)] == [6]
    (tmp_path / "b.hip").write_text(hip(plain))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0


# TCLB's cross.hpp (round 36): an atomicAdd on a pointer to const, for its read-only fields
CONST_POINTER_ATOMIC = """#include <cuda_runtime.h>
__device__ inline void atomicAdd(const double* address, const double& val) {
  atomicAdd(const_cast<double*>(address), val);
}
__global__ void sum(const double* x, double* out, const double* ro) {
  atomicAdd(out, x[threadIdx.x]);
  atomicAdd(ro, x[threadIdx.x]);
}
"""


def test_hz318_an_atomic_on_a_pointer_to_const_is_another_overload(nvcc, gfx942_check, tmp_path):
    """`atomicAdd(const double*, const double&)` beside HIP's `atomicAdd(double*, double)`:
    calls with a plain pointer pick HIP's, with a pointer to const the project's; the same
    helper on a plain pointer is the redefinition (here: an ambiguous call) reported."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", CONST_POINTER_ATOMIC)
    assert only("HZ318", CONST_POINTER_ATOMIC) == []
    plain = CONST_POINTER_ATOMIC.replace(
        "atomicAdd(const double* address", "atomicAdd(double* address"
    )
    assert [f.line for f in only("HZ318", plain)] == [2]
    (tmp_path / "b.hip").write_text(hip(plain))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0


# MMseqs2's libmarv (round 36), built with hipcc by its own CMake: a file that tests HIP's
# compiler itself means NVIDIA's by `__CUDACC__`
DUAL_SOURCE_ATOMICS = """#include <cstdint>
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#ifdef __CUDACC__
__device__ inline std::uint64_t atomicAdd(std::uint64_t* a, std::uint64_t v) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(a), (unsigned long long)v);
}
#endif
__global__ void count(std::uint64_t* n) { atomicAdd(n, std::uint64_t(1)); }
"""


def test_cudacc_in_a_file_that_tests_hips_compiler_is_nvidias(nvcc, gfx942_check, tmp_path):
    """There `__CUDACC__` stays, HIP leaves it undefined, and the atomic HIP has already is
    no HIP code; in a file that does not test HIP's compiler it is HIP's `__HIPCC__`, and the
    helper is the redefinition HZ318 reports."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", DUAL_SOURCE_ATOMICS)
    assert "#ifdef __CUDACC__" in hip(DUAL_SOURCE_ATOMICS)
    assert only("HZ318", DUAL_SOURCE_ATOMICS) == []
    cuda_only = DUAL_SOURCE_ATOMICS.replace(
        "#if defined(__HIPCC__)\n#include <hip/hip_runtime.h>\n#endif\n", ""
    )
    assert "#ifdef __HIPCC__" in hip(cuda_only)
    assert [f.line for f in only("HZ318", cuda_only)] == [3]
    (tmp_path / "b.hip").write_text(hip(cuda_only))
    assert gfx942_check(tmp_path / "b.hip").returncode != 0


# Magicube's SDDMM (round 36): each kernel declares its three fragments 32x8x16
RETILED_KERNELS = """#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
__global__ void sddmm(const half* a, const half* b, float* c) {
  int warp = threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a + warp * 512, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c + warp * 256, acc, 8, wmma::mem_row_major);
}
__global__ void square(const half* a, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::fill_fragment(acc, 0.0f);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
"""


def test_hz313_a_kernels_unsupported_shapes_are_one_retiling(nvcc, tmp_path):
    """One error per kernel at its first 32x8x16 fragment, the others its dependent lines,
    and no geometry warning beside it (the retiling is the geometry); a kernel of 16x16x16
    fragments keeps its warning."""
    (tmp_path / "a.cu").write_text(RETILED_KERNELS)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    found = only("HZ313", RETILED_KERNELS)
    assert [(f.line, f.severity) for f in found] == [(6, Severity.ERROR), (16, Severity.WARNING)]
    assert "a 32x8x16 WMMA fragment" in found[0].message
    assert "line 5 divides by 32" in found[0].message
    assert found[0].message.endswith("dependent lines: 7, 8")
    assert found[0].extra == {"related_lines": "7,8"}


# HeCBench's cm-cuda (a silent TU once the rule above came in): its `utils.h` tests
# `__HIPCC__`, but only CUDA sources include it, and they use what it defines under
# `__CUDACC__` alone
CM_UTILS = """#pragma once
#include <cstdio>
#include <cstdlib>
#if defined(__CUDACC__)
#define CUDA_CHECK_RETURN(value) { cudaError_t s = value; if (s != cudaSuccess) exit(1); }
#endif
#if defined(__HIPCC__)
#define HIP_CHECK_RETURN(value) { hipError_t s = value; if (s != hipSuccess) exit(1); }
#endif
"""
CM_SOURCE = """#include <cuda_runtime.h>
#include "utils.h"
__global__ void fill(int* p) { p[threadIdx.x] = 1; }
int main() {
  int* d;
  CUDA_CHECK_RETURN(cudaMalloc(&d, 64 * sizeof(int)));
  fill<<<1, 64>>>(d);
  CUDA_CHECK_RETURN(cudaFree(d));
  return 0;
}
"""


def test_cudacc_is_the_compilers_where_only_cuda_sources_reach_the_file(
    nvcc, gfx942_check, tmp_path
):
    files = {"utils.h": CM_UTILS, "cm.cu": CM_SOURCE}
    out = converted_tree(nvcc, tmp_path, "cm", files, "cm.cu")
    assert "#if defined(__HIPCC__)\n#define CUDA_CHECK_RETURN" in (out / "utils.h").read_text()
    assert_converted_compiles(out, "cm.cu", gfx942_check)
    # decoy: a source of the tree that includes HIP's runtime header (built by hipcc as it
    # is) makes the header's `__CUDACC__` NVIDIA's, as in MMseqs2's libmarv
    hip_source = (
        '#if defined(__HIPCC__)\n#include <hip/hip_runtime.h>\n#endif\n#include "utils.h"\n'
    )
    (tmp_path / "b").mkdir()
    dual = converted_tree(nvcc, tmp_path / "b", "cm", {**files, "marv.cu": hip_source}, "cm.cu")
    assert "#if defined(__CUDACC__)\n#define CUDA_CHECK_RETURN" in (dual / "utils.h").read_text()


GLOBAL_WARP_SIZE = """#include <cstdio>
inline constexpr int warpSize = 32;
namespace gemm { constexpr int warpSize = 32; }
struct Tile { static constexpr int warpSize = 32; };
__global__ void k(int* o) {
  constexpr int warpSize = 32;
  o[threadIdx.x] = warpSize + gemm::warpSize + Tile::warpSize;
}
"""


def test_hz318_a_global_warp_size_variable_is_a_redefinition(nvcc, gfx942_check, tmp_path):
    """chongchen1999's `commons.cuh` defines `inline constexpr int warpSize = 32;` (compile
    round 45): ROCm 7.2.4 defines a global `warpSize` too.  The copies in a namespace, a class
    and a function are the project's own names and compile."""
    (tmp_path / "ws.cu").write_text(GLOBAL_WARP_SIZE)
    assert_nvcc_builds(nvcc, [tmp_path / "ws.cu"], [], tmp_path)
    (f,) = only("HZ318", GLOBAL_WARP_SIZE)
    assert f.line == 2 and "redefinition" in f.message
    (tmp_path / "ws.hip").write_text(hip(GLOBAL_WARP_SIZE))
    assert "redefinition of 'warpSize'" in gfx942_check(tmp_path / "ws.hip").stderr
    scoped = hip(GLOBAL_WARP_SIZE.replace("inline constexpr int warpSize = 32;\n", ""))
    (tmp_path / "ws.hip").write_text(scoped)
    assert gfx942_check(tmp_path / "ws.hip").returncode == 0
    assert (
        only("HZ318", GLOBAL_WARP_SIZE.replace("inline constexpr int warpSize = 32;\n", "")) == []
    )
