"""Rule premises checked against the target headers: ROCm 7.2.4 with clang-19 for gfx942.

Each rule page states why code breaks on AMD; where that is a fact about the HIP headers, it is
compiled here, both ways: what a rule reports must fail (or differ), what it stopped reporting
must compile.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hipify_py.hazards.hz321_cuda_api_declared import _HIP_TYPEDEFS
from test_hazard_common import fixed, only


def _compile(text: str, tmp_path: Path, rocm7: Path, clang19: str) -> subprocess.CompletedProcess:
    src = tmp_path / "premise.hip"
    src.write_text("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n" + text)
    cmd = [
        clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only",
        "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"), str(src),
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


# facts the rules rely on, or stopped reporting because of: all must compile for gfx942
HOLDS = """
#include <type_traits>
__global__ void premises(__half2* h2, __half* h, unsigned long long* o) {
  // HZ315: ROCm 7 declares `__half x, y` in __half2, as CUDA does (silent for ROCm >= 7)
  static_assert(std::is_same<decltype(h2[0].x), __half>::value, "half2 members are __half");
  __half lo = h2[0].x;
  // HZ313: __shfl* overloads for __half/__half2 exist, so half shuffles are not reported
  h[threadIdx.x] = __shfl_xor(lo, 1) + __shfl_xor_sync(~0ull, h[0], 1);
  h2[threadIdx.x] = __shfl_down_sync(~0ull, h2[0], 1);
  // HZ105: ballots are 64-bit
  static_assert(sizeof(__ballot_sync(~0ull, 1)) == 8, "ballot is 64-bit");
  static_assert(sizeof(__activemask()) == 8, "activemask is 64-bit");
  o[0] = __ffsll(__ballot_sync(~0ull, lo > __half(0))) + __popcll(__activemask());
}
// HZ104: the host asks the device for its warp size
int host_warp_size() {
  int w = 0;
  return hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, 0) == hipSuccess ? w : 64;
}
// HZ501: hip-clang does not define __CUDA_ARCH__, in the device pass either
#if defined(__CUDA_ARCH__)
#error "__CUDA_ARCH__ is defined"
#endif
// HZ201: ROCm 7 has __syncwarp (a wavefront fence and wave barrier), so a plain one is right
__global__ void warp_barrier(int* o) { o[threadIdx.x] = 1; __syncwarp(); o[0] += o[1]; }
// HZ316 retired: device new/delete and virtual calls compile, as they do for CUDA
struct Shape { __device__ virtual int sides() const { return 0; } };
struct Square : Shape { __device__ int sides() const override { return 4; } };
__global__ void heap(int n, int* o) {
  int* p = new int[n];
  Square sq;
  const Shape* s = &sq;
  p[0] = s->sides();
  o[0] = p[0];
  delete[] p;
}
// HZ311 retired: texture references and their binding compile (deprecated); reads are HZ320's
texture<float, 1, hipReadModeElementType> tref;
int bind(float* d, size_t n) {
  size_t off = 0;
  hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
  bool bound = hipBindTexture(&off, &tref, d, &desc, n) == hipSuccess;
  return bound && hipUnbindTexture(tref) == hipSuccess;
}
// HZ206 retired: the block votes are work-group reductions (__ockl_wgred_*), ROCm 5.2 to 7.2.4
__global__ void votes(int* o) {
  o[threadIdx.x] = __syncthreads_count(o[0] > 0) + __syncthreads_and(o[1]) + __syncthreads_or(o[2]);
}
// HZ322: a warp-transpose block load of a multiple of 64 threads is not reported: it compiles
#include <hipcub/hipcub.hpp>
__global__ void load128(const int* in, int* o) {
  typedef hipcub::BlockLoad<int, 128, 1, hipcub::BLOCK_LOAD_WARP_TRANSPOSE> L;
  __shared__ typename L::TempStorage s;
  int v[1];
  L(s).Load(in, v);
  o[threadIdx.x] = v[0];
}
"""

# HZ321: what it takes for HIP's own typedefs, each redeclared as the same type (legal)
REDECLARED = (
    "#include <hipblas/hipblas.h>\n#include <hipblaslt/hipblaslt.h>\n"
    "#include <hipsparse/hipsparse.h>\n#include <hipsolver/hipsolver.h>\n"
    + "".join(f"typedef {definition} {name};\n" for name, definition in _HIP_TYPEDEFS.items())
)


# each must be rejected: the rule's premise that the CUDA spelling breaks on gfx942
BREAKS = {
    "HZ106 32-bit mask": (
        "__global__ void k(float* v) { v[0] = __shfl_sync(0xffffffffu, v[0], 0); }"
    ),
    "HZ104 warpSize is not constexpr": (
        "__global__ void k(int* o) { constexpr int w = warpSize; o[0] = w; }"
    ),
    "HZ104 warpSize is a device object": (
        "__global__ void k(int* o) { o[0] = 1; }"
        " void run(int* o) { hipLaunchKernelGGL(k, dim3(1), dim3(4 * warpSize), 0, 0, o); }"
    ),
    "HZ204 a cluster (third) __launch_bounds__ argument": (
        "__global__ void __launch_bounds__(256, 2, 1) k(int* o) { o[0] = 1; }"
    ),
    "HZ320 texture fetches are unavailable on gfx94x": (
        "texture<float, 1, hipReadModeElementType> t;"
        " __global__ void k(float* o) { o[threadIdx.x] = tex1Dfetch(t, threadIdx.x); }"
    ),
    "HZ321 a copy of the CUDA API with CUDA's definition": (
        "typedef unsigned long long hipDeviceptr_t;"
    ),
    "HZ105 __ffs on a 64-bit ballot": (
        "__global__ void k(int* o) { unsigned long long b = __ballot_sync(~0ull, o[0] > 0);"
        " o[0] = __ffs(b); }"
    ),
    "HZ322 a warp-transpose block load of 32 threads": (
        "#include <hipcub/hipcub.hpp>\n"
        "__global__ void k(const int* in, int* o) {"
        " typedef hipcub::BlockLoad<int, 32, 1, hipcub::BLOCK_LOAD_WARP_TRANSPOSE> L;"
        " __shared__ typename L::TempStorage s; int v[1]; L(s).Load(in, v); o[0] = v[0]; }"
    ),
}  # fmt: skip


def test_premises_that_hold_compile(tmp_path, rocm7, clang19):
    proc = _compile(HOLDS, tmp_path, rocm7, clang19)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_hips_own_typedefs_redeclare_as_the_same_type(tmp_path, rocm7, clang19):
    proc = _compile(REDECLARED, tmp_path, rocm7, clang19)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_premises_of_reported_hazards_fail_to_compile(name, tmp_path, rocm7, clang19):
    assert _compile(BREAKS[name], tmp_path, rocm7, clang19).returncode != 0, name


def test_half2_members_reported_only_for_old_targets():
    src = (
        "__global__ void k(__half2* h, float* o) {\n"
        "  __half2 v = h[0];\n  o[0] = __half2float(v.x);\n}\n"
    )
    assert only("HZ315", src) == []
    assert len(only("HZ315", src, target_rocm=(6, 4))) == 1


BALLOT_USES = """#include <cuda_runtime.h>
__global__ void first_positive(const int* in, int* out) {
  int bal = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);
  if (threadIdx.x == 0) out[blockIdx.x] = __ffs(bal) - 1 + 100 * __popc(bal & 0xffff);
}
"""


def test_ballot_widening_fix_changes_every_use_and_compiles(tmp_path, rocm7, clang19):
    out = fixed(BALLOT_USES, unsafe_fixes=True)
    assert "unsigned long long bal" in out
    assert "__ffsll(bal)" in out and "__popcll(bal & 0xffff)" in out
    body = out.replace("#include <hip/hip_runtime.h>\n", "")
    proc = _compile(body, tmp_path, rocm7, clang19)
    assert proc.returncode == 0, proc.stderr[-3000:]


CAST_MASKS = """#include <cuda_runtime.h>
#include <cstdint>
__global__ void broadcast(float* v) {
  float x = __shfl_sync(uint32_t(-1), v[threadIdx.x], 0);
  float y = __shfl_sync(static_cast<uint32_t>(-1), v[threadIdx.x], 0);
  float z = __shfl_sync((unsigned)~0u, v[threadIdx.x], 0);
  v[threadIdx.x] = x + y + z;
}
"""


def test_full_masks_written_as_casts_are_widened_and_compile(tmp_path, rocm7, clang19, nvcc):
    cu = tmp_path / "cast.cu"
    cu.write_text(CAST_MASKS)
    cuda = [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "cast.o")]
    assert subprocess.run(cuda, capture_output=True, timeout=300).returncode == 0
    out = fixed(CAST_MASKS)
    assert out.count("0xffffffffffffffffULL") == 3 and "uint32_t(-1)" not in out
    found = only("HZ106", CAST_MASKS)  # counted as fixed: the default conversion holds the fix
    assert [f.line for f in found] == [4, 5, 6] and all(f.fixed for f in found)
    body = out.replace("#include <hip/hip_runtime.h>\n", "")
    proc = _compile(body, tmp_path, rocm7, clang19)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_block_votes_are_work_group_reductions(rocm7):
    """HZ206 (retired) said the votes were "under development"; ROCm 7.2.4 implements each as
    a reduction over the whole work-group, so they count every wavefront of the block."""
    header = (rocm7 / "include/hip/amd_detail/amd_device_functions.h").read_text()
    for vote, op in (("count", "add"), ("and", "and"), ("or", "or")):
        body = header.split(f"int __syncthreads_{vote}(int predicate)", 1)[1].split("}", 1)[0]
        assert f"__ockl_wgred_{op}_i32" in body, vote


@pytest.mark.parametrize(("waves", "met"), [(8, True), (16, False)])
def test_launch_bounds_hints_above_8_waves_per_simd_cannot_be_met(
    waves, met, tmp_path, rocm7, clang19
):
    """HZ204 reports a second argument above 8 only: gfx942 holds 8 waves per SIMD, and clang
    says so when asked for more (a backend warning, so this one generates code)."""
    src = tmp_path / "bounds.hip"
    src.write_text(
        "#include <hip/hip_runtime.h>\n"
        f"__global__ void __launch_bounds__(128, {waves}) k(float* x) {{ x[threadIdx.x] = 1; }}\n"
    )
    cmd = [
        clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "--cuda-device-only", "-S",
        "-O1", "-std=c++17", f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
        str(src), "-o", str(tmp_path / "bounds.s"),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ("failed to meet occupancy target" not in proc.stderr) == met


# TNN's segmented reductions (round 19): every lane runs each shuffle, the mask names the
# first segment of the shuffle's width; the decoy runs under a lane condition
SEGMENTS = """__global__ void pool(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16, 32);
  v += __shfl_down_sync(0x0000ffff, v, 8, 16);
  v += __shfl_down_sync(0x000000ff, v, 4, 8);
  if (threadIdx.x % 32 < 4) v += __shfl_down_sync(0x0000000f, v, 2, 4);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v;
}
"""


def test_a_segment_mask_every_lane_runs_becomes_the_full_mask(tmp_path, rocm7, clang19, nvcc):
    """HIP's mask check asserts that the mask equals the lanes that run the call (a trap
    without NDEBUG), so the 16-lane mask of a width-16 shuffle all lanes run is HIP's full
    mask; the shuffle under `threadIdx.x % 32 < 4` keeps its mask, reported."""
    header = (rocm7 / "include/hip/amd_detail/amd_warp_sync_functions.h").read_text()
    check = header.split("#define __hip_check_mask(MASK)", 1)[1].split("while (0)", 1)[0]
    assert "MASK == __ballot(true)" in check
    shfl = header.split("__shfl_down_sync(MaskT mask", 1)[1].split("}", 1)[0]
    assert "__hip_check_mask(mask)" in shfl
    cu = tmp_path / "seg.cu"
    cu.write_text(SEGMENTS)
    cuda = [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "seg.o")]
    assert subprocess.run(cuda, capture_output=True, timeout=300).returncode == 0
    out = fixed(SEGMENTS)
    assert out.count("0xffffffffffffffffULL") == 3 and "0x0000000fULL" in out
    found = only("HZ106", SEGMENTS)
    assert [(f.line, f.fixed) for f in found] == [(3, True), (4, True), (5, True), (6, False)]
    body = out.replace("#include <hip/hip_runtime.h>\n", "")
    proc = _compile(body, tmp_path, rocm7, clang19)
    assert proc.returncode == 0, proc.stderr[-3000:]
