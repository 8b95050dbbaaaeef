"""Files that are not the project's to port (``not_ported.py``): a copy of a CUDA library the
conversion replaces with its ROCm counterpart reports no hazard, a TensorRT source only the
TensorRT include; the project's own code next to them keeps every finding."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check
from hipify_py.findings import Severity
from hipify_py.pipeline import check_result
from test_hazard_common import ctx, findings, rules_of

# what a copy of CUB holds and a project's kernel may hold too: PTX and a 32-bit lane mask
PTX_AND_MASK = """
__device__ __forceinline__ unsigned int LaneMaskLt() {
    unsigned int ret;
    asm ("mov.u32 %0, %%lanemask_lt;" : "=r"(ret));
    return ret;
}
extern "C" __global__ void lane_masks(unsigned int* out) { out[threadIdx.x] = LaneMaskLt(); }
"""
OLD_CUB_COPY = f"""
#pragma once
#include "util_namespace.cuh"
CUB_NS_PREFIX
namespace cub {{
{PTX_AND_MASK}
template <int LOGICAL_WARP_THREADS>
struct WarpId {{ int lane; }};
}}  // CUB namespace
CUB_NS_POSTFIX
"""


def test_the_code_of_a_cub_copy_is_a_hazard_in_the_projects_own_namespace():
    """The decoy for every copy below: the same code as the project's own is reported."""
    src = OLD_CUB_COPY.replace("namespace cub", "namespace mylib")
    assert {"HZ108", "HZ310"} <= set(rules_of(src, "util_ptx.cuh"))


def test_a_copy_of_cub_reports_nothing():
    assert findings(OLD_CUB_COPY, "util_ptx.cuh") == []


def test_a_copy_of_cub_that_only_defines_its_macros_reports_nothing():
    src = """
namespace cub {
#ifndef CUB_PTX_ARCH
  #ifndef __CUDA_ARCH__
    #define CUB_PTX_ARCH 0
  #else
    #define CUB_PTX_ARCH __CUDA_ARCH__
  #endif
#endif
}
"""
    assert "HZ501" in rules_of(src.replace("namespace cub", "namespace mine"), "arch.cuh")
    assert findings(src, "arch.cuh") == []


def test_a_copy_of_newer_cub_or_thrust_reports_nothing():
    body = PTX_AND_MASK + "template <typename T> struct Traits { T x; };\n"
    for begin, end in (("CUB", "CUB"), ("THRUST", "THRUST")):
        src = f"#pragma once\n{begin}_NAMESPACE_BEGIN\n{body}{end}_NAMESPACE_END\n"
        assert findings(src, "copy.cuh") == []


def test_a_project_that_uses_cub_keeps_its_findings():
    src = """
#include <cub/cub.cuh>
using namespace cub;
__global__ void k(const int* in, int* out) {
    typedef cub::BlockReduce<int, 128> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    unsigned int lane;
    asm ("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[0] = Reduce(tmp).Sum(in[threadIdx.x]);
}
"""
    assert "HZ310" in rules_of(src)


def test_a_project_that_specialises_cub_traits_keeps_its_findings():
    src = (
        """
#include <cub/cub.cuh>
struct my_half { unsigned short bits; };
namespace cub {
template <>
struct NumericTraits<my_half> : BaseTraits<FLOATING_POINT, true, false, unsigned short, my_half> {};
template <> struct FpLimits<my_half> { static my_half Max(); };
}  // namespace cub
"""
        + PTX_AND_MASK
    )
    assert {"HZ108", "HZ310"} <= set(rules_of(src))


def test_a_project_file_with_a_small_helper_in_the_cub_namespace_keeps_its_findings():
    """Most of the file is the project's own code: one helper it adds to ``cub`` does not
    make the file a copy of CUB."""
    src = (
        "namespace cub { struct MyOp { int x; }; }\n"
        + PTX_AND_MASK
        + """
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { x[i] = x[i] * a + 1.0f; }
}
"""
    )
    assert {"HZ108", "HZ310"} <= set(rules_of(src))


FP8_HEADER = """
#if !defined(__CUDA_FP8_HPP__)
#define __CUDA_FP8_HPP__
struct __CUDA_ALIGN__(2) __nv_fp8x2_e4m3 {
    unsigned short __x;
    __host__ __device__ __nv_fp8x2_e4m3() {}
    __device__ explicit __nv_fp8x2_e4m3(const __half2 f) {
        unsigned int h;
        asm("{ mov.b32 %0, {%1,%2};}" : "=r"(h) : "h"(f.x), "h"(f.y));
        __x = (unsigned short)h;
    }
};
#endif
"""


def test_a_copy_of_nvidias_fp8_header_reports_nothing():
    assert findings(FP8_HEADER, "cuda_fp8.hpp") == []


def test_a_projects_own_fp8_type_without_nvidias_guard_keeps_its_findings():
    src = FP8_HEADER.replace("__CUDA_FP8_HPP__", "MY_FP8_H")
    assert "HZ310" in rules_of(src, "my_fp8.h")


