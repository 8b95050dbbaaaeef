"""Code a project already wrote for ROCm (round 23, FBGEMM): its HIP build's declarations are
what the rules read, also where a header of the tree makes them or the parse sees only the
CUDA side."""

from __future__ import annotations

import json

from click.testing import CliRunner

from _units import assert_nvcc_builds, convert_directory
from hipify_py.cli.check import check

PRELUDE = """#pragma once
#include <cstdint>
#if defined(USE_ROCM)
static constexpr uint64_t kFullWarpMask = 0xffffffffffffffffull;
#else
static constexpr uint32_t kFullWarpMask = 0xffffffffu;
#endif
"""

FIND = """#include <cstdint>
#include <type_traits>
#include "prelude.cuh"

// the lane mask comes from a header that declares it per platform, and a subwarp mask is
// declared once per platform
__global__ void find(const int* keys, int* hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool found = i < n && keys[i] > 0;
  if (__any_sync(kFullWarpMask, found)) {
    hits[blockIdx.x] = 1;
  }
  const uint32_t subwarp_id = threadIdx.x / 4;
#ifdef USE_ROCM
  const uint64_t subwarp_mask = static_cast<uint64_t>(0xF) << (4 * subwarp_id);
#else
  const uint32_t subwarp_mask = static_cast<uint32_t>(0xF) << (4 * subwarp_id);
#endif
  if (__any_sync(subwarp_mask, found)) {
    hits[blockIdx.x] += 1;
  }
}

// a full mask spelled as <cstdint>'s maximum, and a mask type taken from the vote itself
__global__ void first_hit(const float* v, int* out) {
  const auto active_mask = __activemask();
  using mask_t = std::remove_const_t<decltype(active_mask)>;
  const mask_t ballot = __ballot_sync(active_mask, v[threadIdx.x] > 0.f);
  float x = __shfl_sync(UINT64_MAX, v[threadIdx.x], 0);
  if (threadIdx.x == 0) out[blockIdx.x] = __popcll(static_cast<unsigned long long>(ballot)) + x;
}
"""


def _findings(root) -> list[tuple[str, int]]:
    args = ["--select", "HZ", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, [str(root), *args], catch_exceptions=False)
    return [(f["rule"], f["line"]) for f in json.loads(run.stdout)["findings"]]


def test_masks_the_hip_build_declares_64_bit_are_no_finding(nvcc, gfx942_check, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "prelude.cuh").write_text(PRELUDE)
    (src / "find.cu").write_text(FIND)
    assert_nvcc_builds(nvcc, [src / "find.cu"], [], tmp_path)
    assert _findings(src) == []
    # the project's HIP build (USE_ROCM) of the conversion compiles for gfx942
    out = convert_directory(src, tmp_path / "out")
    hip = out / "find.hip"
    hip.write_text("#define USE_ROCM 1\n" + hip.read_text())
    proc = gfx942_check(hip)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_masks_32_bit_in_the_hip_build_are_still_reported(tmp_path):
    (tmp_path / "prelude.cuh").write_text(
        PRELUDE.replace(
            "uint64_t kFullWarpMask = 0xffffffffffffffffull", "uint32_t kFullWarpMask = 0xffffffffu"
        )
    )
    narrow = (
        FIND.replace("#ifdef USE_ROCM", "#if 0")
        .replace("const mask_t ballot", "const int ballot")
        .replace("UINT64_MAX", "UINT32_MAX")
    )
    (tmp_path / "find.cu").write_text(narrow)
    # kFullWarpMask, 32-bit in both builds; the subwarp mask HIP compiles; the vote stored
    # in an int (UINT32_MAX is converted to the full mask and counted fixed)
    assert _findings(tmp_path) == [("HZ106", 10), ("HZ106", 17), ("HZ105", 28)]


