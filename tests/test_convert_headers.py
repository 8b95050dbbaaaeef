"""#include rewriting: real ROCm paths, no duplicates, hip_runtime.h exactly once."""

from _convert import hip, result
from _units import (
    assert_converted_compiles,
    assert_nvcc_builds,
    convert_directory,
    converted_tree,
)


def test_headers_map_to_rocm_include_paths() -> None:
    src = (
        "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include <curand_kernel.h>\n"
        "#include <cusparse.h>\n#include <cuda_fp16.h>\n"
    )
    assert hip(src) == (
        "#include <hip/hip_runtime.h>\n"
        "#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"
        "#include <hipblas/hipblas.h>\n"
        "#include <hiprand/hiprand_kernel.h>\n#include <hipsparse/hipsparse.h>\n"
        "#include <hip/hip_fp16.h>\n"
    )


def test_quoted_includes_keep_their_quotes() -> None:
    assert hip('#include "cuda_runtime.h"\n#include <stdio.h>\n') == (
        '#include "hip/hip_runtime.h"\n#include <stdio.h>\n'
    )


def test_two_cuda_headers_mapping_to_one_hip_header_are_deduplicated() -> None:
    out = hip("#include <cuda.h>\n#include <cuda_runtime.h>\n#include <stdio.h>\n")
    assert out == "#include <hip/hip_runtime.h>\n#include <stdio.h>\n"


def test_existing_hip_runtime_include_is_not_duplicated() -> None:
    out = hip("#include <hip/hip_runtime.h>\n#include <cuda_runtime.h>\n__global__ void k() {}\n")
    assert out.count("hip/hip_runtime.h") == 1


def test_includes_in_different_branches_are_both_kept() -> None:
    src = (
        "#ifdef USE_DRIVER\n#include <cuda.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
        "__global__ void k() {}\n"
    )
    out = hip(src)
    assert out.count("#include <hip/hip_runtime.h>") == 3  # one inserted + one per branch


def test_runtime_header_added_once_for_device_code() -> None:
    src = (
        "// kernel file\n#include <stdio.h>\n__global__ void k(float* p) { p[threadIdx.x] = 0; }\n"
    )
    out = hip(src, path="k.cuh")
    assert out == (
        "// kernel file\n#include <hip/hip_runtime.h>\n#include <stdio.h>\n"
        "__global__ void k(float* p) { p[threadIdx.x] = 0; }\n"
    )


def test_runtime_header_goes_after_pragma_once() -> None:
    out = hip("#pragma once\n__device__ int f();\n", path="a.cuh")
    assert out == "#pragma once\n#include <hip/hip_runtime.h>\n__device__ int f();\n"


def test_runtime_header_goes_after_include_guard() -> None:
    out = hip("#ifndef A_H\n#define A_H\n__device__ int f();\n#endif\n", path="a.cuh")
    assert (
        out
        == "#ifndef A_H\n#define A_H\n#include <hip/hip_runtime.h>\n__device__ int f();\n#endif\n"
    )


def test_plain_cpp_header_without_cuda_gets_nothing() -> None:
    src = "#include <vector>\nint f();\n"
    assert hip(src, path="plain.h") == src


def test_include_of_a_renamed_cu_file_follows_the_rename() -> None:
    out = hip('#include "kernels.cu"\n#include "kernels.cuh"\n')
    assert '#include "kernels.hip"' in out and '#include "kernels.cuh"' in out
    assert '#include "kernels.cu"' in hip('#include "kernels.cu"\n', keep_names=True)


def test_pytorch_headers_map_only_for_torch_files() -> None:
    torch_src = "#include <torch/extension.h>\n#include <c10/cuda/CUDAGuard.h>\n"
    assert "#include <c10/hip/HIPGuard.h>" in hip(torch_src)
    other = "#include <c10/cuda/CUDAGuard.h>\n"
    assert "#include <c10/cuda/CUDAGuard.h>" in hip(other, pytorch=False)


def test_header_in_comment_is_untouched() -> None:
    src = "// #include <cuda_runtime.h>\n#include <cuda_runtime.h>\n"
    assert hip(src) == "// #include <cuda_runtime.h>\n#include <hip/hip_runtime.h>\n"


