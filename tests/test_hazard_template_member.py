"""HZ332: `this->NAME` in a member function of a class template that has no base and never
names NAME.  nvcc defers the lookup to an instantiation that never comes; clang rejects the
template's definition.  Compile round 38 (CudaTextureGen's `CurandArray<Dim>::init()`, which
passes `this->states` where the class holds a `device_array`): a TU failed with no finding."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds, convert_directory
from hipify_py.cli.check import check
from test_hazard_common import findings

POOL_H = """#pragma once
#include <cuda_runtime.h>
template <int N> class Pool {
  float* data = nullptr;
 public:
  void clear();
  void fill();
};
"""
POOL_CU = """#include "pool.cuh"
__global__ void zero(float* p) { p[threadIdx.x] = 0.f; }
template <int N> void Pool<N>::clear() { zero<<<1, N>>>(this->buffer); }
template <int N> void Pool<N>::fill() { zero<<<1, N>>>(this->data); }
"""


def _hz332(root: Path) -> list[tuple[str, int]]:
    args = [str(root), "--select", "HZ332", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    return [(Path(f["path"]).name, f["line"]) for f in json.loads(run.stdout)["findings"]]


def _tree(tmp_path: Path, header: str, source: str) -> Path:
    tree = tmp_path / "t"
    tree.mkdir(parents=True)
    (tree / "pool.cuh").write_text(header)
    (tree / "pool.cu").write_text(source)
    return tree


def test_nvcc_builds_it_and_clang_rejects_its_conversion(nvcc, gfx942_check, tmp_path):
    tree = _tree(tmp_path, POOL_H, POOL_CU)
    assert_nvcc_builds(nvcc, [tree / "pool.cu"], [], tmp_path)
    out = convert_directory(tree, tmp_path / "out")
    proc = gfx942_check(out / "pool.hip")
    assert proc.returncode != 0 and "no member named 'buffer'" in proc.stderr


def test_the_missing_member_is_reported_where_it_is_named(tmp_path):
    assert _hz332(_tree(tmp_path, POOL_H, POOL_CU)) == [("pool.cu", 3)]


def test_a_class_with_a_base_or_a_macro_in_its_body_may_have_the_member(tmp_path):
    based = POOL_H.replace("class Pool {", "class Pool : public Storage<N> {")
    based = "template <int N> struct Storage { float* buffer; };\n" + based
    assert _hz332(_tree(tmp_path / "a", based, POOL_CU)) == []
    macro = POOL_H.replace(" public:", " POOL_MEMBERS(float)\n public:")
    assert _hz332(_tree(tmp_path / "b", macro, POOL_CU)) == []


def test_in_one_file_too():
    one = POOL_H + POOL_CU.replace('#include "pool.cuh"\n', "")
    assert [(f.rule, f.line) for f in findings(one) if f.rule == "HZ332"] == [("HZ332", 10)]
