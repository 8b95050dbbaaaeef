"""Which directories and suffixes a run looks at, written once in ``discover`` and shared by
``verify`` (they used to disagree: verify skipped ``venv/``, convert did not; verify indexed
``.tcc`` headers, convert never looked at them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipify_py.discover import is_cuda_source, walk
from hipify_py.verify.compile import collect_sources
from hipify_py.verify.includes import ProjectIncludes


def _tree(root: Path) -> Path:
    for rel in (
        "src/k.cu",
        "venv/lib/site.cu",
        ".venv/x.cu",
        "build/CMakeFiles/id.cu",
        "out/CMakeFiles/id.cu",
        ".hidden/h.cu",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("__global__ void k() {}\n")
    (root / "out" / "CMakeCache.txt").write_text("# a CMake build tree\n")
    return root


def test_convert_and_verify_walk_the_same_files(tmp_path):
    """One walk (issue 25: verify skipped hidden directories, convert did not, so `convert
    --verify` never checked some outputs): tool directories and CMake build trees (a
    CMakeCache.txt) are skipped by every command; a hidden directory or one merely named
    build/ is walked by every command."""
    root = _tree(tmp_path)
    walked = sorted(c.rel.as_posix() for c in walk([root], (), ()))
    assert walked == [".hidden/h.cu", "build/CMakeFiles/id.cu", "src/k.cu"]
    verified = sorted(p.relative_to(root).as_posix() for p, _ in collect_sources([root]))
    assert verified == walked
    indexed = ProjectIncludes(root)._by_name["h.cu"]
    assert [p.relative_to(root).as_posix() for p in indexed] == [".hidden/h.cu"]


def test_a_build_in_the_source_directory_keeps_its_sources(tmp_path):
    """imhd-CUDA's `examples/old/library_test` (compile round 41): CMakeCache.txt beside
    CMakeLists.txt, an in-source build; its `main.cu` is the project's, its `CMakeFiles/`
    CMake's."""
    root = tmp_path / "proj"
    for rel in ("app/main.cu", "app/CMakeFiles/3.28/CompilerIdCUDA/id.cu", "out/CMakeFiles/x.cu"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("__global__ void k() {}\n")
    for rel in ("app/CMakeCache.txt", "app/CMakeLists.txt", "out/CMakeCache.txt"):
        (root / rel).write_text("# CMake\n")
    walked = sorted(c.rel.as_posix() for c in walk([root], (), ()))
    assert walked == ["app/CMakeCache.txt", "app/CMakeLists.txt", "app/main.cu"]


def test_tcc_headers_are_sources_for_convert_and_verify(tmp_path):
    assert is_cuda_source(Path("detail/impl.tcc"), b"cudaMemcpy(a, b, n, kind);")
    assert not is_cuda_source(Path("detail/impl.tcc"), b"int x;")
    (tmp_path / "src").mkdir()
    (tmp_path / "detail").mkdir()
    (tmp_path / "src" / "k.hip").write_text('#include "detail/impl.tcc"\n')
    (tmp_path / "detail" / "impl.tcc").write_text("")
    flags, _ = ProjectIncludes(tmp_path).flags_for(tmp_path / "src" / "k.hip")
    assert flags.include_dirs == (str(tmp_path),)


@pytest.mark.parametrize(
    ("head", "cuda"),
    [
        (b"x = cudaMalloc(&p, n);", True),
        (b"x = mycudaMalloc(&p, n);", False),  # a word that only contains an API name
        (b"p->cudaStream_t", True),
        (b"cublasSgemm(h)", True),
        (b"cursor(); current(); accumulate();", False),
        (b"using cub::BlockReduce;", True),
        (b"ncclAllReduce(", True),
        (b"__global__ void k()", True),
        (b"my__global__", False),
        (b"int i = threadIdx.x + blockIdx.x;", True),
        (b"threadIdxs", False),
        (b"#if CUDA_VERSION >= 12000", True),
        (b"#if MY_CUDA_VERSION", False),
        (b"k<<<1, 1>>>();", True),
        (b"a << b;", False),
        (b'#  include "cufft.h"', True),
        (b"#include <thrust/sort.h>", True),
        (b'#include "kernels.cu"', True),
        (b'#include "kernels.cuh"', False),
        (b"#include <vector>", False),
        (b"#include <vector_types.h>", True),
        # cuda_lbm's var.h (compile round 43): the toolkit's umbrella of its types, and nothing else
        (b"#include <builtin_types.h> // for devices variables", True),
        (b"#include <device_launch_parameters.h>", True),
        (b"#include <mma.h>", True),
        (b"#include <cooperative_groups.h>", True),
        (b"#include <sm_61_intrinsics.h>", True),
        (b'#include "builtin_types_extra.hpp"', False),
        # cuda_pspin's disorder.h (compile round 44): cuComplex's header and types, nothing else
        (b"#include <cuComplex.h>", True),
        (b"void f(cuDoubleComplex* g);", True),
        (b"cuFloatComplex c; cuComplex d;", True),
        (b"cuComplexity x;", False),
        (b"#include <dma.h>", False),
        (b"inline float f(__nv_bfloat16 x);", True),
        (b"nv_bfloat162 pair;", True),
        (b"__half h;", True),
        (b"__halfway h;", False),
        (b"int m = __NV_SATFINITE;", True),
        # Open3D's Macro.h (compile round 28): nvcc's own macros are its only CUDA sign
        (b"#if defined(__CUDA_ARCH__)", True),
        (b"#ifdef __CUDACC__", True),
        (b"#if defined(__NVCC__)", True),
        (b"#ifdef __CUDACC_RTC__X", False),
        # warp-ctc's ctc.h: a forward declaration of the driver's stream type, and nothing else
        (b"typedef struct CUstream_st* GPUstream;", True),
        (b"CUdeviceptr p; CUresult r;", True),
        (b"int CUSTOM_LIMIT = CUPS;", False),
        # a header of inline-PTX macros has no other CUDA sign; x86 inline assembly is not PTX
        (b'#define LD(R, a) asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}"', True),
        (b'#define WAIT() asm volatile("cp.async.wait_all;\\n" ::)', True),
        (b'asm("{ .reg .pred p; setp.ne.b32 p, %1, 0; }" : "=r"(x) : "r"(y));', True),
        (b'__asm__ __volatile__("mov.u32 %0, %%laneid;" : "=r"(l));', True),
        (b'asm volatile("rdtsc" : "=a"(lo), "=d"(hi));', False),
        (b'__asm__("movl %%eax, %%ebx" ::: "ebx");', False),
    ],
)
def test_what_makes_a_cpp_file_cuda(head: bytes, cuda: bool):
    assert is_cuda_source(Path("src/util.cpp"), head) is cuda
