"""What the rest of a tree defines (``project_index``): a run over a tree knows it, a file
checked on its own does not, and the cache keeps the two apart."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _convert import ctx
from _units import assert_nvcc_builds
from hipify_py.analysis.declared_types import local_declaration
from hipify_py.cli.check import check
from hipify_py.frontend.unit import Unit
from hipify_py.project_calls import call_graph, definitions
from hipify_py.project_index import index_of
from hipify_py.project_launches import LaunchBlocks

# ggml's layout: vendors/hip.h defines for HIP what CUDA has and ROCm lacks, and redefines the
# masked shuffles without their mask (as LightGBM's cuda_rocm_interop.h does)
COMPAT = """#pragma once
#include <hip/hip_runtime.h>
#define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)
static __device__ __forceinline__ int __vsubus4(const int a, const int b) { return a - b; }
"""
USER = """#include "vendors/hip.h"
__device__ int dot(int a, int b) { return __vsubus4(a, b); }
__device__ int sum(int v) {
  unsigned mask = 0xffffffffu;
  return v + __shfl_down_sync(mask, v, 1);
}
"""


def _rules(path: Path) -> list[tuple[str, str, int]]:
    """HZ300 and HZ106 findings, and those `convert` fixes itself (a 32-bit mask it widens);
    through the per-file cache (each test has its own: ``XDG_CACHE_HOME`` below)."""
    args = [str(path), "--format", "json", "--select", "HZ300,HZ106"]
    result = CliRunner().invoke(check, args, catch_exceptions=False)
    report = json.loads(result.output)
    found = report["findings"] + report["fixed"]
    return sorted((f["rule"], Path(f["path"]).name, f["line"]) for f in found)


def test_a_tree_knows_the_names_another_file_defines(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("HIPIFY_PY_NO_CACHE", raising=False)
    tree = tmp_path / "tree"
    (tree / "vendors").mkdir(parents=True)
    (tree / "vendors" / "hip.h").write_text(COMPAT)
    (tree / "dot.cu").write_text(USER)
    # over the tree: __vsubus4 is the project's, its __shfl_down_sync drops the mask
    assert _rules(tree) == []
    # the file on its own (its header out of reach) knows no tree: both are reported
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "dot.cu").write_text(USER)
    assert _rules(tmp_path / "alone" / "dot.cu") == [("HZ106", "dot.cu", 4), ("HZ300", "dot.cu", 2)]
    # a tree whose macro file does not include HIP's headers keeps the mask finding (dot.cu is
    # unchanged: the cache must not answer from the run before, whose tree defined more)
    (tree / "vendors" / "hip.h").write_text(COMPAT.replace("#include <hip/hip_runtime.h>", ""))
    assert _rules(tree) == [("HZ106", "dot.cu", 4)]


def test_a_macro_defined_for_the_hip_build_alone_is_the_projects_hip_form() -> None:
    """exllamav2's compat.cuh includes no HIP header: its mask-dropping shuffle macro sits in
    `#if defined(USE_ROCM)`, code only the project's HIP build compiles (round 14: 3 false
    HZ106).  The same macro in the CUDA build's branch is no HIP form of the call."""
    define = b"#define __shfl_down_sync(m, v, d) __shfl_down(v, d)\n"
    hip_branch = b"#if defined(USE_ROCM)\n" + define + b"#endif\n"
    cuda_branch = hip_branch.replace(b"#if defined", b"#if !defined")
    assert index_of([("a.h", hip_branch)], ctx().mappings).hip_macros == {"__shfl_down_sync"}
    assert index_of([("a.h", cuda_branch)], ctx().mappings).hip_macros == set()
    plain = hip_branch.replace(b"#if defined(USE_ROCM)", b"#if defined(USE_FAST)")
    assert index_of([("a.h", plain)], ctx().mappings).hip_macros == set()
    maskless = b"#ifdef __HIPCC__\n#define __syncwarp()\n#endif\n"
    assert index_of([("a.h", maskless)], ctx().mappings).hip_macros == set()


