"""Reproducers of the translation units that failed on public projects (issue 23).

Each fixture under ``fixtures/units/`` is real CUDA (nvcc builds it for sm_90) and its
conversion must compile for gfx942 with clang-19 and the ROCm 7.2.4 headers: the cache-hinted
loads/stores on vector types, bf16 constructors, cg::reduce, directed-rounding and byte
intrinsics, CubDebugExit, __grid_constant__/CUDART_CB/register/thrust::cuda, and CUDA 13's
4-argument cudaMemPrefetchAsync.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from _convert import hip, result

UNITS = Path(__file__).parent / "fixtures" / "units"
SOURCES = sorted(p.name for p in UNITS.glob("*.cu"))


def test_fixtures_are_cuda(nvcc, tmp_path):
    assert len(SOURCES) >= 6
    for name in SOURCES:
        proc = subprocess.run(
            [
                nvcc,
                "-arch=sm_90",
                "-std=c++17",
                "-c",
                str(UNITS / name),
                "-o",
                str(tmp_path / "a.o"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, name + proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("units") / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(UNITS), "--out-dir", str(out)]
        + ["--no-cache", "-j1", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.mark.parametrize("name", SOURCES)
def test_conversion_compiles_for_gfx942(name, converted, clang19, rocm7):
    src = converted / name.replace(".cu", ".hip")
    proc = subprocess.run(
        [clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only"]
        + ["-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, src.read_text() + proc.stderr[-3000:]


def test_shimmed_names_are_not_reported():
    src = (UNITS / "intr.cu").read_text()
    found = {f.rule for f in result(src).findings}
    assert "HZ300" not in found
    out = hip(src)
    assert out.count("#define HIPIFY_PY_SHIM_BYTES") == 1
    assert "__dp4a(i[t], i[t+1], 0)" in out


def test_bf16_names_are_the_hip_bf16_types():
    out = hip((UNITS / "bf16.cu").read_text())
    assert "__hip_bfloat16* a, __hip_bfloat162* b" in out
    assert "a[i] = __float2bfloat16(f[i]);" in out
    assert "hip_bfloat16*" not in out.replace("__hip_bfloat16*", "")


def test_prefetch_with_a_location_and_no_stream_gets_v2_and_stream():
    out = hip((UNITS / "prefetch.cu").read_text())
    assert "hipMemPrefetchAsync_v2(p, n, loc, 0, 0);" in out
    assert "hipMemPrefetchAsync_v2(p, n, loc, 0, s);" in out
    legacy = hip(
        "void f(float* p, size_t n, int dev, cudaStream_t s) {\n"
        "  cudaMemPrefetchAsync(p, n, dev, s);\n}\n"
    )
    assert "hipMemPrefetchAsync(p, n, dev, s);" in legacy


def test_qualifiers_register_and_thrust_backend():
    out = hip((UNITS / "qualifiers.cu").read_text())
    assert "register" not in out
    assert "thrust::hip::par.on(s)" in out
    assert "#define __grid_constant__" in out
    assert hip("int f(Reg& r) { return r.register(1); }").count("register") == 1
    assert "thrust::system::hip::par" in hip("auto& p = thrust::system::cuda::par;")


def test_cusparselt_converts_for_rocm_7_2():
    out = hip("#include <cusparseLt.h>\nvoid f() { cusparseLtHandle_t h; cusparseLtInit(&h); }\n")
    assert "#include <hipsparselt/hipsparselt.h>" in out
    assert "hipsparseLtHandle_t h; hipsparseLtInit(&h);" in out
