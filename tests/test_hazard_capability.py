"""HZ5xx: capability gates and version semantics."""

from __future__ import annotations

import subprocess

from test_hazard_common import only, rules_of


def test_hz501_cuda_arch_gates_and_guards():
    src = """__device__ float f(float x) {
#if __CUDA_ARCH__ >= 800
  return x * 2;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
  return x;
#endif
}
#ifdef __CUDA_ARCH__
#define ON_DEVICE 1
#endif"""
    found = only("HZ501", src)
    # line 4 is the old-GPU fallback HIP skips, as the sm_90 device pass does; line 8 asks for
    # the device pass, which convert rewrites (test_convert_device_pass_guards)
    assert [f.line for f in found] == [2]
    assert ">= 800" in found[0].message
    # a device-pass test convert does not rewrite (in a macro body) is still reported
    (guard,) = only("HZ501", "#define ON_DEVICE defined(__CUDA_ARCH__)\n#if ON_DEVICE\n#endif\n")
    assert "__HIP_DEVICE_COMPILE__" in guard.message
    assert "HZ300" not in rules_of(src)  # the dedicated rule, not the generic one


HZ501_AS_ON_CURRENT_GPUS = """#include <cuda_bf16.h>
#include <cassert>
// the vLLM-style bf16 helpers (attention-paged): the fallback is for GPUs older than sm_80
__device__ float2 to_float2(const __nv_bfloat162 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  assert(false);
  return float2{0.f, 0.f};
#else
  return __bfloat1622float2(v);
#endif
}
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 600 || CUDA_VERSION < 8000)
__device__ double add(double* a, double v) { return *a += v; }
#endif
#if (!defined(__CUDA_ARCH__) || (__CUDA_ARCH__ >= 800))
#define HAS_ASYNC_COPY 1
#endif
#if __CUDA_ARCH__ >= 700
__device__ int fast() { return 1; }
#endif
#if (__CUDACC_VER_MAJOR__ * 10000 + __CUDACC_VER_MINOR__ * 100 < 120200) && \\
    (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800))
#define OLD_BF16 1
#endif
"""