PLUGIN_HEADER = """
#pragma once
#include <NvInfer.h>
#include "NvInferPlugin.h"
#include <cudnn.h>
#include <cublas_v2.h>
namespace nvinfer1 {
class MyPlugin : public IPluginV2DynamicExt {
public:
    void attachToContext(cudnnContext* cudnn, cublasContext* cublas, IGpuAllocator* a) noexcept;
    cudnnHandle_t handle_ = nullptr;
};
}  // namespace nvinfer1
"""


def test_a_tensorrt_plugin_reports_one_error_at_its_tensorrt_include():
    found = check_result(PLUGIN_HEADER, "MyPlugin.h", ctx()).findings
    [hp001] = found
    assert (hp001.rule, hp001.line, hp001.severity) == ("HP001", 3, Severity.ERROR)
    assert "TensorRT has no ROCm port" in hp001.message and "also at lines 4" in hp001.message


def test_a_tensorrt_plugin_source_without_the_include_reports_nothing():
    src = """
#include "MyPlugin.h"
namespace nvinfer1 {
void MyPlugin::attachToContext(cudnnContext*, cublasContext*, IGpuAllocator*) noexcept {}
int MyPluginCreator::sm() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    return prop.major * 10 + prop.minor;
}
REGISTER_TENSORRT_PLUGIN(MyPluginCreator);
}  // namespace nvinfer1
"""
    assert {"HZ300", "HZ502"} <= set(rules_of(src.replace("REGISTER_TENSORRT_PLUGIN", "REG")))
    assert check_result(src, "MyPlugin.cu", ctx()).findings == []


def test_the_same_code_outside_a_tensorrt_source_keeps_its_findings():
    src = PLUGIN_HEADER.replace('#include <NvInfer.h>\n#include "NvInferPlugin.h"\n', "")
    src = src.replace("nvinfer1", "mine")
    assert "HZ300" in rules_of(src, "MyPlugin.h")


def _tree_report(tmp_path, project: str) -> list[dict]:
    """The findings of `check` over the tree, as a user runs it."""
    args = [str(tmp_path / project), "--format", "json", "--no-cache", "--select", "HZ"]
    return json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]


def _tree_findings(tmp_path, project: str = "quda") -> list[tuple[str, str]]:
    """(rule, file path relative to the tree) of `check` over the tree, as a user runs it."""
    root = (tmp_path / project).resolve()
    found = _tree_report(tmp_path, project)
    return sorted(
        (f["rule"], Path(f["path"]).resolve().relative_to(root).as_posix()) for f in found
    )


def test_the_cuda_backend_beside_the_projects_own_hip_backend_is_not_its_port(tmp_path):
    """QUDA keeps `include/targets/cuda` and `include/targets/hip` and builds the HIP one for
    AMD (round 15: 8 findings in the CUDA one, all judged false); the shared code keeps its
    findings, and without the HIP backend the CUDA one is the port."""
    targets = tmp_path / "quda" / "include" / "targets"
    (targets / "cuda").mkdir(parents=True)
    (targets / "hip").mkdir()
    (targets / "cuda" / "lanes.cuh").write_text(PTX_AND_MASK)
    (targets / "hip" / "lanes.h").write_text("#include <hip/hip_runtime.h>\n")
    (tmp_path / "quda" / "common.cu").write_text(PTX_AND_MASK)
    assert _tree_findings(tmp_path) == [("HZ310", "common.cu")]
    (targets / "hip" / "lanes.h").unlink()
    (targets / "hip").rmdir()
    assert ("HZ310", "include/targets/cuda/lanes.cuh") in _tree_findings(tmp_path)
    # xmr-stak (round 26): `backend/nvidia` beside the project's own `backend/amd`
    (targets / "amd").mkdir()
    (targets / "amd" / "gpu.cpp").write_text("int amd_backend() { return 1; }\n")
    (targets / "cuda").rename(targets / "nvidia")
    assert _tree_findings(tmp_path) == [("HZ310", "common.cu")]
    # taichi (round 33): `rhi/cuda` beside the project's own `rhi/amdgpu`
    (targets / "amd").rename(targets / "amdgpu")
    (targets / "nvidia").rename(targets / "cuda")
    assert _tree_findings(tmp_path) == [("HZ310", "common.cu")]


