"""CMake passes on strings: language, settings, architectures, packages, targets, names."""

from __future__ import annotations

import pytest

from _build import build_result, converted, rules

ROCM_FIRST = (  # after find_package(hip): ROCm's headers before /usr/include's for HIP sources
    'if(hip_INCLUDE_DIRS AND NOT hip_INCLUDE_DIRS STREQUAL "/usr/include")\n'
    '  string(APPEND CMAKE_HIP_FLAGS " -isystem ${hip_INCLUDE_DIRS}")\n'
    "endif()"
)

PROJECT = """\
cmake_minimum_required(VERSION 3.21)
project(saxpy LANGUAGES CXX CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_ARCHITECTURES 90)
add_library(k STATIC src/k.cu)
find_package(CUDAToolkit REQUIRED)
target_link_libraries(k PRIVATE CUDA::cudart)
"""


def test_project_converts_to_the_hip_language():
    assert converted("cmake", PROJECT) == (
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(saxpy LANGUAGES CXX HIP)\n"
        "set(CMAKE_HIP_STANDARD 17)\n"
        "set(CMAKE_HIP_ARCHITECTURES gfx942)\n"
        "add_library(k STATIC src/k.hip)\n"
        "find_package(hip REQUIRED)\n"
        f"{ROCM_FIRST}\n"
        "target_link_libraries(k PRIVATE hip::host)\n"
    )


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("enable_language(CUDA)", "enable_language(HIP)"),
        ("check_language(CUDA)", "check_language(HIP)"),
        ("project(p CUDA CXX)", "project(p HIP CXX)"),
        ("if(CMAKE_CUDA_COMPILER)", "if(CMAKE_HIP_COMPILER)"),
        ('string(APPEND CMAKE_CUDA_FLAGS " -O3")', 'string(APPEND CMAKE_HIP_FLAGS " -O3")'),
        (
            "set_source_files_properties(a.cpp PROPERTIES LANGUAGE CUDA)",
            "set_source_files_properties(a.cpp PROPERTIES LANGUAGE HIP)",
        ),
        (
            "set_target_properties(k PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES 80)",
            "set_target_properties(k PROPERTIES HIP_STANDARD 17 HIP_ARCHITECTURES gfx942)",
        ),
        (
            'set_property(TARGET k PROPERTY CUDA_ARCHITECTURES "70;80")',
            'set_property(TARGET k PROPERTY HIP_ARCHITECTURES "gfx942")',
        ),
        (
            'set(CMAKE_CUDA_ARCHITECTURES 70 80 CACHE STRING "")',
            'set(CMAKE_HIP_ARCHITECTURES gfx942 CACHE STRING "")',
        ),
        # torch2trt, icicle (compile round 32): a variable of the project's own as the value
        (
            "set_property(TARGET k PROPERTY CUDA_ARCHITECTURES ${CUDA_ARCHITECTURES})",
            "set_property(TARGET k PROPERTY HIP_ARCHITECTURES gfx942)",
        ),
        (
            'set(CMAKE_CUDA_ARCHITECTURES "${CUDA_ARCHITECTURES}" PARENT_SCOPE)',
            'set(CMAKE_HIP_ARCHITECTURES "gfx942" PARENT_SCOPE)',
        ),
        (
            "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>)",
            "target_compile_options(k PRIVATE "
            "$<$<COMPILE_LANGUAGE:HIP>:-ffast-math;-fno-finite-math-only>)",
        ),
        (
            'set(CMAKE_CUDA_FLAGS "-Xcompiler=-fPIC,-Wall --expt-relaxed-constexpr -lineinfo")',
            'set(CMAKE_HIP_FLAGS "-fPIC -Wall -gline-tables-only")',
        ),
        ("if(CUDAToolkit_FOUND)", "if(hip_FOUND)"),
        (
            "target_compile_features(k PUBLIC cuda_std_17)",
            "target_compile_features(k PUBLIC hip_std_17)",
        ),
        (
            "include_directories($ENV{CUDA_HOME}/include)",
            "include_directories($ENV{ROCM_PATH}/include)",
        ),
        ("target_link_libraries(k cublas -lcurand)", "target_link_libraries(k hipblas -lhiprand)"),
        ("# CUDA::cublas and src/k.cu in a comment", "# CUDA::cublas and src/k.cu in a comment"),
    ],
)
def test_conversions(cuda, hip):
    assert converted("cmake", cuda + "\n") == hip + "\n"


