"""Makefile passes on strings: compiler, flags, libraries, paths, names and rules."""

from __future__ import annotations

import subprocess

import pytest

from _build import converted, rules
from _units import assert_nvcc_builds
from conftest import require_tool


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("NVCC ?= nvcc", "NVCC ?= hipcc"),
        ("NVCC := $(CUDA_HOME)/bin/nvcc", "NVCC := $(ROCM_PATH)/bin/hipcc"),
        ("CUDA_PATH ?= /usr/local/cuda-12.4", "ROCM_PATH ?= /opt/rocm"),
        ("LDFLAGS = -L${CUDA_HOME}/lib64 -lcudart", "LDFLAGS = -L${ROCM_PATH}/lib -lamdhip64"),
        (
            "LIBS = -lcublas -lcurand -lcufft -lnvToolsExt",
            "LIBS = -lhipblas -lhiprand -lhipfft -lamdhip64",
        ),
        ("F = -O3 -arch=sm_80", "F = -O3 --offload-arch=gfx942"),
        ("F = -arch sm_80 -O2", "F = --offload-arch=gfx942 -O2"),
        (
            "F = -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90",
            "F = --offload-arch=gfx942",
        ),
        (
            "F = --use_fast_math -use_fast_math",
            "F = -ffast-math -fno-finite-math-only -ffast-math -fno-finite-math-only",
        ),
        ("F = -O3 --expt-relaxed-constexpr --extended-lambda", "F = -O3"),
        ("F = -Xcompiler -fopenmp -Xcompiler=-fPIC,-Wall", "F = -fopenmp -fPIC -Wall"),
        ("F = --default-stream per-thread", "F = -fgpu-default-stream=per-thread"),
        ("F = -lineinfo -std=c++17", "F = -gline-tables-only -std=c++17"),
        ("\tnvcc -x cu -c $< -o $@", "\thipcc -x hip -c $< -o $@"),
        ("%.o: %.cu\n\t$(NVCC) -c $<", "%.o: %.hip\n\t$(NVCC) -c $<"),
        (".SUFFIXES: .cu .o\n.cu.o:", ".SUFFIXES: .hip .o\n.hip.o:"),
        (
            "OBJ = $(SRC:.cu=.o) $(patsubst %.cu,%.o,$(wildcard *.cu))",
            "OBJ = $(SRC:.hip=.o) $(patsubst %.hip,%.o,$(wildcard *.hip))",
        ),
        ("# build main.cu with nvcc -arch=sm_80", "# build main.cu with nvcc -arch=sm_80"),
    ],
)
def test_conversions(cuda, hip):
    assert converted("make", cuda + "\n") == hip + "\n"


def test_offload_arch_option():
    out = converted("make", "F = -arch=sm_90\n", offload_arch=("gfx90a",))
    assert out == "F = --offload-arch=gfx90a\n"


def test_continued_lines_are_one_command():
    text = "F = -O3 \\\n\t-Xptxas -v \\\n\t-maxrregcount 64 --use_fast_math\n"
    out = "F = -O3 \\\n\t-ffast-math -fno-finite-math-only\n"  # the emptied line goes
    assert converted("make", text) == out
    assert rules("make", text) == [("HB105", 2), ("HB105", 3), ("HB106", 3)]


def test_bare_suffixes_follow_a_tree_with_renamed_files(tmp_path):
    """``-include $(SRC:.cu=.d)`` left as is would include the renamed source as a Makefile."""
    text = "SRC = main.cu\nOBJ = $(SRC:.cu=.o)\n-include $(SRC:.cu=.d)\n"
    out = converted("make", text, root=tmp_path, renamed=["main.cu"])
    assert out == "SRC = main.hip\nOBJ = $(SRC:.hip=.o)\n-include $(SRC:.hip=.d)\n"


def test_names_follow_the_renames(tmp_path):
    text = "SRC = main.cu lib/k.cu vendor/v.cu\n"
    out = converted("make", text, root=tmp_path, renamed=["main.cu", "lib/k.cu"])
    assert out == "SRC = main.hip lib/k.hip vendor/v.cu\n"
    assert converted("make", text, keep_names=True) == text


def test_unconvertible_libraries_and_separable_compilation_are_reported():
    text = "LIBS = -lcupti -lnvjpeg\nF = -rdc=true\n\tnvcc -dlink a.o -o link.o\n"
    assert rules("make", text) == [("HB104", 1), ("HB104", 1), ("HB102", 2), ("HB102", 3)]
    assert "F = -fgpu-rdc\n" in converted("make", text)


# ---------------------------------------------------------------------------------------------
# Make's structure survives: each case parses with GNU make before and after conversion

SAMPLES_GENCODE = """\
SMS ?= 50 60 70
ifeq ($(GENCODE_FLAGS),)
$(foreach sm,$(SMS),$(eval GENCODE_FLAGS += -gencode arch=compute_$(sm),code=sm_$(sm)))
HIGHEST_SM := $(lastword $(sort $(SMS)))
GENCODE_FLAGS += -gencode arch=compute_${HIGHEST_SM},code=compute_${HIGHEST_SM}
endif
all:
\t@echo $(GENCODE_FLAGS)
"""
CONTINUED_GENCODE = """\
ifeq ($(ARCH),big)
GEN = -gencode arch=compute_70,code=sm_70 \\
      -gencode arch=compute_80,code=sm_80 \\
      -gencode arch=compute_90,code=sm_90
else ifeq ($(ARCH),small)
GEN = -arch=sm_70
endif
all:
\t@echo "$(GEN)"
"""


