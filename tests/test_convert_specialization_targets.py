"""A function template and its explicit specializations get the same host/device targets
(jetson-utils' `cudaVector.h`, compile round 28: nvcc accepts the mix, clang does not)."""

from __future__ import annotations

from _units import assert_ported_builds, hip

# jetson-utils' `alpha`: a `__device__` primary template with `__host__ __device__`
# specializations, called from a kernel and from the host
ALPHA = """#include <cuda_runtime.h>
#include <stdint.h>
template <typename T> inline __device__ uint8_t alpha(T vec, uint8_t a = 255) { return a; }
template <> inline __host__ __device__ uint8_t alpha(uchar3 vec, uint8_t a) { return a; }
template <> inline __host__ __device__ uint8_t alpha(uchar4 vec, uint8_t a) { return vec.w; }
__global__ void k(const uchar4* in, uint8_t* out) { out[threadIdx.x] = alpha(in[threadIdx.x], 0); }
int main() { return alpha(make_uchar3(1, 2, 3), 7) == 7 ? 0 : 1; }
"""


def test_a_device_template_with_host_device_specializations_gets_host_too(
    nvcc, gfx942_check, tmp_path
):
    converted = hip(ALPHA)
    assert "template <typename T> inline __host__ __device__ uint8_t alpha(" in converted
    assert converted.count("__host__ __device__") == 3
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "alpha", ALPHA)
    assert hip(converted) == converted  # converting twice is converting once


def test_templates_whose_specializations_agree_are_left_alone():
    same = ALPHA.replace("inline __host__ __device__", "inline __device__").replace(
        "int main() { return alpha(make_uchar3(1, 2, 3), 7) == 7 ? 0 : 1; }\n", ""
    )
    assert hip(same).count("__host__") == 0
    no_primary = "\n".join(ln for ln in ALPHA.splitlines() if "typename T" not in ln)
    assert "__host__ __device__ uint8_t alpha(uchar3" in hip(no_primary)
    assert hip(no_primary).count("__host__") == 2