def test_offload_arch_option_sets_every_architecture():
    out = converted(
        "cmake", "set(CMAKE_CUDA_ARCHITECTURES 90)\n", offload_arch=("gfx90a", "gfx942")
    )
    assert out == "set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942)\n"


def test_library_targets_bring_their_packages():
    text = (
        "find_package(CUDAToolkit 12.2 REQUIRED)\n"
        "target_link_libraries(app PRIVATE CUDA::cublas CUDA::curand_static CUDA::cusparse)\n"
    )
    assert converted("cmake", text) == (
        "find_package(hip REQUIRED)\n"
        f"{ROCM_FIRST}\n"
        "find_package(hipblas REQUIRED)\n"
        "find_package(hiprand REQUIRED)\n"
        "find_package(hipsparse REQUIRED)\n"
        "target_link_libraries(app PRIVATE roc::hipblas hip::hiprand roc::hipsparse)\n"
    )


def test_cusolver_links_what_cudatoolkit_links_with_it():
    # cuda-samples cuSolverDn_LinearSolver: helper_cusolver.h calls cusparseGetMatIndexBase, and
    # the target links only CUDA::cusolver (FindCUDAToolkit: cusolver DEPS cublas cusparse);
    # with roc::hipsolver alone the link failed (undefined symbol hipsparseGetMatIndexBase)
    text = (
        "find_package(CUDAToolkit REQUIRED)\n"
        "if(TARGET CUDA::cusolver)\n"
        "  target_link_libraries(app PRIVATE CUDA::cudart CUDA::cusolver)\n"
        "endif()\n"
    )
    assert converted("cmake", text) == (
        "find_package(hip REQUIRED)\n"
        f"{ROCM_FIRST}\n"
        "find_package(hipsolver REQUIRED)\n"
        "find_package(hipblas REQUIRED)\n"
        "find_package(hipsparse REQUIRED)\n"
        "if(TARGET roc::hipsolver)\n"
        "  target_link_libraries(app PRIVATE hip::host"
        " roc::hipsolver roc::hipblas roc::hipsparse)\n"
        "endif()\n"
    )


def test_nvtx_targets_link_nothing_more_than_the_runtime():
    # NVTX calls become the shim's no-ops and ROCm 7.2.4 ships no roctx library: the old
    # roctx64 link failed where the sources built (lmdeploy, multi-gpu-programming-models)
    text = (
        "find_package(CUDAToolkit REQUIRED)\n"
        "if(TARGET CUDA::nvtx3)\n"
        "  target_link_libraries(app PRIVATE CUDA::nvtx3 nvToolsExt)\n"
        "endif()\n"
    )
    assert converted("cmake", text) == (
        "find_package(hip REQUIRED)\n"
        f"{ROCM_FIRST}\n"
        "if(TARGET hip::host)\n"
        "  target_link_libraries(app PRIVATE hip::host amdhip64)\n"
        "endif()\n"
    )


def test_roc_option_links_the_roc_libraries():
    text = "find_package(CUDAToolkit)\ntarget_link_libraries(a CUDA::cublas)\n"
    assert converted("cmake", text, roc=True) == (
        f"find_package(hip)\n{ROCM_FIRST}\n"
        "find_package(rocblas REQUIRED)\ntarget_link_libraries(a roc::rocblas)\n"
    )


def test_subdirectory_without_find_package_gets_its_own():
    """A target in a subdirectory whose parent found CUDAToolkit: the ROCm package is found
    where it is used (find_package may be repeated; imported targets are directory-scoped)."""
    text = "add_library(blas_ops ops.cpp)\n  target_link_libraries(blas_ops PUBLIC CUDA::cublas)\n"
    assert converted("cmake", text) == (
        "add_library(blas_ops ops.cpp)\n"
        "  find_package(hipblas REQUIRED)\n"
        "  target_link_libraries(blas_ops PUBLIC roc::hipblas)\n"
    )


