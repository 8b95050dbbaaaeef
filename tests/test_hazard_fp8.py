"""HZ319: e4m3 FP8 code that assumes the OCP format, on MI300X where HIP computes in FNUZ.

The premise is checked against ROCm 7.2.4's `amd_hip_fp8.h` (host path, run here): FNUZ e4m3
saturates 448 to 240 and decodes the same byte as half the OCP value.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check
from test_hazard_common import only

QUANTIZE = """#include <cuda_fp8.h>
#include <cuda_bf16.h>
#include <cstdint>
#define FP8_E4M3_MAX 448.0f
__global__ void quantize(const float* x, __nv_fp8_e4m3* q, const float* amax, int n) {
  float scale = *amax / 448.f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = __nv_fp8_e4m3(fminf(x[i] / scale, FP8_E4M3_MAX));
}
// fastllm: rounding mimicked through bf16 in a file that uses FP8 elsewhere: no FP8 here
__device__ float mimic(float v, float amax) {
  float s = amax / 448.0f;
  return __bfloat162float(__float2bfloat16(v / s)) * s;
}
__global__ void dequantize(const uint8_t* bytes, float* y, int n) {
  const __nv_fp8_e4m3* w = reinterpret_cast<const __nv_fp8_e4m3*>(bytes);
  const __nv_fp8_e5m2* v = (const __nv_fp8_e5m2*)(bytes + n);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = float(w[i]) + float(v[i]);
}
"""

# 448 without e4m3 in the file; fp8 pointers as parameters, not casts; 240 is FNUZ's maximum
DECOYS = """#include <cuda_fp8.h>
__global__ void resize(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 448 * 448) out[i] = in[i] * 240.f;
}
__device__ float widen(const __nv_fp8_e5m2* p, int i) { return float(p[i]); }
"""

TYPED = """#include <cuda_fp8.h>
__global__ void copy(const __nv_fp8_e4m3* in, __nv_fp8_e4m3* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __nv_fp8_e4m3(float(in[i]) * 240.f);
}
template <typename T1>
__global__ void own(T1* buf, float* y) { y[0] = float(((const __nv_fp8_e4m3*)buf)[0]); }
__device__ float first_of(const __nv_fp8x4_e4m3* in) {
  const char4 packed = reinterpret_cast<const char4*>(in)[0];
  return (float)reinterpret_cast<const __nv_fp8_e4m3*>(&packed.x)[0];
}
"""

# a software OCP e4m3 encoder kept as the reference for the intrinsic's bytes
SOFTWARE = """#include <cuda_fp8.h>
#include <cstdint>
__device__ uint8_t fp8e4m3fn_from_fp32_value(float f) {
  uint32_t bits = __float_as_uint(f) & 0x7fffffffu;
  if (bits >= (1087u << 20)) return 0x7f;
  return (uint8_t)((bits + (7u << 20)) >> 20);
}
__global__ void check(const float* x, uint8_t* ref, __nv_fp8_storage_t* dev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    ref[i] = fp8e4m3fn_from_fp32_value(x[i]);
    dev[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
  }
}
"""

# the same encoder named for FNUZ, and an e4m3 helper in a file without FP8 conversions
SOFTWARE_DECOYS = (
    SOFTWARE.replace("fp8e4m3fn_from", "fp8e4m3fnuz_from"),
    """#include <cstdint>
