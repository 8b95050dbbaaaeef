"""A feature switch nothing in the tree sets (altis's darknet copy tests `#ifdef CUDNN`, which
its CMake build never enables: round 31, four false HZ300) is off in the HIP build as in the
CUDA one, so the code it guards draws no hazard; any sign that something may set it (a build
file, a configuration template, a definition, a use as a value) keeps the finding."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check

GUARDED = """#include <cuda.h>
void prefer_l1(CUfunction f) {
#ifdef PREFER_L1
  cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1);
#endif
}
"""


def _hz300_lines(tree: Path) -> list[int]:
    args = [str(tree), "--select", "HZ300", "--format", "json", "--no-cache"]
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    return [f["line"] for f in json.loads(run.output)["findings"]]


def test_a_switch_nothing_sets_leaves_its_branch_out_of_the_port(nvcc, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "l1.cu").write_text(GUARDED)
    (tree / "CMakeLists.txt").write_text(
        "project(app LANGUAGES CXX CUDA)\nadd_library(app l1.cu)\n"
        "target_compile_definitions(app PRIVATE GPU)\n"
    )
    for flags in ([], ["-DPREFER_L1"]):
        assert_nvcc_builds(nvcc, [tree / "l1.cu"], flags, tmp_path)
    assert _hz300_lines(tree) == []
    assert _hz300_lines(tree / "l1.cu") == [4]  # a file on its own: no tree, no switches


def test_anything_that_may_set_the_switch_keeps_the_finding(tmp_path: Path) -> None:
    setters = {
        "CMakeLists.txt": "add_library(app l1.cu)\n"
        "target_compile_definitions(app PRIVATE PREFER_L1)\n",
        "config.h.in": "#cmakedefine PREFER_L1\n",
        "build.sh": "nvcc -DPREFER_L1 -c l1.cu\n",
        "config.h": "#define PREFER_L1\n",
        "use.cpp": "int level() { return PREFER_L1; }\n",
    }
    for name, text in setters.items():
        tree = tmp_path / name.replace(".", "_")
        tree.mkdir()
        (tree / "l1.cu").write_text(GUARDED)
        (tree / name).write_text(text)
        assert _hz300_lines(tree) == [4], name


def test_a_commented_out_or_undone_definition_sets_nothing(tmp_path: Path) -> None:
    """specfem3d's `mesh_constants_gpu.h` keeps `//#define USE_TEXTURES_FIELDS` and `#undef`s
    it for some builds: neither turns the switch on (round 33: two false HZ320); the same line
    uncommented does."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "l1.cu").write_text('#include "constants.h"\n' + GUARDED)
    off = "// #define PREFER_L1\n//#define PREFER_L1\n#ifdef OLD_CARD\n#undef PREFER_L1\n#endif\n"
    (tree / "constants.h").write_text(off)
    assert _hz300_lines(tree) == []
    (tree / "constants.h").write_text(off + "#define PREFER_L1\n")
    assert _hz300_lines(tree) == [5]