def make_prints(text: str, tmp_path, *args: str) -> str:
    """What ``make`` prints for the Makefile ``text`` (its parse errors fail the test)."""
    make = require_tool("make")
    (tmp_path / "Makefile").write_text(text)
    proc = subprocess.run([make, "-s", *args], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_flag_inside_eval_keeps_the_closing_parentheses(tmp_path):
    assert "arch=compute_70,code=compute_70" in make_prints(SAMPLES_GENCODE, tmp_path)
    out = converted("make", SAMPLES_GENCODE)
    assert "$(eval GENCODE_FLAGS += --offload-arch=gfx942))\n" in out
    assert set(make_prints(out, tmp_path).split()) == {"--offload-arch=gfx942"}


def test_removed_continuation_lines_do_not_swallow_else(tmp_path):
    assert make_prints(CONTINUED_GENCODE, tmp_path, "ARCH=small") == "-arch=sm_70"
    out = converted("make", CONTINUED_GENCODE)
    assert "GEN = --offload-arch=gfx942\nelse ifeq ($(ARCH),small)\n" in out
    assert make_prints(out, tmp_path, "ARCH=big") == "--offload-arch=gfx942"
    assert make_prints(out, tmp_path, "ARCH=small") == "--offload-arch=gfx942"


def test_an_emptied_middle_line_goes_and_the_rest_stays_continued(tmp_path):
    text = "F = -O3 \\\n\t-Xptxas -v \\\n\t-DX=1\nall:\n\t@echo $(F)\n"
    out = converted("make", text)
    assert out == "F = -O3 \\\n\t-DX=1\nall:\n\t@echo $(F)\n"
    assert make_prints(out, tmp_path) == "-O3 -DX=1"


def test_a_backslash_against_a_flag_stays(tmp_path):
    text = "F := -O3 -arch=$(ARCH)\\\n  -I../inc\nall:\n\t@echo $(F)\n"
    out = converted("make", text)
    assert out == "F := -O3 --offload-arch=$(ARCH)\\\n  -I../inc\nall:\n\t@echo $(F)\n"
    assert make_prints(out, tmp_path, "ARCH=gfx942") == "-O3 --offload-arch=gfx942 -I../inc"


def test_fast_math_keeps_infinity_checks():
    text = "F = -O3 --use_fast_math\n"
    assert converted("make", text) == "F = -O3 -ffast-math -fno-finite-math-only\n"
    assert rules("make", text) == [("HB106", 1)]


def test_thrust_wrapped_namespace_is_removed_and_reported(tmp_path, gfx942_check):
    """AMGX's -DTHRUST_CUB_WRAPPED_NAMESPACE=amgx: rocThrust 7.2.4 names ::thrust in its own
    headers, so every Thrust include fails with it (17 of AMGX's 19 TUs, held out)."""
    text = "NVCCFLAGS = -O3 -DTHRUST_CUB_WRAPPED_NAMESPACE=amgx -DNDEBUG\n"
    assert converted("make", text) == "NVCCFLAGS = -O3 -DNDEBUG\n"
    assert rules("make", text) == [("HB109", 1)]
    # the premise, against the ROCm 7.2.4 headers: with the macro Thrust does not compile
    src = tmp_path / "t.hip"
    src.write_text(
        "#define THRUST_CUB_WRAPPED_NAMESPACE amgx\n#include <hip/hip_runtime.h>\n"
        "#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n"
        "void f(thrust::device_vector<int>& v) { thrust::sort(v.begin(), v.end()); }\n"
    )
    assert gfx942_check(src).returncode != 0
    src.write_text(src.read_text().split("\n", 1)[1])
    assert gfx942_check(src).returncode == 0


def test_a_standard_before_cxx11_becomes_cxx11(tmp_path, nvcc, gfx942_check):
    """tobiasvanderwerff's teaching Makefiles pass `--std=c++03` (compile round 46: 13 TUs,
    all silent): nvcc compiles C++03 CUDA, HIP's headers need C++11.  Clang also reads nvcc's
    `-std c++17` as two words."""
    text = "NVCC_FLAGS = --std=c++03 -O3\nA = -std c++17\nB = -std=c++14\n"
    out = "NVCC_FLAGS = -std=c++11 -O3\nA = -std=c++17\nB = -std=c++14\n"
    assert converted("make", text) == out
    assert rules("make", text) == [("HB110", 1)]
    kernel = "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"
    (tmp_path / "k.cu").write_text(kernel)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], ["--std=c++03"], tmp_path)
    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n" + kernel)
    for standard, ok in (("c++03", False), ("c++11", True)):
        proc = gfx942_check(tmp_path / "k.hip", standard)
        assert (proc.returncode == 0) == ok, proc.stderr
