"""A class whose constructors are all `__device__` gets `__host__` on them where a host function
of the file builds it (cuda_hlt's `UTEventModel.cuh`, compile round 37: nvcc checks a host
function's calls only where it emits it, clang in its host pass)."""

from __future__ import annotations

from _units import assert_ported_builds, hip

# cuda_hlt's UT hits: the host member returns braces that only a device constructor takes
HITS = """#include <cuda_runtime.h>
#include <cstdint>
struct Hit {
  float y;
  uint32_t id;
  __device__ Hit() {}
  __device__ Hit(const float _y, const uint32_t _id) : y(_y), id(_id) {}
};
struct Hits {
  float* y;
  uint32_t* id;
  Hit getHit(uint32_t index) const { return {y[index], id[index]}; }
  __device__ Hit hit(uint32_t index) const { return Hit(y[index], id[index]); }
};
__global__ void first(Hits hits, float* out) { out[threadIdx.x] = hits.hit(threadIdx.x).y; }
"""


def test_device_constructors_a_host_function_uses_get_host(nvcc, gfx942_check, tmp_path):
    out = hip(HITS)
    assert "__host__ __device__ Hit() {}" in out
    assert "__host__ __device__ Hit(const float _y, const uint32_t _id)" in out
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "hits", HITS)
    assert hip(out) == out  # converting twice is converting once


def test_constructors_no_host_function_builds_are_left_alone():
    device_only = HITS.replace(
        "  Hit getHit(uint32_t index) const { return {y[index], id[index]}; }\n", ""
    )
    assert "__host__" not in hip(device_only)
