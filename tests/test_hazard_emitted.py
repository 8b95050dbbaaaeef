"""PTX text bites only in code the compiler emits (``rules.EMITTED``): an uncalled `static` or
inline device function is never emitted, so its PTX never reaches the assembler (nvbio's
unused `static __forceinline__` SIMD helpers, round 31: four false HZ310).  A function with
external linkage is emitted whether called or not, and an operand constraint AMDGPU rejects
(`"l"`) fails wherever the statement is read."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds, assert_ported_builds, convert_directory
from hipify_py.cli.check import check

HELPERS = """#pragma once
static __device__ __forceinline__ unsigned add2(unsigned a, unsigned b) {
  unsigned r; asm("vadd2.u32.u32.u32 %0,%1,%2,%0;" : "=r"(r) : "r"(a), "r"(b)); return r;
}
static __device__ __forceinline__ unsigned sub2(unsigned a, unsigned b) {
  unsigned r; asm("vsub2.u32.u32.u32 %0,%1,%2,%0;" : "=r"(r) : "r"(a), "r"(b)); return r;
}
static __device__ __forceinline__ unsigned long long lo(const void* p) {
  unsigned long long r; asm("mov.b64 %0, %1;" : "=l"(r) : "l"(p)); return r;
}
"""
KERNELS = """#include "simd.cuh"
__device__ unsigned max2(unsigned a, unsigned b) {
  unsigned r; asm("vmax2.u32.u32.u32 %0,%1,%2,%0;" : "=r"(r) : "r"(a), "r"(b)); return r;
}
__global__ void k(unsigned* x) { x[threadIdx.x] = sub2(x[threadIdx.x], 1u); }
"""

# clang's own attribute spellings: no HIP header, so the device object is all that is built
_BARE = "#define __device__ __attribute__((device))\n#define __global__ __attribute__((global))\n"
_FUNC = '{linkage}__device__ unsigned f(unsigned a) {{\n  unsigned r; asm("vadd2.u32.u32.u32 '
_FUNC += '%0,%1,%1,%0;" : "=r"(r) : "{c}"(a)); return r;\n}}\n'


def test_hip_assembles_ptx_only_in_functions_it_emits(clang19: str, tmp_path: Path) -> None:
    def compiles(linkage: str, called: bool, constraint: str = "r") -> bool:
        src = tmp_path / "f.hip"
        use = "f(x[1])" if called else "1"
        kernel = f"__global__ void k(unsigned* x) {{ x[0] = {use}; }}\n"
        src.write_text(_BARE + _FUNC.format(linkage=linkage, c=constraint) + kernel)
        cmd = [clang19, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "-nogpuinc"]
        cmd += ["--offload-device-only", "-c", "-o", str(tmp_path / "f.o"), str(src)]
        return subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0

    assert compiles("static inline ", called=False)
    assert not compiles("static inline ", called=True)
    assert not compiles("", called=False)  # external linkage: emitted anyway
    assert not compiles("static inline ", called=False, constraint="l")


def test_ptx_in_an_uncalled_inline_helper_is_no_finding(nvcc: str, tmp_path: Path) -> None:
    tree = tmp_path / "proj" / "src"
    tree.mkdir(parents=True)
    (tree / "simd.cuh").write_text(HELPERS)
    (tree / "k.cu").write_text(KERNELS)
    assert_nvcc_builds(nvcc, [tree / "k.cu"], [], tmp_path)
    args = [str(tmp_path / "proj"), "--select", "HZ310", "--format", "json", "--no-cache"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    # sub2 is called, lo's "l" operands fail unemitted, max2 has external linkage; add2 is left
    lines = sorted((Path(f["path"]).name, f["line"]) for f in found)
    assert lines == [("k.cu", 3), ("simd.cuh", 6), ("simd.cuh", 9)]


# mfaktc (round 35): a PTX helper called only under an arch gate HIP never takes
GATED_TYPES = "#pragma once\n#define KEPLER 300\n"
GATED_HELPERS = """#pragma once
static __device__ unsigned umad(unsigned a, unsigned b, unsigned c) {
  unsigned r; asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r;
}
static __device__ unsigned usub(unsigned a, unsigned b) {
  unsigned r; asm("sub.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r;
}
static __device__ unsigned uadd(unsigned a, unsigned b) {
  unsigned r; asm("add.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r;
}
"""
GATED_KERNEL = """#include "types.h"
#include "intrinsics.h"
__global__ void k(unsigned* x) {
#if __CUDA_ARCH__ >= KEPLER
  x[0] = umad(x[0], 8u, x[1]);
#else
  x[0] = x[0] * 8u + x[1];
#endif
#if __CUDA_ARCH__ < KEPLER
  x[2] = usub(x[2], 1u);
#endif
#if __CUDA_ARCH__ >= KEPLER
  x[3] = uadd(x[3], 1u);
#endif
}
"""


def test_ptx_called_only_where_hip_skips_an_arch_gate_is_no_finding(
    nvcc: str, gfx942_check, tmp_path: Path
) -> None:
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "types.h").write_text(GATED_TYPES)
    (tree / "intrinsics.h").write_text(GATED_HELPERS)
    (tree / "k.cu").write_text(GATED_KERNEL)
    assert_nvcc_builds(nvcc, [tree / "k.cu"], [], tmp_path)
    # HIP's build, with the helpers in the file: the gated call is skipped, umad is not emitted
    one = GATED_KERNEL.replace('#include "types.h"\n', GATED_TYPES.replace("#pragma once\n", ""))
    one = one.replace('#include "intrinsics.h"\n', GATED_HELPERS.replace("#pragma once\n", ""))
    one = one.replace("  x[2] = usub(x[2], 1u);\n", "")
    one = one.replace("  x[3] = uadd(x[3], 1u);\n", "")
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "gated", one)
    args = [str(tree), "--select", "HZ310", "--format", "json", "--no-cache"]

    def found() -> list[tuple[str, int]]:
        run = CliRunner().invoke(check, args, catch_exceptions=False)
        return [(Path(f["path"]).name, f["line"]) for f in json.loads(run.output)["findings"]]

    # usub's call is under `< KEPLER`, which HIP takes; uadd's gate has no `#else`: the code
    # HIP leaves out is the port's to open (cuVS's NN-descent kernels, round 16)
    assert found() == [("intrinsics.h", 6), ("intrinsics.h", 9)]
    # a tree whose HIP build defines __CUDA_ARCH__ past the gate (ggml) takes umad's call
    (tree / "hip.h").write_text("#pragma once\n#define __CUDA_ARCH__ 1300\n")
    assert found() == [("intrinsics.h", 3), ("intrinsics.h", 6), ("intrinsics.h", 9)]


# FK20-CUDA's cachehit.cu (compile round 41): the PTX text comes from an `#include` inside the
# asm statement, so no literal of its own shows it; its `f` operands are PTX's float registers
INCLUDED_PTX = '"mad.rn.f32 %0, %1, %2, %0;"\n'
INCLUDED_KERNEL = """__device__ void fma1(float* z, const float* x, const float* y) {
  float z0 = z[0], x0 = x[0], y0 = y[0];
  asm volatile(
#include "fma.inc"
      : "+f"(z0)
      : "f"(x0), "f"(y0));
  z[0] = z0;
}
__global__ void k(float* z, const float* x, const float* y) { fma1(z, x, y); }
"""


def test_ptx_an_asm_statement_includes_is_a_finding(nvcc, gfx942_check, tmp_path):
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "fma.inc").write_text(INCLUDED_PTX)
    (tree / "k.cu").write_text(INCLUDED_KERNEL)
    assert_nvcc_builds(nvcc, [tree / "k.cu"], [], tmp_path)
    args = [str(tree), "--select", "HZ310", "--format", "json", "--no-cache"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    assert [(f["line"], '`#include "fma.inc"`' in f["message"]) for f in found] == [(3, True)]
    # the premise: its conversion does not compile for gfx942 (and the runtime header the
    # conversion adds goes above the function, not inside the asm statement)
    out = convert_directory(tree, tmp_path / "out")
    assert (out / "k.hip").read_text().startswith("#include <hip/hip_runtime.h>\n__device__")
    proc = gfx942_check(out / "k.hip")
    assert proc.returncode != 0 and "invalid output constraint '+f'" in proc.stderr
    # integer operands name no ISA: an included template of another one stays unreported
    (tree / "k.cu").write_text(INCLUDED_KERNEL.replace('"+f"', '"+r"').replace('"f"', '"r"'))
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    assert found == []