__device__ uint8_t fp8e4m3fn_from_fp32_value(float f) { return (uint8_t)(f * 8.f); }
__global__ void enc(const float* x, uint8_t* y) {
  y[threadIdx.x] = fp8e4m3fn_from_fp32_value(x[threadIdx.x]);
}
""",
)

PREMISE = """#include <hip/hip_fp8.h>
#include <cstdio>
int main() {
  __hip_fp8_e4m3_fnuz fnuz(448.0f);
  __hip_fp8_e4m3 ocp(448.0f);
  __hip_fp8_e4m3_fnuz a; a.__x = 0x40;
  __hip_fp8_e4m3 b; b.__x = 0x40;
  __hip_fp8_e4m3_fnuz unclamped(1000.0f);  // saturation clamps: a clamp to 448 before it is moot
  std::printf("%g %g %g %g %g\\n", float(fnuz), float(ocp), float(a), float(b), float(unclamped));
}
"""


# mistral.rs's quantisers (round 33): 448 only clamps before a saturating conversion; the
# scale line (7) is where the range matters
CLAMPS = """#include <cuda_fp8.h>
#include <cuda_fp16.h>
__global__ void quantize(const float* x, __nv_fp8_e4m3* q, const float* amax, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float s = *amax / 448.0f;
  float scaled = v / s;
  if (scaled > 448.0f)
    scaled = 448.0f;
  if (scaled < -448.0f)
    scaled = -448.0f;
  float t = v > 448.f ? 448.f : v;
  q[i].__x = __nv_cvt_halfraw_to_fp8(__float2half(scaled), __NV_SATFINITE, __NV_E4M3);
  q[i + n] = __nv_fp8_e4m3(fmaxf(-448.0f, fminf(t, 448.0f)));
}
"""


def test_inputs_are_real_cuda(nvcc, tmp_path):
    for n, src in enumerate((QUANTIZE, DECOYS, TYPED, SOFTWARE, *SOFTWARE_DECOYS, CLAMPS)):
        f = tmp_path / f"f{n}.cu"
        f.write_text(src)
        proc = subprocess.run(
            [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / f"f{n}.o")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr


def test_ocp_maximum_is_reported_and_byte_casts_are_not():
    """Casts of bytes to an FP8 pointer (lines 16-17): 0 of 13 judged true, rounds 7-23."""
    found = only("HZ319", QUANTIZE)
    assert [f.line for f in found] == [4, 6]  # not the 448 of `mimic` (line 12)
    assert "240" in found[0].message


def test_a_clamp_before_a_saturating_conversion_is_not_reported():
    assert [f.line for f in only("HZ319", CLAMPS)] == [7]
    # without saturation, values past FNUZ's 240 become NaN: the clamp's bound matters
    nosat = CLAMPS.replace("__NV_SATFINITE", "__NV_NOSAT")
    assert [f.line for f in only("HZ319", nosat)] == [7, 9, 10, 11, 12, 13, 15]


def test_decoys_are_silent():
    assert only("HZ319", DECOYS) == []
    assert only("HZ319", TYPED) == []


def test_a_software_ocp_codec_beside_the_intrinsics_is_reported():
    found = only("HZ319", SOFTWARE)
    assert [f.line for f in found] == [3]
    assert "FNUZ" in found[0].message and "fp8e4m3fn_from_fp32_value" in found[0].message
    assert [only("HZ319", src) for src in SOFTWARE_DECOYS] == [[], []]
    # LeetCUDA's warp sum of FP8 values (round 15): it converts with the intrinsic, codes nothing
    summed = SOFTWARE.replace("fp8e4m3fn_from_fp32_value", "warp_reduce_sum_fp8_e4m3_f16")
    assert only("HZ319", summed) == []


def test_the_software_codecs_of_one_file_are_one_finding():
    # FasterTransformer vendors a copy of an early cuda_fp8.hpp: 32 codecs, one decision
    decoder = "__device__ float e5m2_to_float(uint8_t b) { return (float)b; }\n"
    (f,) = only("HZ319", SOFTWARE + decoder)
    assert f.line == 3 and "`e5m2_to_float`" in f.message and f.extra["related_lines"] == "15"


def test_the_converted_names_are_reported_too():
    hip = QUANTIZE.replace("__nv_fp8_e4m3", "__hip_fp8_e4m3_fnuz").replace(
        "__nv_fp8_e5m2", "__hip_fp8_e5m2_fnuz"
    )
    assert [f.line for f in only("HZ319", hip, "t.hip")] == [4, 6]


def test_premise_fnuz_saturates_at_240_and_halves_ocp_bytes(tmp_path: Path, rocm7, clang19):
    src = tmp_path / "premise.hip"
    src.write_text(PREMISE)
    obj, exe = tmp_path / "p.o", tmp_path / "p"
    cmd = [
        clang19, "-x", "hip", "--cuda-host-only", "--offload-arch=gfx942", "-nogpulib",
        "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
        "-c", str(src), "-o", str(obj),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    link = subprocess.run([clang19, str(obj), "-o", str(exe), "-lstdc++"], capture_output=True)
    assert link.returncode == 0, link.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout.split()
    assert out == ["240", "448", "1", "2", "240"]
    # and gfx942 device code compiles in FNUZ only: the header says so
    header = (rocm7 / "include/hip/amd_detail/amd_hip_fp8.h").read_text()
    gfx942 = header.index("#if defined(__gfx942__) && __HIP_DEVICE_COMPILE__")
    assert header[gfx942:].split("#elif")[0].split()[-6:] == [
        "#define", "HIP_FP8_TYPE_OCP", "0", "#define", "HIP_FP8_TYPE_FNUZ", "1",
    ]  # fmt: skip


def test_hz319_bytes_the_program_encodes_with_the_type_are_not_foreign() -> None:
    """flashinfer's fmha_v2 host packing (round 12): `reinterpret_cast<__nv_fp8_e4m3*>(buf)[i]
    = __nv_fp8_e4m3(x)` writes bytes with the type the device reads them with (FNUZ on both
    sides after conversion); reading a byte buffer through the cast is no finding either."""
    src = """#include <cuda_fp8.h>
#include <cstdint>
void pack(const float* src, void* q_tmp, int n) {
  for (int i = 0; i < n; ++i)
    reinterpret_cast<__nv_fp8_e4m3*>(q_tmp)[i] = __nv_fp8_e4m3(src[i]);
}
float read(const uint8_t* bytes, int i) {
  return float(reinterpret_cast<const __nv_fp8_e4m3*>(bytes)[i]);
}
"""
    assert only("HZ319", src) == []


def test_a_range_constant_no_code_reads_and_tensor_casts_are_not_reported(tmp_path) -> None:
    """omniserve's copy of TensorRT-LLM's cudaFp8Utils.h defines `FP8_E4M3_MAX = 448.0f` and
    never reads it; SpargeAttn reads a tensor it fills itself as FP8 (round 20: 6 false)."""
    unused = QUANTIZE.replace("fminf(x[i] / scale, FP8_E4M3_MAX)", "x[i] / scale")
    assert [f.line for f in only("HZ319", unused)] == [6]  # not the #define's 448
    tensor = (
        "#include <cuda_fp8.h>\n#include <torch/extension.h>\n"
        "void run(torch::Tensor v) {\n"
        "  auto* p = reinterpret_cast<__nv_fp8_e4m3*>(v.data_ptr());\n  (void)p;\n}\n"
    )
    assert only("HZ319", tensor) == []
    # a header's constant: no file of the tree reads it, or one does
    header = "#pragma once\n#include <cuda_fp8.h>\nconstexpr float FP8_E4M3_MAX = 448.0f;\n"
    header += "using fp8 = __nv_fp8_e4m3;\n"
    (tmp_path / "fp8_utils.h").write_text(header)
    (tmp_path / "k.cu").write_text('#include "fp8_utils.h"\n__global__ void k(float* x) {}\n')
    args = ["--select", "HZ319", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    assert json.loads(run.stdout)["findings"] == []
    (tmp_path / "k.cu").write_text(
        '#include "fp8_utils.h"\n'
        "__global__ void k(float* x) { x[0] = __nv_fp8_e4m3(x[0] / FP8_E4M3_MAX); }\n"
    )
    run = CliRunner().invoke(check, [str(tmp_path), *args], catch_exceptions=False)
    assert [f["line"] for f in json.loads(run.stdout)["findings"]] == [3]


RANGE = """#include <cuda_fp8.h>
__global__ void fill(__nv_fp8_e4m3* q, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = __nv_fp8_e4m3(lo + (hi - lo) * (i % 7) / 6.0f);
}
void fill_inputs(__nv_fp8_e4m3* a, __nv_fp8_e4m3* b, int n) {
  fill<<<(n + 255) / 256, 256>>>(a, n, -448.0f, 448.0f);
  fill<<<(n + 255) / 256, 256>>>(b, n, -448.0f,
                                 448.0f);
}
"""


def test_a_range_of_448_on_one_line_is_one_finding(nvcc, tmp_path):
    """ThunderKittens' `fill<__nv_fp8_e4m3>(..., -448.0f, 448.0f)` (round 22): one range, one
    finding per line, not one per bound."""
    (tmp_path / "r.cu").write_text(RANGE)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "r.cu"), "-o", str(tmp_path / "r.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert [f.line for f in only("HZ319", RANGE)] == [7, 8, 9]


def test_a_codec_that_converts_with_the_intrinsic_is_not_by_hand(nvcc: str, tmp_path: Path):
    """A function named like a codec that converts with an FP8 intrinsic itself becomes FNUZ
    with the rest of the file: the two agree (deepseek-v4-flash's `kv_e4m3_to_float`, round
    42: a false HZ319).  One that decodes the bits itself is still reported."""
    src = """#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cstdint>
__host__ __device__ inline float kv_e4m3_to_float(uint8_t b) {
  __half_raw hr = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, __NV_E4M3);
  return __half2float(__half(hr));
}
__global__ void pack(const float* x, uint8_t* q, float* back) {
  int i = threadIdx.x;
  q[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
  back[i] = kv_e4m3_to_float(q[i]);
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    assert only("HZ319", src) == []
    by_hand = src.replace(
        "__half_raw hr = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, __NV_E4M3);\n"
        "  return __half2float(__half(hr));",
        "return ldexpf(1.0f + (b & 7) / 8.0f, ((b >> 3) & 15) - 7);",
    )
    assert [f.line for f in only("HZ319", by_hand)] == [4]