def test_names_follow_only_the_files_the_run_renames(tmp_path):
    text = (
        "set(SRC a.cu sub/b.cu ${CMAKE_CURRENT_SOURCE_DIR}/sub/c.cu third_party/x.cu)\n"
        'file(GLOB K "kernels/*.cu")\n'
    )
    out = converted(
        "cmake", text, root=tmp_path, renamed=["a.cu", "sub/b.cu", "sub/c.cu", "kernels/k.cu"]
    )
    assert out == (
        "set(SRC a.hip sub/b.hip ${CMAKE_CURRENT_SOURCE_DIR}/sub/c.hip third_party/x.cu)\n"
        "set_source_files_properties(third_party/x.cu PROPERTIES LANGUAGE HIP)\n"
        'file(GLOB K "kernels/*.hip")\n'
    )
    kept = converted("cmake", text, keep_names=True)
    assert kept.startswith(text.splitlines()[0] + "\n") and 'file(GLOB K "kernels/*.cu")' in kept


def test_kept_cu_names_are_compiled_as_hip(tmp_path):
    """--keep-names / --in-place / an excluded file: CMake compiles a .cu as HIP only if told."""
    text = "add_library(k STATIC src/k.cu)\n  set(S x.cu)\n"
    assert converted("cmake", text, keep_names=True) == (
        "add_library(k STATIC src/k.cu)\n"
        "set_source_files_properties(src/k.cu PROPERTIES LANGUAGE HIP)\n"
        "  set(S x.cu)\n"
        "  set_source_files_properties(x.cu PROPERTIES LANGUAGE HIP)\n"
    )
    listed = "add_library(k a.cu)\nset_source_files_properties(a.cu PROPERTIES LANGUAGE CUDA)\n"
    assert converted("cmake", listed, keep_names=True) == listed.replace("CUDA)", "HIP)")


def test_what_cannot_be_converted_is_reported_with_its_line():
    text = (
        "project(p CXX CUDA)\n"
        "set(CMAKE_CUDA_HOST_COMPILER g++-12)\n"
        "set_target_properties(k PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n"
        "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas -v>)\n"
        "target_link_libraries(k CUDA::cupti)\n"
        "cuda_add_executable(old main.cu OPTIONS -G)\n"
        "target_compile_options(k PRIVATE -rdc=true)\n"
    )
    assert rules("cmake", text) == [
        ("HB101", 2),
        ("HB102", 3),
        ("HB105", 4),
        ("HB104", 5),
        ("HB103", 6),
        ("HB102", 7),
    ]
    out = converted("cmake", text)
    assert "$<$<COMPILE_LANGUAGE:HIP>:>" in out  # the ptxas flag is gone
    assert "-fgpu-rdc" in out and "CUDA::cupti" in out


def test_a_compiler_path_is_reported_and_its_readers_converted():
    text = "set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)\nif(CMAKE_CUDA_COMPILER)\nendif()\n"
    assert converted("cmake", text) == text.replace("if(CMAKE_CUDA_", "if(CMAKE_HIP_")
    assert rules("cmake", text) == [("HB101", 1)]


def test_suppression_comment_silences_a_build_finding():
    text = "set(CMAKE_CUDA_HOST_COMPILER g++)  # hipify-py: ignore[HB101]\n"
    assert rules("cmake", text) == []


def test_bracket_arguments_and_comments_are_not_commands():
    text = "#[[ project(x CUDA) ]]\nmessage([=[ enable_language(CUDA) ]=])\n"
    assert build_result("cmake", text).text == text


# ---------------------------------------------------------------------------------------------
# what CUDA gave implicitly: the runtime for .cpp sources, C++ for find_package(hip)


def test_cpp_sources_beside_kernels_get_the_hip_runtime():
    text = "add_executable(app main.cpp k.cu)\nadd_executable(tool tool.cpp)\n"
    assert converted("cmake", text) == (
        "find_package(hip REQUIRED)\n"
        f"{ROCM_FIRST}\n"
        "add_executable(app main.cpp k.hip)\n"
        "target_link_libraries(app PRIVATE hip::host)\n"
        "add_executable(tool tool.cpp)\n"  # neither kernels nor CUDA in tool.cpp (absent)
    )


