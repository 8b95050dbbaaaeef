"""`sizeof(A<T>::Tile)` and `A<T>::ValueType(0)` name member types of a dependent
specialization: nvcc takes them as types, clang wants `typename` (NanoVDB's Morphology.cuh and
TopologyBuilder.cuh, compile rounds 33 and 34: 3 silent failures).  The keyword is written
where the tree declares the name as a type, not at a static data member or function, nor in a
constructor's initializer of its base."""

from __future__ import annotations

from pathlib import Path

from _units import assert_converted_compiles, convert_directory, converted_tree

ROOT = """#pragma once
template <class B> struct RootData {
  struct Tile { B value; unsigned child; };
};
template <class B> struct Root {
  using Tile = typename RootData<B>::Tile;
  using ValueType = B;
  static const unsigned count = 3;
  __device__ static B zero() { return B(0); }
};
template <class B> struct Leaf : Root<B>::Tile {
  __device__ Leaf() : Root<B>::Tile() {}
};
"""
KERNEL = """#include "root.h"
template <class B>
__global__ void tiles(const char* lo, const char* hi, unsigned* out) {
  out[0] = (unsigned)((hi - lo) / sizeof(Root<B>::Tile));
  out[1] = sizeof(Root<B>::count);
  B v = Root<B>::ValueType(1) + Root<B>::zero();
  out[2] = (unsigned)v + sizeof(Leaf<B>);
}
template __global__ void tiles<float>(const char*, const char*, unsigned*);
"""


def test_a_member_type_in_sizeof_or_a_cast_gets_typename(
    nvcc, gfx942_check, tmp_path: Path
) -> None:
    out = converted_tree(nvcc, tmp_path, "vdb", {"root.h": ROOT, "k.cu": KERNEL}, "k.cu")
    converted = (out / "k.hip").read_text()
    assert "sizeof(typename Root<B>::Tile)" in converted
    assert "B v = typename Root<B>::ValueType(1) + Root<B>::zero();" in converted
    assert "sizeof(Root<B>::count)" in converted  # the decoys: a static data member,
    assert ": Root<B>::Tile() {}" in (out / "root.h").read_text()  # a base's initializer
    assert_converted_compiles(out, "k.cu", gfx942_check)
    again = convert_directory(out, tmp_path / "again")
    assert (again / "k.hip").read_text() == converted  # converting twice equals once
