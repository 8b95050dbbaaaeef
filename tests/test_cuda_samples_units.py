"""Reproducers from NVIDIA cuda-samples built as one CMake tree (docs/buildfiles.md): each
fixture under ``fixtures/sample_units/`` builds with nvcc, and its conversion for gfx942."""

from __future__ import annotations

from pathlib import Path

import pytest

from _convert import hip, result
from _units import assert_converted_compiles, assert_nvcc_builds, convert_directory
from hipify_py.findings import Severity
from test_hazard_common import only

UNITS = Path(__file__).parent / "fixtures" / "sample_units"
SOURCES = sorted(p.name for p in UNITS.iterdir() if p.suffix in (".cu", ".cpp"))


def test_fixtures_are_cuda(nvcc, nvidia_include, tmp_path):
    includes = [f"-I{nvidia_include(lib)}" for lib in ("cusolver", "cublas", "cusparse")]
    assert_nvcc_builds(nvcc, (UNITS / name for name in SOURCES), includes, tmp_path)


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> Path:
    return convert_directory(UNITS, tmp_path_factory.mktemp("sample_units") / "out")


@pytest.mark.parametrize("name", SOURCES)
def test_conversion_compiles_for_gfx942(name, converted, gfx942_check):
    assert_converted_compiles(converted, name, gfx942_check)


GUARD = "#if !defined(__HIP_PLATFORM_AMD__)"


def test_cases_of_status_values_hip_lacks_leave_the_amd_build():
    src = (UNITS / "status_names.cu").read_text()
    out = hip(src)
    assert out.count(GUARD) == 1 and out.count("#endif") == 1
    guarded = out[out.index(GUARD) : out.index("#endif")]
    assert guarded.count("case ") == 3 and "HIPSOLVER_" not in guarded
    assert "case HIPSOLVER_STATUS_ZERO_PIVOT:" in out[out.index("#endif") :]
    assert only("HZ300", src) == []


@pytest.mark.parametrize(
    "group",
    [
        # code falls into the case: leaving it out would change what the first case runs
        '    case CUSOLVER_STATUS_ZERO_PIVOT:\n      puts("z");\n'
        "    case CUSOLVER_STATUS_INVALID_LICENSE:\n      return 2;\n",
        # a label HIP has shares the group, on the missing label's line
        "    case CUSOLVER_STATUS_ZERO_PIVOT: case CUSOLVER_STATUS_INVALID_LICENSE:\n"
        "      return 2;\n",
        # the group falls out into the next one
        '    case CUSOLVER_STATUS_INVALID_LICENSE:\n      puts("l");\n'
        "    case CUSOLVER_STATUS_ZERO_PIVOT:\n      return 2;\n",
    ],
)
def test_cases_that_share_code_stay_and_are_reported(group):
    src = (
        "#include <cusolverDn.h>\n#include <cstdio>\n"
        "int f(cusolverStatus_t s) {\n  switch (s) {\n" + group + "  }\n  return 0;\n}\n"
    )
    assert GUARD not in hip(src)
    assert len(only("HZ300", src)) == 1


def test_a_missing_label_beside_labels_hip_has_is_left_out_alone(nvcc, gfx942_check, tmp_path):
    """cuda_force's `is_sticky()` lists `cudaErrorHardwareStackError` among six errors HIP has
    (compile round 45: 7 TUs failed at it): the group's statement stays reachable through the
    other labels, so the missing one alone goes under the guard, before or after them."""
    src = (
        "#include <cuda_runtime.h>\n"
        "bool sticky(cudaError_t s) {\n  switch (s) {\n"
        "    case cudaErrorIllegalAddress:\n    case cudaErrorHardwareStackError:\n"
        "    case cudaErrorLaunchFailure:\n      return true;\n"
        "    default:\n      return false;\n  }\n}\n"
    )
    (tmp_path / "s.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "s.cu"], [], tmp_path)
    out = hip(src)
    guarded = "    case cudaErrorHardwareStackError:\n#endif\n"
    assert GUARD + "  // no HIP counterpart for these values\n" + guarded in out
    assert guarded + "    case hipErrorLaunchFailure:" in out
    (tmp_path / "s.hip").write_text(out)
    assert gfx942_check(tmp_path / "s.hip").returncode == 0
    assert only("HZ300", src) == []
    last = src.replace(
        "    case cudaErrorHardwareStackError:\n    case cudaErrorLaunchFailure:\n",
        "    case cudaErrorLaunchFailure:\n    case cudaErrorHardwareStackError:\n",
    )
    assert "    case cudaErrorHardwareStackError:\n#endif\n      return true;" in hip(last)


def test_empty_context_parameters_are_dropped_with_their_declaration():
    src = (UNITS / "ctx_create.cpp").read_text()
    out = hip(src)
    assert "CUctxCreateParams" not in out.split("\n", 2)[2]  # the comment lines name it
    assert "hipCtxCreate(&context, 0, device)" in out
    assert "hipCtxCreate(&second, 0, device)" in out
    assert only("HZ300", src) == []


def test_context_parameters_that_are_set_stay_and_are_reported():
    src = (
        "#include <cuda.h>\n"
        "CUresult f(CUcontext* c, CUdevice d) {\n"
        "  CUctxCreateParams p = {};\n"
        "  p.numExecAffinityParams = 1;\n"
        "  return cuCtxCreate(c, &p, 0, d);\n"
        "}\n"
    )
    out = hip(src)
    assert "CUctxCreateParams p = {};" in out and "&p, 0, d)" in out
    assert [f.line for f in only("HZ300", src)] == [3]


def test_an_include_with_no_hip_counterpart_is_an_error_also_when_quoted():
    src = '#include "cudaEGL.h"\n#include <cuda/barrier>\n'
    found = [f for f in result(src).findings if f.rule == "HP001"]
    assert [f.line for f in found] == [1, 2]
    assert all(f.severity is Severity.ERROR for f in found)
    assert "no EGL API" in found[0].message


def test_map_flags_hint_is_a_shim_not_an_error():
    src = (UNITS / "map_flags.cu").read_text()
    out = hip(src)
    assert "static inline hipError_t cudaGraphicsResourceSetMapFlags(" in out
    assert "hipGraphicsRegisterFlagsWriteDiscard" in out
    assert only("HZ300", src) == []


def test_directed_rounding_division_sqrt_and_double_come_from_the_shim():
    src = (UNITS / "rounded.cu").read_text()
    out = hip(src)
    assert "__device__ inline float __fdiv_rd(float a, float b) { return __ocml_div_rtn_f32" in out
    assert "__device__ inline double __drcp_ru(double a) { return __ocml_div_rtp_f64(1.0, a)" in out
    assert only("HZ300", src) == []


def test_system_scope_wrapping_atomics_and_driver_functions_header():
    src = (UNITS / "system_atomics.cu").read_text()
    out = hip(src)
    assert "__device__ inline unsigned int atomicInc_system(" in out
    assert "#include <hip/driver_types.h>" in out and "make_hipExtent(32, 32, 32)" in out


def test_compressible_memory_is_reported_where_it_is_asked_for():
    # cuda-samples cudaCompressibleMemory: no table row, so the converted file failed silently
    src = (
        "#include <cuda.h>\n"
        "void f(CUmemAllocationProp* p) {\n"
        "  p->allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;\n"
        "}\n"
    )
    assert [f.line for f in only("HZ300", src)] == [3]
