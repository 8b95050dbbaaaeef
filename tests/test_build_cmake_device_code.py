"""CMake custom commands that write device-code files (nvcc -fatbin/-cubin/-ptx)."""

from __future__ import annotations

from _build import converted, rules

FATBIN = """add_custom_command(
    OUTPUT ${FATBIN}
    COMMAND ${CMAKE_CUDA_COMPILER} ${GENCODE_FLAGS} -o ${FATBIN} -fatbin ${KERNEL}
    DEPENDS ${KERNEL}
)
"""


def test_fatbin_becomes_a_device_only_compile_with_the_hip_flags():
    out = converted("cmake", FATBIN)
    assert out.splitlines()[:4] == [
        'separate_arguments(hipify_device_flags UNIX_COMMAND "${CMAKE_HIP_FLAGS}")',
        "get_property(hipify_device_includes DIRECTORY PROPERTY INCLUDE_DIRECTORIES)",
        'list(TRANSFORM hipify_device_includes PREPEND "-I")',
        "add_custom_command(",
    ]
    assert (
        "    COMMAND ${CMAKE_HIP_COMPILER} ${GENCODE_FLAGS} -o ${FATBIN} -x hip "
        "--offload-device-only -O3 ${hipify_device_flags} ${hipify_device_includes} ${KERNEL}"
    ) in out.splitlines()
    assert rules("cmake", FATBIN) == []


def test_cubin_is_the_same_device_only_compile_indented_like_the_command():
    src = "if(X)\n  " + FATBIN.replace("-fatbin", "-cubin").replace("\n", "\n  ") + "endif()\n"
    out = converted("cmake", src)
    assert "  separate_arguments(hipify_device_flags" in out
    assert "-cubin" not in out and "--offload-device-only" in out


def test_ptx_is_reported_at_its_line_and_left():
    src = FATBIN.replace("-fatbin", "-ptx")
    assert rules("cmake", src) == [("HB108", 3)]
    assert "-ptx" in converted("cmake", src)


def test_quoted_words_and_other_commands_are_left():
    src = 'message("-fatbin")\nset(F -fatbin)\n'
    assert converted("cmake", src) == src