def test_a_cuda_directory_beside_its_hip_namesake_is_not_the_port(nvcc, tmp_path):
    """cuda_irregular_ops keeps `benchmark/data/cuda_code_test/*.cu` beside the
    `hip_code_test/*.hip` its HIP tests build (round 44: 5 false HZ313): a directory whose
    name says CUDA beside one that says HIP in its place is a CUDA backend; the HIP one is
    code only the HIP build compiles (HZ107 is not its port's, HZ310 still fails there)."""
    data = tmp_path / "irr" / "benchmark" / "data"
    (data / "cuda_code_test").mkdir(parents=True)
    (data / "hip_code_test").mkdir()
    (data / "cuda_code_test" / "k.cu").write_text(MIXED_WARP)
    assert_nvcc_builds(nvcc, [data / "cuda_code_test" / "k.cu"], [], tmp_path)
    (data / "hip_code_test" / "k.hip").write_text("#include <hip/hip_runtime.h>\n" + MIXED_WARP)
    (tmp_path / "irr" / "common.cu").write_text(PTX_AND_MASK)
    assert _tree_findings(tmp_path, "irr") == [
        ("HZ310", "benchmark/data/hip_code_test/k.hip"),
        ("HZ310", "common.cu"),
    ]
    # decoy: a directory of another name beside the CUDA one changes nothing
    (data / "hip_code_test").rename(data / "cpp_code_test")
    assert ("HZ107", "benchmark/data/cuda_code_test/k.cu") in _tree_findings(tmp_path, "irr")


def test_a_cuda_file_beside_its_hip_twin_is_not_the_port(tmp_path):
    """FlexFlow keeps `softmax.cu` beside the `softmax.cpp` its ROCm build compiles (which
    includes HIP through its own `hip_helper.h`), and `cuda_helper.h` beside `hip_helper.h`
    (round 29: 5 false HZ300); a `.cpp` that is no HIP code is no twin."""
    kernels = tmp_path / "ff" / "kernels"
    kernels.mkdir(parents=True)
    (kernels / "softmax.cu").write_text(PTX_AND_MASK)
    (kernels / "softmax.cpp").write_text('#include "hip_helper.h"\nhipStream_t s;\n')
    (kernels / "cuda_helper.h").write_text(PTX_AND_MASK)
    (kernels / "hip_helper.h").write_text("#include <hip/hip_runtime.h>\n")
    (kernels / "other.cu").write_text(PTX_AND_MASK)
    assert _tree_findings(tmp_path, "ff") == [("HZ310", "kernels/other.cu")]
    # fastllm's `fastllm-cuda.cuh` includes the `fastllm-hip.h` of its HIP shims: no twin
    (kernels / "cuda_helper.h").write_text('#include "hip_helper.h"\n' + PTX_AND_MASK)
    assert ("HZ310", "kernels/cuda_helper.h") in _tree_findings(tmp_path, "ff")
    (kernels / "cuda_helper.h").write_text(PTX_AND_MASK)
    (kernels / "softmax.cpp").write_text("int host_only() { return 0; }\n")
    (kernels / "hip_helper.h").unlink()
    assert [p for _r, p in _tree_findings(tmp_path, "ff")] == [
        "kernels/cuda_helper.h",
        "kernels/other.cu",
        "kernels/softmax.cu",
    ]


def test_a_cuda_file_beside_its_hip_suffixed_twin_is_not_the_port(tmp_path):
    """hkevin01's cuda-kernel keeps `convolution.cu` beside the `convolution_hip.hip` its CMake
    builds (round 46: a false HZ320 at the CUDA file's `tex2D`); a `_hip` file of another
    stem is no twin."""
    conv = tmp_path / "ck" / "src" / "conv"
    conv.mkdir(parents=True)
    (conv / "convolution.cu").write_text(PTX_AND_MASK)
    (conv / "convolution_hip.hip").write_text("#include <hip/hip_runtime.h>\n")
    (conv / "other.cu").write_text(PTX_AND_MASK)
    assert [p for _r, p in _tree_findings(tmp_path, "ck")] == ["src/conv/other.cu"]
    (conv / "convolution_hip.hip").rename(conv / "blur_hip.hip")
    assert [p for _r, p in _tree_findings(tmp_path, "ck")] == [
        "src/conv/convolution.cu",
        "src/conv/other.cu",
    ]


def test_a_cuda_header_beside_its_hip_file_is_not_the_port(tmp_path):
    """sppark's `mont_t.cuh`, included under `__CUDA_ARCH__`, beside the `mont_t.hip` its
    includers take under `__HIPCC__` (round 30: 5 false HZ105/HZ106/HZ310); a header's `.h`
    of the same name is no twin, nor is a `.hip` file of another name."""
    ff = tmp_path / "sppark" / "ff"
    ff.mkdir(parents=True)
    (ff / "mont_t.cuh").write_text(PTX_AND_MASK)
    (ff / "mont_t.hip").write_text("template <int N> struct mont_t { int v[N]; };\n")
    (ff / "field.cuh").write_text(PTX_AND_MASK)
    (ff / "field.h").write_text("#include <hip/hip_runtime.h>\n")
    (ff / "other.hip").write_text("struct other {};\n")
    assert [p for _r, p in _tree_findings(tmp_path, "sppark")] == ["ff/field.cuh"]
    (ff / "mont_t.hip").unlink()
    assert [p for _r, p in _tree_findings(tmp_path, "sppark")] == ["ff/field.cuh", "ff/mont_t.cuh"]


