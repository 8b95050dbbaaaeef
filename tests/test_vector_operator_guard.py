"""`convert` leaves to HIP the user operators on vector types that HIP defines the same way.

The compile side (nvcc builds the fixture, its conversion builds for gfx942) is
``test_convert_failing_units`` over ``fixtures/units/vector_operators.cu``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from _convert import hip
from _units import assert_ported_builds
from test_hazard_common import only

GUARD = "#if !defined(__HIP_PLATFORM_AMD__)"
UNIT = Path(__file__).parent / "fixtures" / "units" / "vector_operators.cu"


def test_consecutive_element_wise_definitions_share_one_guard():
    src = UNIT.read_text()
    out = hip(src)
    assert out.count(GUARD) == 1 and out.count("#endif") == 1
    guarded = out[out.index(GUARD) : out.index("#endif")].split("\n", 1)[1]
    assert guarded.count("operator") == 11 and "dot(" not in guarded
    assert only("HZ330", src) == []  # nothing left for a human


@pytest.mark.parametrize(
    "definition",
    [
        # operands swapped in a non-commutative operator, with a scalar
        "float2 operator-(float2 a, float s) { return make_float2(s - a.x, s - a.y); }",
        # a scalar of another type: HIP converts it to int first, this computes in float
        "int2 operator*(int2 a, float s) { return make_int2(a.x * s, a.y * s); }",
    ],
)
def test_operators_on_a_scalar_that_differ_from_hip_stay_unreported(definition):
    """HIP's scalar operators are templates: a call with exactly these types uses the user's
    (the judges of eleven such findings found no call with others, rounds 5-27)."""
    src = f"inline __host__ __device__ {definition}\n"
    assert GUARD not in hip(src)
    assert only("HZ330", src) == []


@pytest.mark.parametrize(
    "definition",
    [
        # a component from another component
        "float2 operator*(float2 a, float2 b) { return make_float2(a.x * b.y, a.y * b.x); }",
        # not every component
        "void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; }",
        # another operator inside, in an operator HIP defines as a non-template friend
        "float2 operator/(float2 a, float2 b) { return make_float2(a.x * b.x, a.y * b.y); }",
    ],
)
def test_operators_that_differ_from_hip_stay_and_are_reported(definition):
    src = f"inline __host__ __device__ {definition}\n"
    out = hip(src)
    assert GUARD not in out
    assert len(only("HZ330", src)) == 1


def test_a_definition_sharing_its_line_with_other_code_is_left_alone():
    src = (
        "inline __device__ float2 operator+(float2 a, float2 b)"
        " { return make_float2(a.x + b.x, a.y + b.y); } __device__ int g;\n"
    )
    assert GUARD not in hip(src)


def test_a_definition_that_ends_the_file_without_a_newline():
    src = "inline __device__ float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }"
    out = hip(src)
    assert out.rstrip().endswith("}\n#endif") and out.index(GUARD) < out.index("operator")


WINS = """#include <cuda_runtime.h>
// two vectors of one type, not element-wise: an exact non-template match beats HIP's templates
// (the float4 results compile only if these are the operators chosen)
__host__ __device__ float4 operator-(float2 a, float2 b) { return make_float4(b.x, a.x, 0, 0); }
__host__ __device__ float4 operator+(const float2& a, const float2& b) {
  return make_float4(a.y, b.y, 0, 0);
}
__host__ __device__ bool operator==(float3 a, float3 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
__global__ void k(float2* p, float4* q, float3* r, bool* o) {
  q[0] = p[0] - p[1];
  q[1] = p[0] + p[1];
  o[0] = r[0] == r[1];
}
"""


def test_an_exact_two_vector_operator_stays_the_one_calls_use(nvcc, gfx942_check, tmp_path):
    """pytorch3d's all-components `operator==`, apex's braced `operator+`: not ambiguous."""
    (tmp_path / "w.cu").write_text(WINS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "w.cu"), "-o", str(tmp_path / "w.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert only("HZ330", WINS) == []
    out = hip(WINS)
    assert GUARD not in out
    (tmp_path / "w.hip").write_text(out)
    proc = gfx942_check(tmp_path / "w.hip")
    assert proc.returncode == 0, proc.stderr[-2000:]


ONE_SIDED = """#include <cuda_runtime.h>
// ccminer: uint2 as a 64-bit integer, operators for the device only; clang prefers them to
// HIP's __host__ __device__ ones, so they are not ambiguous and keep their meaning
static __device__ __forceinline__ uint2 add64(uint2 a, uint2 b) {
  typedef unsigned long long u64;
  u64 s = ((u64)a.y << 32 | a.x) + ((u64)b.y << 32 | b.x);
  return make_uint2((unsigned)s, (unsigned)(s >> 32));
}
static __device__ __forceinline__ void operator+=(uint2& a, uint2 b) { a = add64(a, b); }
static __device__ uint2 operator*(uint2 a, uint2 b) { return make_uint2(a.x * b.x, a.y ^ b.y); }
// HIP's integral compound assignments are member templates: an exact user one wins
__host__ __device__ void operator^=(uint4& a, const uint4& b) { a.x ^= b.y; a.y ^= b.x; }
__global__ void k(uint2* p, uint4* q) {
  uint2 v = p[0];
  v += p[1];
  p[2] = v * p[3];
  q[0] ^= q[1];
}
"""


def test_one_sided_and_integral_compound_operators_stay_the_ones_calls_use(
    nvcc, gfx942_check, tmp_path
):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "o", ONE_SIDED)
    assert only("HZ330", ONE_SIDED) == []
    # the same compound assignment for both sides is ambiguous with HIP's member: reported
    both = ONE_SIDED.replace(
        "static __device__ __forceinline__ void operator+=", "__host__ __device__ void operator+="
    )
    assert [f.line for f in only("HZ330", both)] == [9]


MIXED = """#include <cuda_runtime.h>
// GROMACS vectype_ops (round 21): operands of two vector types, which none of HIP's operators
// take together: the user's stay the ones calls use
__host__ __device__ void operator+=(float3& a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
__host__ __device__ float4 operator+(float4 a, float3 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w);
}
__host__ __device__ float operator*(const float4& a, const float3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
__global__ void k(float3* p, float4* q, float* o) {
  float3 v = p[0];
  v += q[0];
  p[1] = v;
  q[1] = q[2] + p[2];
  o[0] = q[3] * p[3];
}
"""


def test_operators_on_two_vector_types_stay_the_ones_calls_use(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "m", MIXED)
    assert only("HZ330", MIXED) == []
    # the decoy: a product of two float4 that is not HIP's element-wise one, ambiguous with
    # HIP's non-template operator at its call
    same = MIXED.replace(
        "float operator*(const float4& a, const float3& b)",
        "float operator*(const float4& a, const float4& b)",
    )
    same = same.replace("a.x * b.x + a.y * b.y + a.z * b.z", "a.x * b.x + a.w * b.w")
    same = same.replace("q[3] * p[3]", "q[3] * q[4]")
    (tmp_path / "s.cu").write_text(same)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "s.cu"), "-o", str(tmp_path / "s.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert [f.line for f in only("HZ330", same)] == [8]
    (tmp_path / "s.hip").write_text(hip(same))
    assert "ambiguous" in gfx942_check(tmp_path / "s.hip").stderr


# cuNSearch's Types.h (compile round 31, a silent failure): the vector type under a name of the
# project's, chosen by a precision switch, and built by a macro of the same name
ALIASED = """#include <cuda_runtime.h>
#ifdef USE_DOUBLE_PRECISION
using Real3 = double3;
#define Real3(x, y, z) make_double3(x, y, z)
#else
using Real3 = float3;
#define Real3(x, y, z) make_float3(x, y, z)
#endif
inline __host__ __device__ Real3 operator*(Real3 left, Real3 right) {
  return Real3(left.x * right.x, left.y * right.y, left.z * right.z);
}
inline __host__ __device__ Real3 operator-(Real3 left, Real3 right) {
  return Real3(left.x - right.x, left.y - right.y, left.z - right.z);
}
__global__ void cells(const Real3* p, Real3 lo, Real3 delta, Real3* out) {
  out[threadIdx.x] = (p[threadIdx.x] - lo) * delta;
}
"""


def test_operators_on_a_projects_name_for_a_vector_type_are_left_to_hip(
    nvcc, gfx942_check, tmp_path
):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "aliased", ALIASED)
    assert hip(ALIASED).count(GUARD) == 1
    # decoy: an operator that is not HIP's (a cross term) stays, and is reported
    crossed = ALIASED.replace("left.y * right.y", "left.y * right.z")
    assert [f.line for f in only("HZ330", crossed)] == [9]


# PCL KinFu's vector_math.hpp as Kintinuous keeps it (compile round 33: five silent failures):
# the operators exist only in the expansions of two macros, one invocation per vector type
MACRO_MADE = """#include <cuda_runtime.h>
#define COMPOUND_OP(type, scalar, op) \\
__device__ __host__ inline type& operator op(type& a, const type& b) \\
  { a.x op b.x; a.y op b.y; a.z op b.z; return a; } \\
__device__ __host__ inline type& operator op(type& a, scalar s) \\
  { a.x op s; a.y op s; a.z op s; return a; }
COMPOUND_OP(float3, float, -=)
COMPOUND_OP(float3, float, *=)
COMPOUND_OP(int3, int, +=)
#undef COMPOUND_OP
#define BINARY_OP(type, scalar, op, cop) \\
__device__ __host__ inline type operator op(const type& a, const type& b) \\
  { type r = a; r cop b; return r; } \\
__device__ __host__ inline type operator op(const type& a, scalar s) \\
  { type r = a; r cop s; return r; }
BINARY_OP(float3, float, -, -=)
BINARY_OP(float3, float, *, *=)
#undef BINARY_OP
__global__ void step(float3* p, const float3* v, int3* cell, float dt) {
  float3 q = p[threadIdx.x];
  q -= v[threadIdx.x] * dt;
  q *= q - p[0];
  cell[threadIdx.x] += make_int3(1, 2, 3);
  p[threadIdx.x] = q;
}
"""


def test_operators_a_macro_defines_are_left_to_hip(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "macro_made", MACRO_MADE)
    assert hip(MACRO_MADE).count(GUARD) == 2 and only("HZ330", MACRO_MADE) == []
    # decoy: a product that is not HIP's (a cross term) stays unguarded and is reported at the
    # invocation; the compound operators before it are still left to HIP
    crossed = MACRO_MADE.replace(
        "{ type r = a; r cop b; return r; }",
        "{ return type{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }",
    )
    assert hip(crossed).count(GUARD) == 1
    assert [f.line for f in only("HZ330", crossed)] == [17]
