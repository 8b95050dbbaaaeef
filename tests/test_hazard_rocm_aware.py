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