UNCALLED = """#include <cuda_runtime.h>
__device__ int diff_prev(int v) {
  int lane = threadIdx.x & 31;
  int prev = __shfl_up_sync(0xffffffffu, v, 1);
  return v - prev + (lane == 0 ? (int)(threadIdx.x >> 5) : 0);
}
template <typename T>
__device__ T bcast(T v, unsigned mask) { return __shfl_sync(mask, v, 0, 32); }
__device__ int bcast_int(int v, unsigned mask) { return __shfl_sync(mask, v, 0, 32); }
"""
UNCALLED_USER = """#include "helpers.cuh"
__global__ void k(int* out) {
  int v = out[threadIdx.x];
  // v = diff_prev(v) + bcast(v, 0xffffffffu) + bcast_int(v, 0xffffffffu);
  out[threadIdx.x] = v;
}
int main() {
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  k<<<1, 64>>>(out);
  return cudaDeviceSynchronize() != cudaSuccess;
}
"""


def _hz_lines(root) -> list[tuple[str, int]]:
    return sorted((f["rule"], f["line"]) for f in _tree_report(root.parent, root.name))


def test_code_no_function_calls_keeps_only_what_the_compiler_meets(nvcc, tmp_path):
    """flash-llm's `cp_async_wait_all` whose only calls are commented out (round 26),
    moderngpu's templates that only other unused ones name in flashlight's copy (round 28),
    cusp's `TexVector` (round 29): nothing emits or instantiates them.  A hazard of running
    code (HZ103) is gone from an uncalled function, one of instantiation (HIP's mask
    static_assert, HZ106) from an uncalled template only.  A project's public headers (under
    `include/`) are its users' to call, and keep their findings; a vendored copy's are not."""
    for where in ("src", "include/lib", "third_party/lib/include"):
        tree = tmp_path / where.replace("/", "_") / "proj"
        (tree / where).mkdir(parents=True)
        (tree / where / "helpers.cuh").write_text(UNCALLED)
        (tree / where / "main.cu").write_text(UNCALLED_USER)
        everything = [("HZ103", 4), ("HZ106", 8), ("HZ106", 9)]
        assert _hz_lines(tree) == (everything if where == "include/lib" else [("HZ106", 9)])
        (tree / where / "main.cu").write_text(UNCALLED_USER.replace("// v", "v"))
        assert_nvcc_builds(nvcc, [tree / where / "main.cu"], [], tmp_path)
        assert _hz_lines(tree) == everything


def test_hip_checks_a_uncalled_template_only_where_it_is_instantiated(gfx942_check, tmp_path):
    """The premise of HZ106's and HZ320's `bites=INSTANTIATED`: ROCm 7.2.4's 64-bit mask
    static_assert and its unavailable texture fetch fail an uncalled function, not an uncalled
    template."""
    fetch = "__device__ {t} f(hipTextureObject_t x, int i) {{ return tex1Dfetch<{t}>(x, i); }}\n"
    mask = "__device__ {t} g({t} v, unsigned m) {{ return __shfl_sync(m, v, 0); }}\n"
    head = "#include <hip/hip_runtime.h>\n"
    templates = tmp_path / "templates.hip"
    templates.write_text(
        head
        + "template <typename T>\n"
        + fetch.format(t="T")
        + "template <typename T>\n"
        + mask.format(t="T")
    )
    assert gfx942_check(templates).returncode == 0
    for name, body in (("fetch", fetch), ("mask", mask)):
        plain = tmp_path / f"{name}.hip"
        plain.write_text(head + body.format(t="float"))
        assert gfx942_check(plain).returncode != 0


def test_the_examples_of_a_copy_of_cubs_repository_are_not_the_port(tmp_path):
    """TNN vendors CUB 1.9.10's whole repository (`thirdparty/cub-1.9.10-1`); its examples
    and tests are CUB's, which the HIP build replaces with hipCUB (round 19: 3 findings judged
    false).  The same file in the project's own tree keeps its findings, and so does a
    directory not named for CUB that happens to hold a `cub/` copy beside the project's code."""
    copy = tmp_path / "proj" / "thirdparty" / "cub-1.9.10-1"
    (copy / "cub").mkdir(parents=True)
    (copy / "cub" / "cub.cuh").write_text("#pragma once\nnamespace cub {}\n")
    (copy / "examples").mkdir()
    (copy / "examples" / "lanes.cu").write_text(PTX_AND_MASK)
    (tmp_path / "proj" / "common.cu").write_text(PTX_AND_MASK)
    assert _tree_findings(tmp_path, "proj") == [("HZ310", "common.cu")]
    copy.rename(copy.with_name("vendor"))
    assert ("HZ310", "thirdparty/vendor/examples/lanes.cu") in _tree_findings(tmp_path, "proj")


# MNN's fused attention (round 15): CUTLASS's own 32-thread warps, in a file built on CUTLASS
CUTLASS_KERNEL = """#include "cutlass/gemm/gemm.h"
#include "cutlass/layout/matrix.h"
static constexpr int kWarpSize = 32;
__global__ void attention(float* o) {
  int lane = threadIdx.x % kWarpSize;
  float v = o[threadIdx.x];
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  if (lane == 0) o[threadIdx.x / kWarpSize] = v + __any_sync(0xffffffff, v > 0);
}
"""