def test_hz501_gates_hip_evaluates_as_a_current_gpu_are_not_reported(tmp_path, nvcc):
    # real CUDA: it compiles for sm_90
    (tmp_path / "g.cu").write_text(HZ501_AS_ON_CURRENT_GPUS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "g.cu"), "-o", str(tmp_path / "g.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # only the `>= 700` gate, which HIP never takes but sm_90 does, is reported
    assert [f.line for f in only("HZ501", HZ501_AS_ON_CURRENT_GPUS)] == [18]


def test_hz502_compute_capability_checks():
    src = """void f() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major >= 8) {}
  int cc = prop.major * 10 + prop.minor;
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0);
  printf("%s %d\\n", prop.name, cc);
}
struct Version { int major, minor; };
bool newer(Version a) { return a.major > 2; }"""
    found = only("HZ502", src)
    # the attribute query at line 7 stores a value nothing tests: it decides nothing
    assert [f.line for f in found] == [4, 5]
    # atomicSystemWide: a waiver for old GPUs, which gfx942 (9) fails like sm_80/sm_90 do
    waiver = src.replace("prop.major >= 8", "prop.major < 6")
    assert [f.line for f in only("HZ502", waiver)] == [5]
    negated = src.replace("if (prop.major >= 8) {}", "if (!(prop.major >= 5)) return;")
    assert [f.line for f in only("HZ502", negated)] == [5]
    assert [f.line for f in only("HZ502", src.replace("prop.major >= 8", "prop.major < 9"))] == [
        4,
        5,
    ]
    # apex, cudpp: gfx942 answers as a Volta does (the path without the feature): not reported
    for portable in ("prop.major >= 10", "prop.major == 8", "prop.major < 2"):
        assert [f.line for f in only("HZ502", src.replace("prop.major >= 8", portable))] == [5]


def test_hz502_tests_that_decide_nothing_on_gfx942():
    # lightseq gemm_test: a printed version, a Turing test; a Hopper test is reported
    src = """void f() {
  cudaDeviceProp devProp;
  cudaGetDeviceProperties(&devProp, 0);
  printf("compute SM %d\\n", devProp.major * 10 + devProp.minor);
  if (devProp.major == 7 && devProp.minor == 5) { printf("turing\\n"); }
  if (devProp.major == 9 && devProp.minor == 0) { printf("hopper\\n"); }
}"""
    assert [f.line for f in only("HZ502", src)] == [6]


def test_hz502_a_test_every_cdna_gpu_answers_as_a_baseline_gpu_does():
    """The whole expression is evaluated for gfx90a/gfx942/gfx950 (9.0/9.4/9.5) and for Pascal
    (6.1) and Turing (7.5): AMGX's `major >= 7` grid sizes, FasterTransformer's pre-Turing
    exit and cudpp's `major * 10 + minor >= 12` decide nothing; TF32 at `>= 8`, an SM number
    and a Hopper test that gfx90a (9.0) passes are reported."""
    src = """void f() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (!(prop.major >= 8 || (prop.major >= 7 && prop.minor >= 5))) { exit(-1); }
  int grid = (prop.major >= 7) ? 1024 : 128;
  bool sm12 = (prop.major * 10 + prop.minor) >= 12;
  bool tf32 = prop.major >= 8;
  int sm = prop.major * 10 + prop.minor;
  bool hopper = prop.major == 9 && prop.minor == 0;
}"""
    assert [f.line for f in only("HZ502", src)] == [7, 8, 9]


def test_code_the_project_wrote_for_hip_has_no_cuda_premise_findings():
    """ggml's `#if defined(GGML_USE_HIP)` branch reads GFXIP major.minor on purpose: only the
    project's HIP build compiles it, so HZ502 (a rule about CUDA code) does not report it; the
    same test in code both builds compile is reported, and a HIP-only branch still gets the
    rules about code HIP compiles (HZ106's 32-bit mask)."""
    src = """void f(cudaDeviceProp prop, int* cc) {
#if defined(GGML_USE_HIP)
  if (prop.major > 0) { *cc = 0x1000000 + prop.major * 0x100 + prop.minor * 0x10; }
#else
  *cc = prop.major * 100;
#endif
  *cc += prop.major * 10 + prop.minor;
}
__device__ int g(int v) {
#ifdef USE_ROCM
  return __shfl_xor_sync(0xffffffff, v, 1);
#else
  return v;
#endif
}"""
    assert [f.line for f in only("HZ502", src)] == [7]
    assert [f.line for f in only("HZ106", src)] == [11]


def test_hz502_pytorch_device_properties():
    src = "bool sm80() { return at::cuda::getCurrentDeviceProperties()->major >= 8; }\n"
    assert len(only("HZ502", src)) == 1


def test_hz501_nvcc_target_list_and_gates_all_current_gpus_pass():
    """ggml: `#ifdef __CUDA_ARCH_LIST__` with an `#else` HIP takes is a fallback; the list is
    no device-pass guard (nvcc defines it in both passes); `__CUDA_ARCH__ != 610` next to a
    project macro takes, on HIP, the branch of every current GPU whatever that macro is."""
    src = """#ifdef __CUDA_ARCH_LIST__
constexpr int highest(int arch) { return __CUDA_ARCH_LIST__; }
#else
static int highest(int arch) { return arch; }
#endif
#if defined(FP16_AVAILABLE) && __CUDA_ARCH__ != 610
#define FAST_FP16_AVAILABLE
#endif
void features() {
#ifdef __CUDA_ARCH_LIST__
  puts("archs");
#endif
}
"""
    [found] = only("HZ501", src)
    assert found.line == 10 and "nvcc's list of target GPUs" in found.message


def test_hz501_one_gate_repeated_is_one_finding():
    # cudpp sa_kernel.cuh: `#if __CUDA_ARCH__ >= 200` around each of a dozen kernels
    gate = "#if __CUDA_ARCH__ >= 200\nint k{n};\n#endif\n"
    src = "".join(gate.format(n=n) for n in range(3)) + "#if __CUDA_ARCH__ >= 700\nint m;\n#endif\n"
    found = only("HZ501", src)
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(1, "4,7"), (10, None)]


def test_hz501_a_fallback_hip_takes_is_not_a_dropped_path():
    # ColossalAI, CTranslate2: `#else` computes the same; a trap or no #else is reported
    src = """__device__ float f(float a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __fmaf_rn(a, a, a);
#else
  return a * a + a;
#endif
}
__global__ void k(float* x) {
#if __CUDA_ARCH__ >= 900
  x[0] = f(x[1]);
#else
  printf("unsupported\\n");
  assert(false);
#endif
}
__global__ void g(float* x) {
#if __CUDA_ARCH__ >= 700
  x[0] = 1;
#endif
}
#if __CUDA_ARCH__ >= 800
__global__ void h(float* x) { x[0] = 2; }
#else
__global__ void h(float* x) { }
#endif
"""
    # line 21: CTranslate2's flash kernels, whose #else is an empty body
    assert [f.line for f in only("HZ501", src)] == [9, 17, 21]


