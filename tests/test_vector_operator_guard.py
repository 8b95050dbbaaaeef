"""`convert` leaves to HIP the user operators on vector types that HIP defines the same way.

The compile side (nvcc builds the fixture, its conversion builds for gfx942) is
``test_convert_failing_units`` over ``fixtures/units/vector_operators.cu``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _convert import hip
from test_hazard_common import only

GUARD = "#if !defined(__HIP_PLATFORM_AMD__)"
UNIT = Path(__file__).parent / "fixtures" / "units" / "vector_operators.cu"


def test_consecutive_element_wise_definitions_share_one_guard():
    src = UNIT.read_text()
    out = hip(src)
    assert out.count(GUARD) == 1 and out.count("#endif") == 1
    guarded = out[out.index(GUARD) : out.index("#endif")].split("\n", 1)[1]
    assert guarded.count("operator") == 7 and "dot(" not in guarded
    assert only("HZ330", src) == []  # nothing left for a human


@pytest.mark.parametrize(
    "definition",
    [
        # operands swapped in a non-commutative operator: not HIP's a - b
        "float2 operator-(float2 a, float2 b) { return make_float2(b.x - a.x, b.y - a.y); }",
        # a scalar of another type: HIP converts it to int first, this computes in float
        "int2 operator*(int2 a, float s) { return make_int2(a.x * s, a.y * s); }",
        # a component from another component
        "float2 operator*(float2 a, float2 b) { return make_float2(a.x * b.y, a.y * b.x); }",
        # not every component
        "void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; }",
        # another operator inside
        "float2 operator+(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }",
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