def test_a_cutlass_source_reports_one_error_at_its_cutlass_include():
    assert findings(CUTLASS_KERNEL, "attention.cu") == []  # no hazard: the include is HP001's
    result = check_result(CUTLASS_KERNEL, "attention.cu", ctx())
    [hp001] = [f for f in result.findings if f.rule == "HP001"]
    assert hp001.line == 1 and "CUTLASS has no ROCm port" in hp001.message
    # the same kernel without CUTLASS is the project's to port
    assert "HZ107" in rules_of(CUTLASS_KERNEL.split("\n", 2)[2], "attention.cu")


# a kernel that mixes a 32-lane constant with the hardware warp (HZ107), and PTX (HZ310)
MIXED_WARP = """#define WARP_SIZE 32
__global__ void k(float* x) {
  int lane = threadIdx.x % WARP_SIZE;
  float v = x[threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) x[threadIdx.x / warpSize] = v;
  asm volatile("membar.gl;");
}
"""


def test_the_projects_own_hip_backend_is_no_cuda_code_being_ported(nvcc, tmp_path):
    """rtp-llm keeps `bindings/rocm/kernels` beside `bindings/cuda`, written in CUDA's
    spelling over its own shims for its ROCm build (round 31: its 32-lane constant, a false
    HZ107).  What it chose for AMD is not the port's to question (HZ107 is a CUDA-premise
    rule); what fails on AMD still does (HZ310).  Without the CUDA sibling it is the port."""
    bindings = tmp_path / "rtp" / "bindings"
    (bindings / "cuda").mkdir(parents=True)
    (bindings / "rocm" / "kernels").mkdir(parents=True)
    (bindings / "cuda" / "k.cu").write_text(MIXED_WARP)
    (bindings / "rocm" / "kernels" / "k.cu").write_text(MIXED_WARP)
    assert_nvcc_builds(nvcc, [bindings / "rocm" / "kernels" / "k.cu"], [], tmp_path)
    assert _tree_findings(tmp_path, "rtp") == [("HZ310", "bindings/rocm/kernels/k.cu")]
    (bindings / "cuda" / "k.cu").unlink()
    (bindings / "cuda").rmdir()
    assert _tree_findings(tmp_path, "rtp") == [
        ("HZ107", "bindings/rocm/kernels/k.cu"),
        ("HZ310", "bindings/rocm/kernels/k.cu"),
    ]


def test_a_header_only_skipped_version_branches_include_is_not_the_port(nvcc, tmp_path):
    """MegEngine's driver stub picks one wrapper per CUDA version (`#if CUDA_VERSION ==
    11080` / `#include "./libcuda-wrap_11.8.h"`, round 32: 3 false findings); the HIP build
    has CUDA 12.0's value, skips those branches and never reads the wrappers.  A header some
    file includes where the HIP build takes the branch keeps its findings."""
    root = tmp_path / "stub"
    root.mkdir()
    wrapper = "#include <cuda.h>\nCUresult flush(CUflushGPUDirectRDMAWritesTarget t);\n"
    (root / "wrap_11.8.h").write_text(wrapper)
    (root / "stub.cpp").write_text(
        "#include <cuda.h>\n#if CUDA_VERSION == 11040\n#error no wrapper\n"
        '#elif CUDA_VERSION == 11080\n#include "./wrap_11.8.h"\n#endif\n'
        "int stub() { return CUDA_VERSION; }\n"
    )
    assert_nvcc_builds(nvcc, [root / "stub.cpp"], [], tmp_path)
    assert _tree_findings(tmp_path, "stub") == []
    (root / "user.cpp").write_text('#include "wrap_11.8.h"\n')
    assert _tree_findings(tmp_path, "stub") == [("HZ300", "wrap_11.8.h")]


def test_the_cpu_only_builds_stand_in_for_cuda_is_not_the_port(nvcc, tmp_path):
    """HeavyDB's `#ifdef HAVE_CUDA` / `#include <cuda.h>` / `#else` / `#include
    "nocuda.h"` (round 33: a false HZ321 at its `typedef int CUresult;`): the port is the build
    with CUDA on; `nocuda.h` is the CPU-only build's.  A compiler's switch (`__CUDACC__`) or a
    negated one decides nothing, nor does an unconditional include elsewhere."""
    root = tmp_path / "db"
    root.mkdir()
    (root / "nocuda.h").write_text("#pragma once\ntypedef int CUresult;\ntypedef int CUdevice;\n")
    mgr = (
        "#ifdef HAVE_CUDA\n#include <cuda.h>\n#include <ostream>\n#else\n"
        '#include "nocuda.h"\n#endif\nCUresult status();\n'
    )
    (root / "mgr.h").write_text(mgr)
    (root / "sort.h").write_text(mgr.replace("#ifdef HAVE_CUDA", "#if HAVE_CUDA"))
    (root / "mgr.cpp").write_text(
        '#include "mgr.h"\n#include "sort.h"\nCUresult status() { return CUresult(0); }\n'
    )
    for flags in ([], ["-DHAVE_CUDA"]):
        assert_nvcc_builds(nvcc, [root / "mgr.cpp"], flags, tmp_path)
    assert _tree_findings(tmp_path, "db") == []
    for switch in ("#ifdef __CUDACC__", "#if !defined(NO_GPU)"):
        (root / "sort.h").write_text(mgr.replace("#ifdef HAVE_CUDA", switch))
        assert ("HZ321", "nocuda.h") in _tree_findings(tmp_path, "db"), switch
    (root / "sort.h").write_text('#include "nocuda.h"\n')
    assert ("HZ321", "nocuda.h") in _tree_findings(tmp_path, "db")


