"""A function template and its explicit specializations get the same host/device targets
(jetson-utils' `cudaVector.h`, compile round 28: nvcc accepts the mix, clang does not)."""

from __future__ import annotations

from _units import (
    assert_converted_compiles,
    assert_ported_builds,
    convert_directory,
    converted_tree,
    hip,
)

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


# cudaKDTree (compile round 35): the decorations come from another header, the primary
# template is a declaration, and the `__device__` specialization is in a device-pass branch
KDTREE_COMMON = """#pragma once
#if defined(__CUDA_ARCH__)
# define __owl_device   __device__
# define __owl_host     __host__
#else
# define __owl_device   /* ignore */
# define __owl_host     /* ignore */
#endif
# define __both__   __owl_host __owl_device
"""
KDTREE_MATH = """#pragma once
#include "common.h"
template<typename T> inline __both__ float as_float_rz(T t);
template<> inline __both__ float as_float_rz(float f) { return f; }
#ifdef __CUDA_ARCH__
template<> inline __device__ float as_float_rz(int i) { return __int2float_rz(i); }
#endif
"""
KDTREE_SOURCE = """#include <cuda_runtime.h>
#include "math.h"
__global__ void widen(const int* in, float* out) { out[threadIdx.x] = as_float_rz(in[1]); }
int main() { return as_float_rz(1.5f) == 1.5f ? 0 : 1; }
"""


def test_a_specialization_matches_a_declared_template_decorated_by_another_headers_macros(
    nvcc, gfx942_check, tmp_path
):
    files = {"common.h": KDTREE_COMMON, "math.h": KDTREE_MATH, "knn.cu": KDTREE_SOURCE}
    out = converted_tree(nvcc, tmp_path, "kd", files, "knn.cu")
    assert (
        "template<> inline __host__ __device__ float as_float_rz(int i)"
        in (out / "math.h").read_text()
    )
    assert_converted_compiles(out, "knn.cu", gfx942_check)
    assert (
        convert_directory(out, tmp_path / "again").joinpath("math.h").read_text()
        == (out / "math.h").read_text()
    )  # converting twice is converting once


# TensorRT-LLM's `trtllm_aux_from_float`, copied into DrXuQian/Kernels (compile round 40): a
# host-only primary template declared alone, its specializations naming their arguments
FROM_FLOAT = """#include <cuda_runtime.h>
#include <cuda_fp16.h>
template <typename T>
T from_float(float value);
template <>
__host__ __device__ inline float from_float<float>(float value) { return value; }
template <>
__host__ __device__ inline half from_float<half>(float value) { return __float2half(value); }
__global__ void k(half* o) { o[threadIdx.x] = from_float<half>(1.0f); }
int main() { return from_float<float>(2.0f) == 2.0f ? 0 : 1; }
"""


def test_a_host_template_with_host_device_specializations_gets_device_too(
    nvcc, gfx942_check, tmp_path
):
    converted = hip(FROM_FLOAT)
    assert "template <typename T>\n__host__ __device__ T from_float(float value);" in converted
    assert converted.count("__host__ __device__") == 3
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "from_float", FROM_FLOAT)
    assert hip(converted) == converted
    host_only = FROM_FLOAT.replace("__host__ __device__ inline", "inline").replace(
        "__global__ void k(half* o) { o[threadIdx.x] = from_float<half>(1.0f); }\n", ""
    )
    assert hip(host_only).count("__device__") == 0