def test_index_reads_definitions_not_calls() -> None:
    texts = [
        b"#define cudaMalloc hipMalloc\n",
        b"int __vsub4(int a, int b) { return a - b; }\nint x = __vadd4(1, 2);\n",
        b"int my__vabsss4(int a) { return a; }\n",
    ]
    found = index_of([(f"f{i}.h", t) for i, t in enumerate(texts)], ctx().mappings)
    assert found.defined == {"cudaMalloc", "__vsub4"}
    assert found.hip_macros == set()


def test_a_mask_declared_in_the_function_is_read_from_tokens() -> None:
    src = (
        "__device__ int f(int v) {\n  const uint32_t mask = 0xffffffff;\n  return g(mask, v);\n}\n"
    )
    unit = Unit("t.cu", src, ctx().mappings)
    use = [t for t in unit.tokens if t.text == "mask"][-1]
    found = local_declaration(unit, use)
    assert found is not None
    assert (found.type, found.line) == ("const uint32_t", 2)
    assert unit.tokens[found.name].text == "mask"
    assert unit.tokens[found.name].start == src.index("mask")


def test_a_project_that_defines_cuda_arch_for_hip_owns_its_gates(tmp_path: Path) -> None:
    """ggml's vendors/hip.h defines `__CUDA_ARCH__ 1300` for its HIP build: HZ501's premise
    (undefined on HIP) does not hold in that tree."""
    gate = '#include "hip_compat.h"\n#if __CUDA_ARCH__ >= 800\n__device__ int f() { return 1; }\n'
    gate += "#endif\n"
    (tmp_path / "k.cu").write_text(gate)
    (tmp_path / "hip_compat.h").write_text(
        "#include <hip/hip_runtime.h>\n#define __CUDA_ARCH__ 1300\n"
    )
    args = ["--format", "json", "--select", "HZ501", "--no-cache"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    assert json.loads(run.output)["findings"] == []
    run = CliRunner().invoke(check, [str(tmp_path / "k.cu"), *args], catch_exceptions=False)
    assert [f["line"] for f in json.loads(run.output)["findings"]] == [2]


def test_macros_the_tree_defines_from_the_cuda_version_reach_other_files(tmp_path):
    """TransformerEngine: common.h defines `FP4_TYPE_SUPPORTED (CUDA_VERSION >= 12080)`, 0 in
    the HIP build (convert writes CUDA 12.0); another file's `#if FP4_TYPE_SUPPORTED` code is
    then code HIP never compiles, and its PTX is not reported.  A macro of two values, or one
    that tests `defined(__CUDA_ARCH__)` or names a macro of the project's, stays unknown."""
    common = (
        "#pragma once\n#include <cuda.h>\n#define FP4_TYPE_SUPPORTED (CUDA_VERSION >= 12080)\n"
        "#define TWO CUDA_VERSION\n"
        "#define HAS_ARCH (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)\n"
        "#define HAS_AMPERE (__CUDA_ARCH__ >= CC_AMPERE)\n"  # bitsandbytes: another macro
    )
    other = "#define TWO (CUDA_VERSION + 1)\n"
    fp4 = (
        '#include "common.h"\n#if FP4_TYPE_SUPPORTED\n__device__ unsigned cvt(float a) {\n'
        '  unsigned r;\n  asm("cvt.rn.satfinite.e2m1x2.f32 %0, %1, %1;" : "=r"(r) : "f"(a));\n'
        "  return r;\n}\n#endif\n"
    )
    index = index_of(
        [(f"f{i}.h", t.encode()) for i, t in enumerate((common, other, fp4))], ctx().mappings
    )
    assert index.hip_values == ("FP4_TYPE_SUPPORTED=0",)
    for name, text in (("common.h", common), ("other.h", other), ("fp4.cu", fp4)):
        (tmp_path / name).write_text(text)
    args = ["--select", "HZ310", "--format", "json"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    assert json.loads(run.output)["findings"] == []
    run = CliRunner().invoke(check, [str(tmp_path / "fp4.cu"), *args], catch_exceptions=False)
    assert len(json.loads(run.output)["findings"]) == 1  # alone, the value is not known


PTX = 'asm volatile("membar.gl;" ::: "memory");'


def test_the_trees_macro_values_reach_only_the_files_that_include_them(tmp_path):
    """cuda-samples (a collection of programs): one program's header `#define USE_FAST 1`
    says nothing of another program's `#if !USE_FAST`, and an include guard another file
    tests (`__cuda_cuda_h__` of the samples' copy of cuda.h) is no value for the tree, least
    of all for its own header, whose body stays compiled."""
    files = {
        "a/config.h": "#pragma once\n#define USE_FAST 1\n",
        "a/prog_a.cu": f'#include "config.h"\n__global__ void k() {{\n#if !USE_FAST\n  {PTX}\n'
        "#endif\n}\n",
        "b/prog_b.cu": f"__global__ void k() {{\n#if !USE_FAST\n  {PTX}\n#endif\n}}\n",
        "c/cuda_copy.h": f"#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__ 1\n"
        f"__device__ inline void fence() {{ {PTX} }}\n__global__ void flush() {{ fence(); }}\n"
        "#endif\n",
        "c/user.cu": f"__global__ void k() {{\n#ifndef __cuda_cuda_h__\n  {PTX}\n#endif\n}}\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    index = index_of([(n, t.encode()) for n, t in files.items()], ctx().mappings)
    assert index.hip_values == ("USE_FAST=1",)
    assert index.hip_settings("a/prog_a.cu")[0] == ("USE_FAST=1",)
    assert index.hip_settings("b/prog_b.cu")[0] == ()
    args = ["--select", "HZ310", "--format", "json", "--no-cache"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    found = {(Path(f["path"]).name, f["line"]) for f in json.loads(run.output)["findings"]}
    assert found == {("prog_b.cu", 3), ("cuda_copy.h", 3), ("user.cu", 3)}


def test_a_warpsize_constant_of_the_project_s_namespace_is_its_own(tmp_path: Path) -> None:
    """flashinfer's mamba kernels (round 12): `namespace flashinfer::mamba { constexpr unsigned
    warpSize = 32; }` in one header makes `warpSize` in that namespace, and those nested in
    it, the project's 32 in every file: no HZ104 for its constexpr uses, and blocks of
    `dim3(warpSize, n)` are rows of 32 lanes, where a width-less shuffle is HZ103's.  The same
    use outside the namespace is HIP's run-time warpSize."""
    common = (
        "#pragma once\nnamespace flashinfer::mamba {\nconstexpr unsigned warpSize = 32;\n"
        "}  // namespace flashinfer::mamba\n"
    )
    kernel = (
        '#include "common.cuh"\nnamespace flashinfer::mamba::mtp {\n'
        "template <int DIM>\n__global__ void k(float* x) {\n"
        "  constexpr int per_thread = DIM / warpSize;\n"
        "  float v = x[threadIdx.x * per_thread];\n"
        "  v = __shfl_sync(0xffffffffu, v, 0);\n  x[threadIdx.x] = v;\n}\n"
        "void run(float* x, int n) {\n  dim3 block(warpSize, n);\n  k<64><<<1, block>>>(x);\n}\n"
        "}  // namespace flashinfer::mamba::mtp\n"
        "__global__ void hip_own(float* x) { constexpr int w = warpSize; x[w] = 1; }\n"
    )
    index = index_of([("common.cuh", common.encode()), ("k.cu", kernel.encode())], ctx().mappings)
    assert index.warp_size_namespaces == {("flashinfer::mamba", 32)}
    (tmp_path / "common.cuh").write_text(common)
    (tmp_path / "k.cu").write_text(kernel)
    args = ["--select", "HZ103,HZ104", "--format", "json", "--no-cache"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    found = sorted((f["rule"], f["line"]) for f in json.loads(run.output)["findings"])
    assert found == [("HZ103", 7), ("HZ104", 15)]
    run = CliRunner().invoke(check, [str(tmp_path / "k.cu"), *args], catch_exceptions=False)
    found = sorted((f["rule"], f["line"]) for f in json.loads(run.output)["findings"])
    assert ("HZ104", 5) in found  # alone, the header's constant is not known


def test_types_a_tree_declares_for_its_own_copy_of_an_api_are_its_own() -> None:
    """TensorRT's plugin headers declare cuDNN's and cuBLAS's types themselves to load the
    libraries at run time (round 19: 2 false HZ300); arrayfire's handle of its own name points
    at the library's real struct, whose handle the port must retype (round 13: a true HZ300)."""
    wrapper = b"""#pragma once
enum CudnnStatus {
  CUDNN_STATUS_SUCCESS = 0,  // the library's value
  CUDNN_STATUS_NOT_INITIALIZED = 1,
};
using cudnnStatus_t = CudnnStatus;
using cublasHandle_t = struct cublasContext*;
"""
    handles = b"struct cusparseContext;\ntypedef struct cusparseContext* SparseHandle;\n"
    # the CUDA samples' dynlink header (round 21): a typedef's name after the enum's body
    dynlink = b"typedef enum CUctx_flags_enum {\n  CU_CTX_SCHED_AUTO = 0\n} CUctx_flags;\n"
    texts = [("cudnnWrapper.h", wrapper), ("platform.hpp", handles), ("dynlink.h", dynlink)]
    found = index_of(texts, ctx().mappings)
    assert {"cudnnStatus_t", "CUDNN_STATUS_SUCCESS", "cublasHandle_t", "cublasContext"} <= (
        found.defined
    )
    assert "CUctx_flags" in found.defined
    assert "cusparseContext" not in found.defined


def test_a_header_s_warp_size_constant_is_32_in_the_files_that_use_it(tmp_path: Path) -> None:
    """nunchaku's zgemm (round 21): `Config` defines `WARP_SIZE = 32` in one header, another
    header's kernels take `laneId = threadIdx.x % WARP_SIZE`, `warpId = threadIdx.x /
    WARP_SIZE` and broadcast `__shfl_sync(~0, v, laneId % 4)`.  Read with the header's value,
    that is 32-lane group code whose width-less broadcast is HZ103's, at the shuffle, not the
    header's constant (HZ107).  A name the tree also defines as 64 stays unknown."""
    config = "#pragma once\nstruct Config {\n  static constexpr int WARP_SIZE = 32;\n};\n"
    kernel = (
        '#include "config.cuh"\nstruct Epilogue : Config {\n'
        "  __device__ void apply(float* out, float v) {\n"
        "    const int laneId = threadIdx.x % WARP_SIZE;\n"
        "    const int warpId = threadIdx.x / WARP_SIZE;\n"
        "    v = __shfl_sync(~0, v, laneId % 4);\n"
        "    out[warpId * WARP_SIZE + laneId] = v;\n  }\n};\n"
        "__global__ void run(float* out) { Epilogue().apply(out, 1.0f); }\n"
    )
    (tmp_path / "config.cuh").write_text(config)
    (tmp_path / "epilogue.cuh").write_text(kernel)
    args = ["--select", "HZ103,HZ107", "--format", "json", "--no-cache"]

    def found() -> list[tuple[str, str, int]]:
        run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
        return sorted(
            (f["rule"], Path(f["path"]).name, f["line"]) for f in json.loads(run.output)["findings"]
        )

    assert found() == [("HZ103", "epilogue.cuh", 6)]
    (tmp_path / "other.cuh").write_text("#define WARP_SIZE 64\n")
    assert found() == [("HZ107", "config.cuh", 3)]


def test_a_tree_constant_is_32_only_where_the_file_does_not_declare_the_name() -> None:
    """nunchaku defines a constant `warp` somewhere; a file whose `warp` is a variable of its
    own (`int warp = threadIdx.x / WARP_SIZE;`) keeps it unknown, while the header's
    `WARP_SIZE` it only uses is 32."""
    from hipify_py.analysis.values import constant_at
    from hipify_py.frontend.unit import Unit

    src = "__device__ int f() { int warp = threadIdx.x / WARP_SIZE; return warp % 4; }\n"
    unit = Unit("k.cu", src, ctx().mappings, tree_warp_constants=frozenset({"warp", "WARP_SIZE"}))
    at = unit.identifier_positions["return"][0]
    assert constant_at(unit, "WARP_SIZE", at) == 32
    assert constant_at(unit, "warp", at) is None
    assert constant_at(Unit("k.cu", src, ctx().mappings), "WARP_SIZE", at) is None


def test_a_name_tested_right_before_the_hip_switch_is_the_cuda_builds(tmp_path: Path) -> None:
    """deepmd-kit: `#if GOOGLE_CUDA` / `#elif TENSORFLOW_USE_ROCM` / `#else #error` says that
    its HIP build leaves `GOOGLE_CUDA` off (its CMake sets it for the CUDA toolkit alone), so
    the PTX of another file's `#if GOOGLE_CUDA` is no HIP code (round 28).  A name the tree
    `#define`s somewhere, or one never paired with the HIP switch, stays unknown."""
    files = {
        "device.h": "#pragma once\n#if GOOGLE_CUDA\n#include <cuda_runtime.h>\n"
        "#elif TENSORFLOW_USE_ROCM\n#include <hip/hip_runtime.h>\n#else\n#error no GPU\n#endif\n",
        "prod.cu": f'#include "device.h"\n__global__ void k() {{\n#if GOOGLE_CUDA\n  {PTX}\n'
        "#endif\n}\n",
        "fast.cu": f"__global__ void k() {{\n#if USE_FAST_PATH\n  {PTX}\n#endif\n}}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = index_of([(n, t.encode()) for n, t in files.items()], ctx().mappings)
    assert index.cuda_switches == {"GOOGLE_CUDA"}
    assert index.hip_settings("prod.cu")[1] == {"GOOGLE_CUDA"}
    args = ["--select", "HZ310", "--format", "json", "--no-cache"]

    def reported() -> set[str]:
        run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
        return {Path(f["path"]).name for f in json.loads(run.output)["findings"]}

    assert reported() == {"fast.cu"}
    (tmp_path / "config.h").write_text("#define GOOGLE_CUDA 1\n")
    assert reported() == {"fast.cu", "prod.cu"}


def test_a_mask_macro_the_tree_defines_32_bit_is_an_error_where_it_is_used(nvcc, tmp_path):
    """GenomeWorks (compile round 30): `#define FULL_MASK 0xffffffff` in one header, passed to
    `__shfl_sync` in another: HIP's static_assert rejects it, so the use is an error, not a
    "may be 32-bit" warning; a tree that defines it 64 bits wide has nothing to report."""
    (tmp_path / "structs.cuh").write_text("#pragma once\n#define FULL_MASK 0xffffffff\n")
    (tmp_path / "kernels.cuh").write_text(
        '#pragma once\n#include "structs.cuh"\n__device__ bool any_error(bool e) {\n'
        "  return __shfl_sync(FULL_MASK, e, 0);\n}\n"
    )
    (tmp_path / "k.cu").write_text(
        '#include "kernels.cuh"\n__global__ void k(bool* e) { e[0] = any_error(e[1]); }\n'
    )
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    args = [str(tmp_path), "--format", "json", "--no-cache", "--select", "HZ106"]
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    found = [
        (Path(f["path"]).name, f["line"], f["severity"]) for f in json.loads(run.output)["findings"]
    ]
    assert found == [("kernels.cuh", 4, "error")]
    (tmp_path / "structs.cuh").write_text("#pragma once\n#define FULL_MASK 0xffffffffffffffffULL\n")
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    assert json.loads(run.output)["findings"] == []


# cuSZp (round 35): kernels in one file, launched from another with a header's block size
BLOCK_HEADER = (
    "#pragma once\nstatic const int tblock_size = 32;\n__global__ void scan(unsigned* o);\n"
)
BLOCK_KERNEL = """#include "sz.h"
__global__ void scan(unsigned* o) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = idx & 0x1f;
  const int warp = idx >> 5;
  unsigned v = o[idx];
  for (int i = 1; i < 32; i <<= 1) {
    unsigned t = __shfl_up_sync(0xffffffff, v, i);
    if (lane >= i) v += t;
  }
  unsigned prev = __shfl_up_sync(0xffffffff, v, 1);
  o[warp * 32 + lane] = lane ? prev : 0;
}
"""
BLOCK_ENTRY = """#include "sz.h"
void run(unsigned* o, int n) {
  int bsize = tblock_size;
  dim3 block(bsize);
  dim3 grid((n + bsize - 1) / bsize);
  scan<<<grid, block>>>(o);
}
"""


def test_a_kernel_every_launch_of_which_in_the_tree_has_32_threads(nvcc, tmp_path: Path) -> None:
    """Launched from another file with blocks of 32 threads, the kernel's wavefronts have no
    lanes 32-63: its shuffle without a width is no hazard.  A header that says 64, or one
    launch whose block the tree does not fix, leaves the hazard reported."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "sz.h").write_text(BLOCK_HEADER)
    (tree / "kernels.cu").write_text(BLOCK_KERNEL)
    (tree / "entry.cu").write_text(BLOCK_ENTRY)
    assert_nvcc_builds(nvcc, [tree / "kernels.cu", tree / "entry.cu"], [], tmp_path)
    args = ["--select", "HZ103", "--format", "json", "--no-cache"]

    def found() -> list[tuple[str, int]]:
        run = CliRunner().invoke(check, [str(tree), *args], catch_exceptions=False)
        return [(Path(f["path"]).name, f["line"]) for f in json.loads(run.output)["findings"]]

    assert found() == []
    (tree / "sz.h").write_text(BLOCK_HEADER.replace("= 32", "= 64"))
    assert found() == [("kernels.cu", 11)]
    (tree / "sz.h").write_text(BLOCK_HEADER)
    (tree / "other.cu").write_text(
        '#include "sz.h"\nvoid go(unsigned* o, int t) { scan<<<1, t>>>(o); }\n'
    )
    assert found() == [("kernels.cu", 11)]


def test_launch_blocks_read_numbers_dim3_and_names_bound_once() -> None:
    launches = LaunchBlocks()
    launches.add("c.h", b"#define WARP 32\nconstexpr int kRows{4};\n")
    launches.add(
        "a.cu",
        b"void f(float* x, int t) {\n"
        b"  a<<<1, 32>>>(x);\n  b<float><<<n, dim3(WARP, 1)>>>(x);\n"
        b"  dim3 rows(WARP, kRows);\n  c<<<n, rows>>>(x);\n"  # 128 threads
        b"  d<<<n, t>>>(x);\n"  # a parameter: unknown
        b"  int e_block = 16;\n  e<<<n, e_block, 0, s>>>(x);\n"
        b"  g<<<1, 32>>>(x);\n  g<<<1, 64>>>(x);\n"
        b"  h<<<1, dim3(32, 1, 1)>>>(x);\n  dim3 two(16, 2);\n  i<<<1, two>>>(x);\n"
        b"  dim3 set;\n  set.x = WARP;\n  j<<<1, set>>>(x);\n"  # Magicube's, round 36
        b"  dim3 wide;\n  wide.x = 32;\n  wide.y = 2;\n  k<<<1, wide>>>(x);\n"
        b"  dim3 twice;\n  twice.x = 32;\n  twice.x = 64;\n  l<<<1, twice>>>(x);\n}\n",
    )
    launches.add("b.cu", b"void go(void* k) { cudaLaunchKernel((void*)a, 1, 32, 0, 0, 0); }\n")
    assert launches.block32() == {"b", "e", "h", "i", "j"}


def test_call_graph_reads_no_statement_as_a_definition_and_finds_helpers_of_some_kernels() -> None:
    texts = [
        (
            "k.cu",
            b"__device__ int leaf(int x) { return x; }\n"
            b"__device__ int mid(int x) { if (x > 0) { return leaf(x); } return 0; }\n"
            b"__device__ int orphan(int x) { for (int i = 0; i < x; ++i) { x += leaf(i); } "
            b"return x; }\n"
            b"__device__ int unused(int x) { if (x) { return orphan(x); } return 0; }\n"
            b"__global__ void small(int* o) { o[0] = mid(o[0]); }\n"
            b"__global__ void big(int* o) { o[0] = leaf(o[0]); }\n"
            b"__device__ int jitted(int x) { return x; }\n"  # NCCL EP's, round 5
            b'const char* source = "k(int* o) { o[0] = jitted(o[0]); }";\n',
        )
    ]
    defined = {name for _p, data in texts for name, _a, _b in definitions(data)}
    assert not defined & {"if", "for"}
    graph = call_graph(texts, defined)
    assert graph.callers["orphan"] == {"unused"}  # not the `if` around the call
    assert graph.uncalled() == {"unused", "orphan"}  # `jitted`: a run-time compiler's source
    assert graph.called_only_from(frozenset({"small"})) == {"mid"}  # leaf: `big` calls it too
    assert graph.called_only_from(frozenset({"small", "big"})) == {"mid", "leaf"}


# wholegraph (round 36): a header's cache-set helpers, called only from kernels of another file
# that launches them with 32 threads a block
HELPER_HEADER = """#pragma once
__device__ __forceinline__ unsigned int match_pairs(int key) {
  unsigned int flag = __match_any_sync(0xFFFFFFFF, key);
  return flag & 0xFFFF;
}
"""
HELPER_KERNELS = """#include "cache.cuh"
__global__ void update(const int* keys, unsigned int* out) {
  out[threadIdx.x] = match_pairs(keys[threadIdx.x]);
}
void run(const int* keys, unsigned int* out, int sets, cudaStream_t s) {
  update<<<sets, 32, 0, s>>>(keys, out);
}
"""


def test_a_helper_only_kernels_of_32_thread_blocks_call_is_32_thread_code(
    nvcc, tmp_path: Path
) -> None:
    """Its 32-bit match mask loses no lane: no wavefront of those blocks has lanes 32-63; a
    kernel of 64-thread blocks that calls it too brings the hazard back."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "cache.cuh").write_text(HELPER_HEADER)
    (tree / "cache.cu").write_text(HELPER_KERNELS)
    assert_nvcc_builds(nvcc, [tree / "cache.cu"], [], tmp_path)
    args = [str(tree), "--select", "HZ105", "--format", "json", "--no-cache"]

    def found() -> list[tuple[str, int]]:
        run = CliRunner().invoke(check, args, catch_exceptions=False)
        return [(Path(f["path"]).name, f["line"]) for f in json.loads(run.output)["findings"]]

    assert found() == []
    (tree / "other.cu").write_text(
        HELPER_KERNELS.replace("update", "wide").replace("sets, 32,", "sets, 64,")
    )
    assert found() == [("cache.cuh", 3)]