# lighthouse2's copy of the OptiX 7 SDK (round 34): NVIDIA's own device helpers, PTX included
OPTIX_SDK_COPY = """#ifndef __optix_optix_7_device_impl_transformations_h__
#define __optix_optix_7_device_impl_transformations_h__
namespace optix_impl {
static __forceinline__ __device__ float4 optixLoadReadOnlyAlign16(const float4* ptr) {
  float4 v;
  asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(ptr));
  return v;
}
}  // namespace optix_impl
#endif
"""

# a render core's device code on OptiX: its programs and launch parameters are OptiX's
OPTIX_PROGRAM = """#include <optix.h>
struct Params { float4* frame; int width; };
extern "C" __constant__ Params params;
extern "C" __global__ void __raygen__render() {
  const uint3 idx = optixGetLaunchIndex();
  unsigned mask = __ballot_sync(0xffffffff, idx.x & 1);
  params.frame[idx.y * params.width + idx.x] = make_float4(__popc(mask), 0.f, 0.f, 1.f);
}
"""


def test_a_copy_of_the_optix_sdk_reports_nothing(nvcc, tmp_path):
    header = tmp_path / "optix_7_device_impl_transformations.h"
    header.write_text(OPTIX_SDK_COPY)
    user = tmp_path / "load.cu"
    user.write_text(
        '#include "optix_7_device_impl_transformations.h"\n'
        "__global__ void k(const float4* p, float4* o) { *o = optix_impl::"
        "optixLoadReadOnlyAlign16(p); }\n"
    )
    assert_nvcc_builds(nvcc, [user], [], tmp_path)
    assert check_result(OPTIX_SDK_COPY, header.name, ctx()).findings == []
    # decoy: the project's own header of the same code is the project's to port
    own = OPTIX_SDK_COPY.replace("__optix_optix_7_device_impl_transformations_h__", "LOADS_H")
    assert rules_of(own, "loads.h") == ["HZ310"]


def test_an_optix_program_reports_one_error_at_its_optix_include():
    result = check_result(OPTIX_PROGRAM, "render.cu", ctx())
    [hp001] = result.findings
    assert (hp001.rule, hp001.line) == ("HP001", 1) and "OptiX" in hp001.message
    assert "HIP RT" in hp001.message
    # decoy: the same kernel without OptiX keeps its ballot finding
    assert "HZ105" in rules_of(OPTIX_PROGRAM.replace("#include <optix.h>\n", ""), "render.cu")


def test_code_in_a_dead_code_directory_is_not_the_port(nvcc, tmp_path):
    """pg-strom keeps its v3 kernels in `deadcode/v3.x`, which no Makefile builds (round 34:
    3 false findings): the directory's name says so."""
    # cuda_pspin keeps its first version in `OLD_CODE_ONLY4SPIN` (round 44: a false HZ320);
    # decoys: `gold_code` and `old_coder` say nothing of the sort
    for where in (
        "pg/src",
        "pg/deadcode/v3.x",
        "pg/OLD_CODE_ONLY4SPIN",
        "pg/gold_code",
        "pg/old_coder",
    ):
        (tmp_path / where).mkdir(parents=True)
        (tmp_path / where / "k.cu").write_text(MIXED_WARP)
    assert_nvcc_builds(nvcc, [tmp_path / "pg/src/k.cu"], [], tmp_path)
    assert {path for _, path in _tree_findings(tmp_path, "pg")} == {
        "src/k.cu",
        "gold_code/k.cu",
        "old_coder/k.cu",
    }
    # decoy: the user asked about the dead-code directory itself: it is what they port
    assert {path for _, path in _tree_findings(tmp_path / "pg", "deadcode")} == {"v3.x/k.cu"}


