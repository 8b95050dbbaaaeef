"""Directories a CMake tree's default build leaves out have no findings (``project_unbuilt``):
chiendb97's `hopper/` behind `option(ENABLE_HOPPER ... OFF)` and longer-is-better's
`# add_subdirectory(test_operators)` (round 51: 11 false findings)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check

# TMA-era PTX a Hopper directory holds, and a shared-memory request over gfx942's 64 KiB
HOPPER_KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* x) {
  extern __shared__ float tile[];
  asm volatile("fence.proxy.async.shared::cta;");
  tile[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = tile[threadIdx.x];
}
void run(float* x) {
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 196608);
  k<<<1, 128, 196608>>>(x);
}
"""

ROOT_CMAKE = """cmake_minimum_required(VERSION 3.24)
project(practice LANGUAGES CXX CUDA)
option(ENABLE_HOPPER "Enable Hopper (SM90+) kernels" OFF)
add_subdirectory(mm)
"""

MM_CMAKE = """add_executable(tensor_core tensor_core.cu)
add_subdirectory(ampere)
# add_subdirectory(old_tests)
if (ENABLE_HOPPER)
    add_subdirectory(hopper)
endif ()
"""


def _tree(tmp_path: Path, mm_cmake: str = MM_CMAKE, root_cmake: str = ROOT_CMAKE) -> Path:
    root = tmp_path / "practice"
    for sub in ("mm", "mm/ampere", "mm/hopper", "mm/old_tests"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "CMakeLists.txt").write_text(root_cmake)
    (root / "mm" / "CMakeLists.txt").write_text(mm_cmake)
    (root / "mm" / "tensor_core.cu").write_text(HOPPER_KERNEL)
    for sub in ("ampere", "hopper", "old_tests"):
        (root / "mm" / sub / "CMakeLists.txt").write_text("add_executable(k k.cu)\n")
        (root / "mm" / sub / "k.cu").write_text(HOPPER_KERNEL)
    return root


def _reported(root: Path) -> set[str]:
    """The directories (relative to ``root``) of `check`'s findings, as a user runs it."""
    args = [str(root), "--format", "json", "--no-cache", "--select", "HZ"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    return {Path(f["path"]).resolve().parent.relative_to(root.resolve()).as_posix() for f in found}


def test_directories_the_default_cmake_build_leaves_out_have_no_findings(nvcc, tmp_path):
    root = _tree(tmp_path)
    assert_nvcc_builds(nvcc, [root / "mm" / "hopper" / "k.cu"], [], tmp_path)
    assert _reported(root) == {"mm", "mm/ampere"}


def test_a_directory_the_build_may_add_keeps_its_findings(tmp_path):
    """Decoys: an option a preset switches on, a `set` that turns it on, an option that names
    no NVIDIA architecture, a directory also added outside the `if`, and a parent that adds
    directories through a variable: each may build the directory, so it keeps its findings."""
    everything = {"mm", "mm/ampere", "mm/hopper", "mm/old_tests"}
    preset = _tree(tmp_path / "preset")
    (preset / "CMakePresets.json").write_text('{"cacheVariables": {"ENABLE_HOPPER": "ON"}}')
    assert _reported(preset) == everything - {"mm/old_tests"}
    switched = _tree(tmp_path / "set", root_cmake=ROOT_CMAKE + "set(ENABLE_HOPPER ON)\n")
    assert _reported(switched) == everything - {"mm/old_tests"}
    plain = ROOT_CMAKE.replace("ENABLE_HOPPER", "BUILD_EXTRAS").replace("Hopper (SM90+)", "extra")
    extras = _tree(tmp_path / "plain", MM_CMAKE.replace("ENABLE_HOPPER", "BUILD_EXTRAS"), plain)
    assert _reported(extras) == everything - {"mm/old_tests"}
    twice = _tree(tmp_path / "twice", MM_CMAKE + "add_subdirectory(hopper)\n")
    assert _reported(twice) == everything - {"mm/old_tests"}
    variable = MM_CMAKE + "foreach(d ${EXTRA_DIRS})\n  add_subdirectory(${d})\nendforeach()\n"
    assert _reported(_tree(tmp_path / "variable", variable)) == everything
