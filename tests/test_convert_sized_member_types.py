"""`sizeof(A<T>::Tile)` names a member type of a dependent specialization: nvcc takes it as
the type, clang wants `typename` (NanoVDB's Morphology.cuh, compile round 33: 3 silent
failures).  The keyword is written where the tree declares the name as a type, and nowhere
the name is a static data member."""

from __future__ import annotations

from pathlib import Path

from _units import assert_converted_compiles, assert_nvcc_builds, convert_directory

ROOT = """#pragma once
template <class B> struct RootData {
  struct Tile { B value; unsigned child; };
};
template <class B> struct Root {
  using Tile = typename RootData<B>::Tile;
  static const unsigned count = 3;
};
"""
KERNEL = """#include "root.h"
template <class B>
__global__ void tiles(const char* lo, const char* hi, unsigned* out) {
  out[0] = (unsigned)((hi - lo) / sizeof(Root<B>::Tile));
  out[1] = sizeof(Root<B>::count);
}
template __global__ void tiles<float>(const char*, const char*, unsigned*);
"""


def test_a_member_type_in_sizeof_gets_typename(nvcc, gfx942_check, tmp_path: Path) -> None:
    tree = tmp_path / "vdb"
    tree.mkdir()
    (tree / "root.h").write_text(ROOT)
    (tree / "k.cu").write_text(KERNEL)
    assert_nvcc_builds(nvcc, [tree / "k.cu"], [], tmp_path)
    out = convert_directory(tree, tmp_path / "out")
    converted = (out / "k.hip").read_text()
    assert "sizeof(typename Root<B>::Tile)" in converted
    assert "sizeof(Root<B>::count)" in converted  # the decoy: a static data member
    assert_converted_compiles(out, "k.cu", gfx942_check)
    again = convert_directory(out, tmp_path / "again")
    assert (again / "k.hip").read_text() == converted  # converting twice equals once