def test_a_cpp_only_target_that_uses_the_runtime_gets_it(tmp_path):
    (tmp_path / "host.cpp").write_text("#include <cuda_runtime.h>\nint main() {}\n")
    (tmp_path / "plain.cpp").write_text("int main() {}\n")
    text = (
        "add_executable(host host.cpp)\ntarget_link_libraries(host m)\n"
        "add_executable(plain plain.cpp)\nset(X k.cu)\n"
    )
    out = converted("cmake", text, root=tmp_path)
    assert "add_executable(host host.cpp)\ntarget_link_libraries(host hip::host)\n" in out
    assert "add_executable(plain plain.cpp)\nset(X k.hip)\n" in out


def test_a_target_that_links_the_runtime_already_is_left():
    text = "add_library(k a.cpp k.cu)\ntarget_link_libraries(k PUBLIC CUDA::cudart)\n"
    assert converted("cmake", text).count("hip::host") == 1


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("project(p LANGUAGES CUDA)", "project(p LANGUAGES CXX HIP)"),
        ("project(p LANGUAGES CUDA VERSION 1.0)", "project(p LANGUAGES CXX HIP VERSION 1.0)"),
        ("project(p CUDA)", "project(p CXX HIP)"),
        ("project(p LANGUAGES CUDA)\nadd_executable(a m.c)", "project(p LANGUAGES C CXX HIP)"),
        ("project(p LANGUAGES C CUDA)", "project(p LANGUAGES C CXX HIP)"),
        ("project(p LANGUAGES CXX CUDA) # x.c", "project(p LANGUAGES CXX HIP) # x.c"),
    ],
)
def test_project_keeps_a_cxx_language_for_find_package_hip(cuda, hip):
    assert converted("cmake", cuda + "\n").startswith(hip)


FINDCUDA = """\
cmake_minimum_required(VERSION 3.21)
project(legacy CXX)
find_package(CUDA REQUIRED)
set(CUDA_NVCC_FLAGS "${CUDA_NVCC_FLAGS} -O2 --use_fast_math")
list(APPEND CUDA_NVCC_FLAGS -DSCALE=2 -lineinfo)
cuda_include_directories(include)
cuda_add_executable(app main.cu)
cuda_add_library(k STATIC k.cu)
"""


def test_findcuda_projects_are_ported_to_the_hip_language():
    out = converted("cmake", FINDCUDA)
    assert (
        "if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n  set(CMAKE_HIP_ARCHITECTURES gfx942)\nendif()\n"
        "enable_language(HIP)\nfind_package(hip REQUIRED)"
    ) in out
    assert 'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -O2 -ffast-math -fno-finite-math-only")' in out
    assert 'string(APPEND CMAKE_HIP_FLAGS " -DSCALE=2 -gline-tables-only")' in out
    assert "include_directories(include)" in out
    assert "add_executable(app main.hip)" in out and "add_library(k STATIC k.hip)" in out
    assert "cuda_" not in out and "CUDA_NVCC_FLAGS" not in out
    assert [r for r in rules("cmake", FINDCUDA) if r[0] == "HB103"] == []


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("cuda_add_executable(app main.cu OPTIONS -G)", "per-target nvcc options"),
        ("cuda_compile(objs k.cu)", "no HIP-language command"),
        ('set(CUDA_NVCC_FLAGS "-O2;-G")', "a list, not a flags string"),
        ("list(APPEND CUDA_NVCC_FLAGS\n  -O2)", "a multi-line list"),
        ('list(APPEND CUDA_NVCC_FLAGS "-Xcompiler -fPIC")', "a quoted item"),
    ],
)
def test_findcuda_forms_without_a_hip_spelling_stay_reported(line: str, why: str):
    text = f"project(p CXX)\nfind_package(CUDA REQUIRED)\n{line}\n"
    assert ("HB103", 3) in rules("cmake", text), why