# mscclpp (round 26): the platform is decided once, in a header, and other files test the names
# it defines: for HIP, `P_DEVICE_HIP` and `P_MULTICAST_AVAILABLE 0`; `P_DEVICE_CUDA` is only
# defined where HIP never goes, and bulk.hpp derives `P_BULK_AVAILABLE` from it
TREE = {
    "include/platform.hpp": """#ifndef P_PLATFORM_HPP_
#define P_PLATFORM_HPP_
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define P_DEVICE_HIP
#else
#define P_DEVICE_CUDA
#endif
#endif  // P_PLATFORM_HPP_
""",
    "include/gpu.hpp": """#ifndef P_GPU_HPP_
#define P_GPU_HPP_
#include "platform.hpp"
#if !defined(P_DEVICE_HIP)
#include <cuda.h>
#define P_MULTICAST_AVAILABLE (CUDA_VERSION >= 12030)
#else
#define P_MULTICAST_AVAILABLE 0
#define CU_MEM_HANDLE_TYPE_FABRIC ((hipMemAllocationHandleType)0x8ULL)
// the project's own CUDA spellings of HIP's names (kept by the conversion)
constexpr auto cudaErrorPeerAccessAlreadyEnabled = hipErrorPeerAccessAlreadyEnabled;
using CUresult = hipError_t;
#endif
#endif  // P_GPU_HPP_
""",
    "include/bulk.hpp": """#ifndef P_BULK_HPP_
#define P_BULK_HPP_
#include "platform.hpp"
#if defined(P_DEVICE_CUDA) && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
#define P_BULK_AVAILABLE 1
#else
#define P_BULK_AVAILABLE 0
#endif
#if P_BULK_AVAILABLE
__device__ inline void fence_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
#endif
#endif  // P_BULK_HPP_
""",
    # a definition its own branch takes back: no value for the tree (P_USE_CUDA is the build's)
    "src/host_side.hpp": """#pragma once
#if defined(P_USE_CUDA) && !defined(P_DEVICE_CUDA)
#define P_DEVICE_CUDA
#include "../include/platform.hpp"
#undef P_DEVICE_CUDA
#endif
""",
    "src/multicast.cu": """#include "../include/gpu.hpp"
#include "../include/bulk.hpp"
#include "host_side.hpp"

__device__ int load_volatile(const int* p) {
#if defined(P_DEVICE_CUDA)
  int v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

__global__ void copy(const int* in, int* out) {
  out[threadIdx.x] = load_volatile(in + threadIdx.x);
}

int multicast_granularity() {
#if P_MULTICAST_AVAILABLE
  CUmulticastObjectProp prop = {};
  prop.numDevices = 1;
  prop.size = 1 << 21;
  prop.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  size_t granularity = 0;
  cuMulticastGetGranularity(&granularity, &prop, CU_MULTICAST_GRANULARITY_MINIMUM);
  return static_cast<int>(granularity);
#else
  return 0;
#endif
}

int fabric_handle() { return static_cast<int>(CU_MEM_HANDLE_TYPE_FABRIC); }

bool already_enabled(cudaError_t e) { return e == cudaErrorPeerAccessAlreadyEnabled; }
""",
    # decoys: a switch only the build sets, and a macro two headers define differently
    "src/options.hpp": """#pragma once
#ifdef P_WITH_FAST_FENCES
#define P_FAST_FENCE 1
#endif
#define P_LANES 32
""",
    "src/other.hpp": "#pragma once\n#define P_LANES 64\n",
    # flashinfer's IDE-only hints: what the HIP build fixes itself (convert writes CUDA 12.0)
    # no file of the tree changes
    "src/ide_hint.hpp": (
        "#pragma once\n#define P_IDE 0\n#if P_IDE\n#define __CUDACC_VER_MAJOR__ 12\n#endif\n"
    ),
    "src/async.cu": """#include "ide_hint.hpp"
__global__ void wait_all() {
#if (__CUDACC_VER_MAJOR__ >= 11)
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
""",
    "src/fence.cu": """#include "options.hpp"
#include "other.hpp"
__global__ void fence(int* flag) {
#if defined(P_FAST_FENCE)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
#if P_LANES == 32
  asm volatile("membar.gl;" ::: "memory");
#endif
  *flag = 1;
}
""",
}


def test_platform_macros_a_header_decides_reach_every_file(nvcc, gfx942_check, tmp_path):
    src = tmp_path / "src"
    for name, text in TREE.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    cu = [src / "src" / name for name in ("multicast.cu", "fence.cu", "async.cu")]
    assert_nvcc_builds(nvcc, cu, [], tmp_path)
    # the HIP build compiles none of multicast.cu's CUDA side, and the fabric handle it names
    # is the project's own; fence.cu's switch and its two-valued macro stay undecided
    assert _findings(src) == [("HZ310", 4), ("HZ310", 5), ("HZ310", 8)]
    # alone, a file cannot tell what its headers decide
    assert ("HZ310", 8) in _findings(src / "src" / "multicast.cu")
    # the project's HIP build (the compile defines __HIP_PLATFORM_AMD__) of the conversion
    out = convert_directory(src, tmp_path / "out")
    hip = out / "src" / "multicast.hip"
    hip.write_text("#define __HIP_PLATFORM_AMD__ 1\n" + hip.read_text())
    proc = gfx942_check(hip)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # converting the converted tree changes nothing: its gpu.hpp now includes HIP, and the
    # project's `auto` spelling in the HIP branch is still kept (a fuzz find)
    again = convert_directory(out, tmp_path / "again")
    gpu = (again / "include" / "gpu.hpp").read_text()
    assert gpu == (out / "include" / "gpu.hpp").read_text()
    assert "constexpr auto cudaErrorPeerAccessAlreadyEnabled =" in gpu