def test_a_hip_twin_is_code_the_projects_hip_build_compiles(tmp_path):
    """FlexFlow's `inc_multihead_self_attention.cpp`, the HIP twin of its `.cu`, defines
    `WARP_SIZE 32` for its own ROCm build (round 29: 3 false HZ107): findings about CUDA code
    being ported (HZ107) do not apply there; what fails on AMD still does (HZ310)."""
    ops = tmp_path / "ff" / "ops"
    ops.mkdir(parents=True)
    (ops / "attention.cu").write_text(MIXED_WARP)
    (ops / "attention.cpp").write_text("#include <hip/hip_runtime.h>\n" + MIXED_WARP)
    assert _tree_findings(tmp_path, "ff") == [("HZ310", "ops/attention.cpp")]
    # decoy: without the CUDA file it is no twin, but a HIP source to check in full
    (ops / "attention.cu").unlink()
    assert _tree_findings(tmp_path, "ff") == [
        ("HZ107", "ops/attention.cpp"),
        ("HZ310", "ops/attention.cpp"),
    ]


def test_a_directory_of_headers_no_source_reaches_is_not_the_port(nvcc, tmp_path):
    """Magicube keeps `spmm_utils_N128_bk/`, a copy of the `spmm_utils/` its sources include
    (round 36: 3 false findings).  A directory with an included file keeps the findings of
    the headers beside it that nothing includes (judged true in cuVS and SpargeAttn, round
    33), and so does one whose header includes a reached file of another directory (cuVS's
    JIT fragments, round 16), a library's public headers under `include/`, and a tree
    without sources."""
    root = tmp_path / "app"
    for d in ("utils", "utils_bk", "include", "jit"):
        (root / d).mkdir(parents=True)
    for d in ("utils", "utils_bk"):
        (root / d / "barrier.h").write_text("#pragma once\n" + PTX_AND_MASK)
    (root / "utils" / "unused.h").write_text("#pragma once\n" + PTX_AND_MASK)
    (root / "include" / "api.cuh").write_text("#pragma once\n" + PTX_AND_MASK)
    # a fragment for sources the build generates: it builds on the live code
    (root / "jit" / "fragment.cuh").write_text('#pragma once\n#include "../utils/barrier.h"\n')
    (root / "jit" / "metric.cuh").write_text("#pragma once\n" + PTX_AND_MASK)
    (root / "main.cu").write_text('#include "utils/barrier.h"\nint main() { return 0; }\n')
    assert_nvcc_builds(nvcc, [root / "main.cu"], [], tmp_path)
    found = {path for rule, path in _tree_findings(tmp_path, "app") if rule == "HZ310"}
    assert found == {"utils/barrier.h", "utils/unused.h", "include/api.cuh", "jit/metric.cuh"}
    (root / "main.cu").write_text('#include "barrier.h"\nint main() { return 0; }\n')
    found = {path for rule, path in _tree_findings(tmp_path, "app") if rule == "HZ310"}
    assert "utils_bk/barrier.h" in found  # an include no directory resolves reaches each copy
    (root / "main.cu").unlink()
    found = {path for rule, path in _tree_findings(tmp_path, "app") if rule == "HZ310"}
    assert found == {
        "utils/barrier.h",
        "utils_bk/barrier.h",
        "utils/unused.h",
        "include/api.cuh",
        "jit/metric.cuh",
    }


# gdrcopy (round 36): its own copy of the driver's types, for a libcuda it dlopens, included
# by plain C files that include no CUDA header
DRIVER_COPY = """#pragma once
typedef enum cudaError_enum { CUDA_SUCCESS = 0, CU_RESULT_MAX = 0x7FFFFFFF } CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef enum CUdevice_attribute_enum { CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124 } CUattr;
extern CUresult (*gdr_cuDeviceGet)(CUdevice* device, int ordinal);
"""
DRIVER_USER = """#include <stddef.h>
#include "cuda_wrapper.h"
CUresult (*gdr_cuDeviceGet)(CUdevice* device, int ordinal) = NULL;
int first_device(void) {
  CUdevice dev;
  CUdeviceptr none = 0;
  return gdr_cuDeviceGet && gdr_cuDeviceGet(&dev, 0) == CUDA_SUCCESS ? dev + (int)none : -1;
}
int dmabuf_attribute(void) { return CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED; }
"""


def test_names_a_copy_of_the_driver_api_declares_are_the_projects(tmp_path):
    """The copy's own attribute, newer than ROCm 7.2.4's HIP in the tables, left as it is by
    the conversion, still names the copy's enumerator in the C file that includes it: no
    HZ302 (the copy itself is HZ321's); a file that includes CUDA's header instead names
    CUDA's attribute, which does not compile for ROCm 7.2.4."""
    root = tmp_path / "gdr"
    root.mkdir()
    (root / "cuda_wrapper.h").write_text(DRIVER_COPY)
    (root / "wrapper.c").write_text(DRIVER_USER)
    cc = ["gcc", "-fsyntax-only", "-I", str(root), str(root / "wrapper.c")]
    assert subprocess.run(cc, capture_output=True).returncode == 0
    assert _tree_findings(tmp_path, "gdr") == [("HZ321", "cuda_wrapper.h")]
    (root / "gin.cc").write_text(  # NCCL's: CUDA's own attribute, no copy of the API
        "#include <cuda.h>\nint attribute() { return CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED; }\n"
    )
    assert _tree_findings(tmp_path, "gdr") == [("HZ302", "gin.cc"), ("HZ321", "cuda_wrapper.h")]


