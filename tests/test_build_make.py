"""Makefile passes on strings: compiler, flags, libraries, paths, names and rules."""

from __future__ import annotations

import pytest

from _build import converted, rules


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("NVCC ?= nvcc", "NVCC ?= hipcc"),
        ("NVCC := $(CUDA_HOME)/bin/nvcc", "NVCC := $(ROCM_PATH)/bin/hipcc"),
        ("CUDA_PATH ?= /usr/local/cuda-12.4", "ROCM_PATH ?= /opt/rocm"),
        ("LDFLAGS = -L${CUDA_HOME}/lib64 -lcudart", "LDFLAGS = -L${ROCM_PATH}/lib -lamdhip64"),
        (
            "LIBS = -lcublas -lcurand -lcufft -lnvToolsExt",
            "LIBS = -lhipblas -lhiprand -lhipfft -lroctx64",
        ),
        ("F = -O3 -arch=sm_80", "F = -O3 --offload-arch=gfx942"),
        ("F = -arch sm_80 -O2", "F = --offload-arch=gfx942 -O2"),
        (
            "F = -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90",
            "F = --offload-arch=gfx942",
        ),
        ("F = --use_fast_math -use_fast_math", "F = -ffast-math -ffast-math"),
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
    assert converted("make", text) == "F = -O3 \\\n\t\\\n\t-ffast-math\n"
    assert rules("make", text) == [("HB105", 2), ("HB105", 3)]


def test_names_follow_the_renames(tmp_path):
    text = "SRC = main.cu lib/k.cu vendor/v.cu\n"
    out = converted("make", text, root=tmp_path, renamed=["main.cu", "lib/k.cu"])
    assert out == "SRC = main.hip lib/k.hip vendor/v.cu\n"
    assert converted("make", text, keep_names=True) == text


def test_unconvertible_libraries_and_separable_compilation_are_reported():
    text = "LIBS = -lcupti -lnvjpeg\nF = -rdc=true\n\tnvcc -dlink a.o -o link.o\n"
    assert rules("make", text) == [("HB104", 1), ("HB104", 1), ("HB102", 2), ("HB102", 3)]
    assert "F = -fgpu-rdc\n" in converted("make", text)