def test_hz501_an_elif_chain_with_a_fallback_is_one_group():
    # xgboost's `#elif __CUDA_ARCH__ >= 860` chain of launch-bound aliases ends in an #else;
    # a chain with no #else leaves HIP nothing, at each gate
    src = """template <int B> struct T {};
#if __CUDA_ARCH__ >= 900
using Bound = T<1024>;
#elif __CUDA_ARCH__ >= 800
using Bound = T<768>;
#else
using Bound = T<512>;
#endif
__global__ void k(float* p) {
#if __CUDA_ARCH__ >= 800
  p[0] = 1.f;
#elif __CUDA_ARCH__ >= 700
  p[0] = 2.f;
#endif
}
"""
    assert [f.line for f in only("HZ501", src)] == [10, 12]


def test_hz501_a_gate_that_only_picks_tuning_values_is_not_reported():
    """llm.c's `MAX_1024_THREADS_BLOCKS`: every branch, #else included, defines the same macro
    as a number, so HIP gets the #else value (a launch-bounds hint), not a dropped code path."""
    tuning = (
        "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900\n#define MAX_BLOCKS 2\n"
        "#else\n#define MAX_BLOCKS 1\n#endif\n"
    )
    assert only("HZ501", tuning) == []
    # no #else (HIP gets no value), other names per branch, or code in a branch: reported
    for src in (
        "#if __CUDA_ARCH__ >= 800\n#define MAX_BLOCKS 2\n#endif\n",
        "#if __CUDA_ARCH__ >= 800\n#define MAX_BLOCKS 2\n#else\n#define MIN_BLOCKS 1\n#endif\n",
        "#if __CUDA_ARCH__ >= 800\n#define MAX_BLOCKS 2\nint fast = 1;\n#else\n"
        "#define MAX_BLOCKS 1\n#endif\n",
    ):
        assert [f.line for f in only("HZ501", src)] == [1], src


def test_hz504_the_parameter_after_a_properties_pointer_is_not_one():
    """`(cudaDeviceProp* prop, bool sparse)`: the comma starts the next parameter, so `bool`
    is no properties variable and `sizeof(bool)` elsewhere is not the struct's size (a
    constructor with an initializer list leaves its parameters at file scope); a declaration
    of two properties variables still names both."""
    src = """template<typename T>
Layer<T>::Layer(int n, cudaDeviceProp* prop, bool sparse) : Base(prop, sparse), n_(n) {}
template<typename T>
void Layer<T>::alloc(int n) { cudaMalloc(&buf_, sizeof(bool) * n); }
void same(int* out) {
  cudaDeviceProp a, b;
  *out = sizeof(b);
}"""
    assert [f.line for f in only("HZ504", src)] == [7]


def test_hz501_gates_that_only_respell_cuda_apis_or_fall_back_to_a_macro():
    """ccminer: a gate that only defines CUDA API names HIP has (`__ldg` as a plain load for
    old GPUs, `__shfl` as `__shfl_sync` for CUDA 9) drops nothing; a PTX path with a macro
    fallback HIP takes (`#elif !defined(ld)` / `#define ld(x) (*(x))`) is a fallback. A gate
    that defines a project name only for newer GPUs is still a dropped path."""
    shims = """#include <cuda.h>
#if __CUDA_ARCH__ < 320
#define __ldg(x) (*(x))
#endif
#if CUDA_VERSION >= 9000 && __CUDA_ARCH__ >= 300
#undef __shfl
#define __shfl(var, srcLane, width) __shfl_sync(0xFFFFFFFFu, var, srcLane, width)
#endif
#if __CUDA_ARCH__ >= 320
__device__ int ld(const int* p) {
  int r;
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
#elif !defined(ld)
#define ld(x) (*(x))
#endif
#if __CUDA_ARCH__ >= 320
#define FAST_LOAD(x) __ldg(x)
#endif
"""
    assert [f.line for f in only("HZ501", shims)] == [18]


def test_hz502_an_attribute_query_is_judged_by_the_tests_of_its_variable():
    """fastllm: `cudaDeviceGetAttribute(&major, ...Major, dev)` then `major != 12 || minor != 0`
    inside a longer condition: every CDNA GPU answers as a Pascal or Turing GPU does (not an
    SM120), so nothing is reported; `cc >= 8` (gfx942 passes as an Ampere) and arithmetic
    (`major * 10 + minor`) are."""
    gate = """bool sm120(int sms) {
  int device = -1, major = 0, minor = 0, n = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      major != 12 || minor != 0 || n != sms) {
    return false;
  }
  return true;
}
bool tf32() {
  int cc = 0;
  cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, 0);
  return cc >= 8;
}
int arch() {
  int dev = 0, major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}
"""
    assert [f.line for f in only("HZ502", gate)] == [13, 18, 19]