def test_rocm_before_5_2_uses_top_level_library_headers() -> None:
    src = "#include <cublas_v2.h>\n#include <cusparse.h>\n#include <curand.h>\n"
    assert hip(src, target_rocm=(5, 1)) == (
        "#include <hip/hip_runtime.h>\n"
        "#ifndef HIPBLAS_USE_HIP_HALF\n#define HIPBLAS_USE_HIP_HALF\n#endif\n"
        "#include <hipblas.h>\n#include <hipsparse.h>\n"
        "#include <hiprand/hiprand.h>\n"
    )
    assert "#include <rocblas/rocblas.h>" in hip(src, roc=True)
    assert "#include <rocblas.h>" in hip(src, roc=True, target_rocm=(5, 1))


def test_runtime_header_goes_inside_a_guard_that_holds_pragma_once() -> None:
    src = (
        "#ifndef A_H\n#pragma once\n#define A_H\n#include <stdio.h>\n__device__ int f();\n#endif\n"
    )
    assert hip(src, path="a.cuh") == (
        "#ifndef A_H\n#include <hip/hip_runtime.h>\n#pragma once\n#define A_H\n"
        "#include <stdio.h>\n__device__ int f();\n#endif\n"
    )


def test_a_duplicate_include_is_deleted_only_when_it_is_alone_on_its_line():
    """Fuzz input 20800: deleting the physical line of `#include <x>define ... \\` made its
    continuation lines code, so a second conversion changed them.  A duplicate include with
    more on its logical line (a spliced line, a block comment running on) keeps its line and
    is only renamed; one with just a // comment is deleted."""
    spliced = "#include <hip/hip_runtime.h>\n#include <cuda_runtime.h>x \\\n  k<<<1, 2>>>(p)\n"
    out = hip(spliced)
    assert out == spliced.replace("<cuda_runtime.h>", "<hip/hip_runtime.h>")
    assert hip(out) == out
    commented = "#include <cuda_runtime.h>\n#include <cuda_runtime.h> /* a\n b */ int x;\n"
    assert hip(commented).endswith("#include <hip/hip_runtime.h> /* a\n b */ int x;\n")
    alone = "#include <hip/hip_runtime.h>\n#include <cuda_runtime.h> // runtime\nint a;\n"
    assert hip(alone) == "#include <hip/hip_runtime.h>\nint a;\n"


def test_the_runtime_include_after_a_last_line_without_newline_starts_its_own_line():
    """Fuzz input 50395: `#pragma once` with no newline at the end of the file got the include
    glued to it (`#pragma once#include ...`), and every later conversion added another."""
    out = hip("#pragma once", "t.cu")
    assert out.splitlines()[0] == "#pragma once"
    assert "#include <hip/hip_runtime.h>" in out.splitlines()
    guard = hip("#ifndef K_H\n#define K_H", "t.cu")
    assert guard.splitlines()[:2] == ["#ifndef K_H", "#define K_H"]


# darknet's layout (altis's yolo copy, round 31): the project's own `cuda.h` beside its kernels
OWN_CUDA_H = """#ifndef OWN_CUDA_H
#define OWN_CUDA_H
#include <cuda_runtime.h>
dim3 grid_for(size_t n);
#endif
"""
USES_OWN_CUDA_H = """#include "cuda_runtime.h"
#include "cuda.h"
__global__ void scale(float* x, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.f;
}
void run(float* x, size_t n) { scale<<<grid_for(n), 256>>>(x, n); }
"""


def test_a_projects_own_header_named_as_cudas_stays_its_own(nvcc, gfx942_check, tmp_path):
    files = {"cuda.h": OWN_CUDA_H, "scale.cu": USES_OWN_CUDA_H}
    out = converted_tree(nvcc, tmp_path, "yolo", files, "scale.cu")
    converted = (out / "scale.hip").read_text()
    assert '#include "cuda.h"' in converted  # the project's header, which declares grid_for
    assert_converted_compiles(out, "scale.cu", gfx942_check)
    # decoy: with no such file beside it, `"cuda.h"` is CUDA's, covered by the runtime header
    (tmp_path / "yolo" / "cuda.h").unlink()
    again = convert_directory(tmp_path / "yolo", tmp_path / "out2")
    assert '#include "cuda.h"' not in (again / "scale.hip").read_text()


# mfaktc's tf_barrett96.cu (compile round 34): one file of the project included once per setting
TWICE_DIV = """#ifdef INV
__device__ static unsigned inv(unsigned n) { return 0xffffffffu / n; }
#else
__device__ static unsigned div(unsigned a, unsigned n) { return a / n; }
#endif
"""
TWICE_USER = """#include <cuda.h>
#include <cuda_runtime.h>
#undef INV
#include "div.cu"
#define INV
#include "div.cu"
#undef INV
__global__ void k(unsigned* x) { x[0] = div(x[0], x[1]) + inv(x[1]); }
"""


