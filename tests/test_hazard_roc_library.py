"""HZ346: a project's own HIP branch written for rocBLAS, converted without --roc (fastmoe,
rw27: 7 translation units failed for gfx942 with no finding)."""

from __future__ import annotations

from _convert import hip, result
from _units import assert_nvcc_builds

# fastmoe's cublas_wrapper.h: PyTorch's hipify turned its cuBLAS handle into a rocblas_handle
GEMM = """#include <cublas_v2.h>
#include <cuda_fp16.h>
cublasStatus_t gemm(cublasHandle_t h, int n, const __half* a, const __half* b, __half* c) {
  const __half one = __float2half(1.f), zero = __float2half(0.f);
#ifdef MYPROJ_USE_HIP
  return rocblas_hgemm(h, rocblas_operation_none, rocblas_operation_none, n, n, n,
                       (const rocblas_half*)&one, (const rocblas_half*)a, n,
                       (const rocblas_half*)b, n, (const rocblas_half*)&zero,
                       (rocblas_half*)c, n);
#else
  return cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
#endif
}
"""


def test_a_rocblas_branch_needs_roc(nvcc, nvidia_include, gfx942_check, tmp_path):
    (tmp_path / "g.cu").write_text(GEMM)
    assert_nvcc_builds(nvcc, [tmp_path / "g.cu"], ["-I", nvidia_include("cublas")], tmp_path)
    found = [f for f in result(GEMM).findings if f.rule == "HZ346"]
    assert [(f.line, f.severity.value) for f in found] == [(6, "error")]
    assert "--roc" in found[0].message
    # the premise: converted for hipBLAS the branch does not compile; with --roc it does
    (tmp_path / "g.hip").write_text(hip(GEMM))
    assert "rocblas_hgemm" in gfx942_check(tmp_path / "g.hip").stderr
    (tmp_path / "g.hip").write_text(hip(GEMM, roc=True))
    proc = gfx942_check(tmp_path / "g.hip")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not [f for f in result(GEMM, roc=True).findings if f.rule == "HZ346"]
    # a rocBLAS name in code both builds compile, or no cuBLAS in the file: no finding
    both = GEMM.replace("#ifdef MYPROJ_USE_HIP", "#if 1")
    assert not [f for f in result(both).findings if f.rule == "HZ346"]
    alone = "#ifdef USE_ROCM\nint s = rocblas_status_success;\n#endif\n"
    assert not [f for f in result(alone).findings if f.rule == "HZ346"]


def _hz346(src: str) -> list[int]:
    return [f.line for f in result(src).findings if f.rule == "HZ346"]


def test_a_rocblas_branch_that_only_some_builds_take_or_the_file_maps_is_not_reported():
    """DeepSpeed keeps rocBLAS for a PyTorch before 2.1 (`TORCH_VERSION_MAJOR < 2 ...`), which
    no ROCm 7 build has; AutoGPTQ defines `rocblas_handle` as hipBLAS's handle itself.  fastmoe's
    helper_cuda.h (an include guard below its includes, `cublasStatus_t` in the HIP branch
    itself) is reported."""
    versioned = GEMM.replace(
        "#ifdef MYPROJ_USE_HIP",
        "#if defined(__HIP_PLATFORM_AMD__) && (TORCH_VERSION_MAJOR < 2)",
    )
    assert _hz346(versioned) == []
    own = "#include <cublas_v2.h>\n#ifdef USE_ROCM\n#define rocblas_handle hipblasHandle_t\n"
    own += "rocblas_handle h;\n#endif\ncublasHandle_t g;\n"
    assert _hz346(own) == []
    helper = (
        "#include <cublas_v2.h>\n#ifndef HELPER_H\n#define HELPER_H\n#ifdef MYPROJ_USE_HIP\n"
        "inline const char* name(cublasStatus_t e) {\n"
        '  switch (e) { case rocblas_status_success: return "ok"; default: return "?"; }\n'
        "}\n#endif\n#endif\n"
    )
    assert _hz346(helper) == [6]
