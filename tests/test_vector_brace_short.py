"""A brace list that gives a vector type fewer values than it has components: CUDA's aggregates
zero the rest, HIP's vector types take one value per component.  Compile round 38
(CudaTextureGen): `return {-a.x, -a.y};` in operators a macro defines, invoked with `uint3`
(10 translation units failed with no finding).  `convert` writes the zeros out where the list
is in the file; in a macro's body, shared by types of other sizes, HZ331 reports the
invocation."""

from __future__ import annotations

from _units import assert_converted_compiles, converted_tree
from test_hazard_common import findings

# a helper_math.h-style header: the two-component macro is invoked for a three-component type
OPS = """#pragma once
#include <cuda_runtime.h>
#define NEGATE2(T) __host__ __device__ inline T operator-(const T &a) { return {-a.x, -a.y}; }
#define NEGATE3(T) __host__ __device__ inline T operator-(const T &a) { return {-a.x, -a.y, -a.z}; }
NEGATE2(int2)
NEGATE3(int3)
NEGATE2(uint3)
__host__ __device__ inline float3 flat(float3 a) { return {a.x, a.y}; }
"""
USE = """#include "ops.cuh"
__global__ void k(const int3* a, float3* c, int3* out) {
  out[threadIdx.x] = -a[threadIdx.x];
  c[threadIdx.x] = flat(c[threadIdx.x]);
}
"""
USE_UINT3 = USE.replace("int3* out)", "int3* out, uint3* b)").replace(
    "  c[", "  b[threadIdx.x] = -b[threadIdx.x];\n  c["
)


def test_nvcc_takes_the_short_lists(nvcc, tmp_path):
    converted_tree(nvcc, tmp_path, "t", {"ops.cuh": OPS, "use.cu": USE_UINT3}, "use.cu")


def test_a_macro_invoked_for_more_components_is_reported_at_the_invocation():
    found = [(f.rule, f.line) for f in findings(OPS, "ops.cuh") if f.rule == "HZ331"]
    assert found == [("HZ331", 7)]


def test_a_written_out_short_return_gets_its_zeros_and_compiles(nvcc, gfx942_check, tmp_path):
    files = {"ops.cuh": OPS.replace("NEGATE2(uint3)\n", ""), "use.cu": USE}
    out = converted_tree(nvcc, tmp_path, "t", files, "use.cu")
    assert "return {a.x, a.y, 0};" in (out / "ops.cuh").read_text()
    assert_converted_compiles(out, "use.cu", gfx942_check)