def test_headers_only_optix_sources_reach_are_not_the_port(nvcc, tmp_path):
    """cuda-volprim's `bit_vector.h` and `environment_map.h` (round 37: 2 false findings):
    only its OptiX programs include them, and its OptiX host code through a header of its own
    that includes OptiX. A header a plain CUDA source also includes is the port's; the OptiX
    files keep their HP001."""
    files = {
        "include/bits.h": "#pragma once\n" + PTX_AND_MASK,
        "include/env.h": "#pragma once\n" + PTX_AND_MASK.replace("lane_masks", "env_masks"),
        "include/shared.h": "#pragma once\n" + PTX_AND_MASK.replace("lane_masks", "shared_k"),
        "device/raygen.cu": '#include <optix.h>\n#include "../include/bits.h"\n'
        '#include "../include/env.h"\n#include "../include/shared.h"\n',
        "host/context.h": "#pragma once\n#include <cuda_runtime.h>\n#include <optix.h>\n",
        "host/renderer.h": '#pragma once\n#include "context.h"\n#include "../include/env.h"\n',
        "host/main.cpp": '#include "renderer.h"\nint main() { return 0; }\n',
        "kernels.cu": '#include "include/shared.h"\n',
    }
    for name, text in files.items():
        (tmp_path / "vol" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "vol" / name).write_text(text)
    assert_nvcc_builds(nvcc, [tmp_path / "vol" / "kernels.cu"], [], tmp_path)
    assert {path for _, path in _tree_findings(tmp_path, "vol")} == {"include/shared.h"}
    args = [str(tmp_path / "vol"), "--format", "json", "--no-cache", "--select", "HP001"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)
    assert {Path(f["path"]).name for f in found["findings"]} == {"raygen.cu", "context.h"}
    # decoy: a plain CUDA tool that includes `bits.h` makes it the port's again
    (tmp_path / "vol" / "dump.cu").write_text('#include "include/bits.h"\n')
    assert {path for _, path in _tree_findings(tmp_path, "vol")} == {
        "include/bits.h",
        "include/shared.h",
    }


def test_a_file_an_unconditional_error_stops_reports_nothing(nvcc, tmp_path):
    """FK20-CUDA's superseded test (round 41): no build compiles a file whose `#error` no
    conditional holds, inside its include guard or not; one under a test stays a file."""
    retired = '#error "This file should not be used, use the new one instead"\n' + PTX_AND_MASK
    assert findings(retired) == []
    guarded = "#ifndef OLD_H\n#define OLD_H\n" + retired + "#endif\n"
    assert findings(guarded, "old.cuh") == []
    conditional = "#ifndef __CUDACC__\n#error needs nvcc\n#endif\n" + PTX_AND_MASK
    (tmp_path / "k.cu").write_text(conditional)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    assert rules_of(conditional) == rules_of(PTX_AND_MASK) != []
    after_guard = "#ifndef OLD_H\n#define OLD_H\n#endif\n#if 0\n#error off\n#endif\n" + PTX_AND_MASK
    assert rules_of(after_guard) == rules_of(PTX_AND_MASK)


def test_a_header_only_a_macro_the_hip_build_fixes_includes_is_not_the_port(nvcc, tmp_path):
    """AsymGEMM (round 41: 2 false HZ300): `#if FP8_OK and TMA_OK` before the includes of
    its tensor-map kernels, `TMA_OK` being `(CUDA_VERSION >= 12010)` in another header: 0 in
    the HIP build, which convert gives CUDA 12.0's version.  A macro the HIP build leaves
    unknown, or a header another file includes untested, keeps the findings."""
    root = tmp_path / "gemm"
    root.mkdir()
    (root / "compat.hpp").write_text(
        "#pragma once\n#include <cuda.h>\n#define FP8_OK (FP8_LEVEL > 1)\n"
        "#define TMA_OK (CUDA_VERSION >= 12010)\n"
    )
    (root / "tma.hpp").write_text(
        "#pragma once\n#include <cuda.h>\ninline int rank(const CUtensorMap* m) { return 2; }\n"
    )
    api = '#include "compat.hpp"\n#if FP8_OK and TMA_OK\n#include "tma.hpp"\n#endif\nint api();\n'
    (root / "api.cpp").write_text(api)
    assert_nvcc_builds(nvcc, [root / "api.cpp"], ["-DFP8_LEVEL=2"], tmp_path)
    assert _tree_findings(tmp_path, "gemm") == []
    (root / "api.cpp").write_text(api.replace("FP8_OK and TMA_OK", "FP8_OK"))
    assert _tree_findings(tmp_path, "gemm") == [("HZ300", "tma.hpp")]
    (root / "api.cpp").write_text(api)
    (root / "user.cpp").write_text('#include "tma.hpp"\n')
    assert _tree_findings(tmp_path, "gemm") == [("HZ300", "tma.hpp")]