def test_a_project_file_included_twice_stays_included_twice(nvcc, gfx942_check, tmp_path):
    files = {"div.cu": TWICE_DIV, "user.cu": TWICE_USER}
    out = converted_tree(nvcc, tmp_path, "mf", files, "user.cu")
    converted = (out / "user.hip").read_text()
    assert converted.count('#include "div.hip"') == 2
    # the decoy: CUDA's two headers, one HIP header, written once
    assert converted.count("#include <hip/hip_runtime.h>") == 1
    assert_converted_compiles(out, "user.cu", gfx942_check)


# Soft-Body-Simulation-CUDA (compile round 41): cuSPARSE's types through cusolverSp.h alone
SPARSE_SOLVER = """#include <cusolverSp.h>
struct CholeskySolver {
  cusparseHandle_t handle;
  cusolverSpHandle_t solver;
  cusparseMatDescr_t descr;
};
int make(CholeskySolver* s) {
  bool sparse = cusparseCreate(&s->handle) == CUSPARSE_STATUS_SUCCESS;
  return sparse && cusolverSpCreate(&s->solver) == CUSOLVER_STATUS_SUCCESS;
}
"""


def test_what_cusolversp_h_includes_comes_with_its_hip_header(
    nvcc, nvidia_include, gfx942_check, tmp_path
):
    tree = tmp_path / "solver"
    tree.mkdir()
    (tree / "solver.cu").write_text(SPARSE_SOLVER)
    flags = [f"-I{nvidia_include(lib)}" for lib in ("cusolver", "cusparse", "cublas")]
    assert_nvcc_builds(nvcc, [tree / "solver.cu"], flags, tmp_path)
    out = convert_directory(tree, tmp_path / "out")
    text = (out / "solver.hip").read_text()
    assert "#include <hipsparse/hipsparse.h>\n#include <hipsolver/hipsolver.h>" in text
    assert_converted_compiles(out, "solver.cu", gfx942_check)
    assert hip(text) == text


# dcgan-cuda's relu.cu (compile round 42): CUDA's legacy per-family device headers
LEGACY_DEVICE_HEADERS = """#include <math_functions.h>
#include <device_double_functions.h>
#include <sm_20_atomic_functions.h>
#include <sm_60_atomic_functions.h>
#include <texture_types.h>
__global__ void relu(float* x, double* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaxf(x[i], 0.0f) + expf(0.0f) - 1.0f;
    atomicAdd(sum, (double)__double2hiint(1.0));
  }
}
"""


def test_cudas_legacy_device_headers_have_their_hip_headers(nvcc, gfx942_check, tmp_path):
    tree = tmp_path / "gpu"
    tree.mkdir()
    (tree / "relu.cu").write_text(LEGACY_DEVICE_HEADERS)
    assert_nvcc_builds(nvcc, [tree / "relu.cu"], [], tmp_path)
    out = convert_directory(tree, tmp_path / "out")
    text = (out / "relu.hip").read_text()
    assert "#include <hip/math_functions.h>" in text and "sm_20" not in text
    assert_converted_compiles(out, "relu.cu", gfx942_check)
    assert hip(text) == text


def test_cudas_barrier_and_occupancy_headers_are_errors_where_included(nvcc, tmp_path):
    """CUDA's arrive/wait barriers and occupancy calculator have no ROCm 7.2.4 header: the
    include is an error where it is written, which says what to use.  The pipeline primitives
    come from a shim (tests/fixtures/units/pipeline.cu): their include is HIP's runtime."""
    src = """#include <cuda_pipeline.h>
#include <cuda_awbarrier_primitives.h>
#include <cuda_occupancy.h>
__global__ void k(float* o, const float* in) {
  __shared__ float s[64];
  __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  o[threadIdx.x] = s[threadIdx.x];
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    found = [f for f in result(src).findings if f.rule == "HP001"]
    assert [(f.line, f.severity.value) for f in found] == [(2, "error"), (3, "error")]
    # each says what to do instead
    assert "__syncthreads()" in found[0].message
    assert "hipOccupancyMaxActiveBlocksPerMultiprocessor" in found[1].message
    assert "#define HIPIFY_PY_SHIM_PIPELINE" in result(src).text
