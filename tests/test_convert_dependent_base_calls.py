"""A call of a member of a class template's dependent base gets `this->` (cudaKDTree's
`knn.h`, compile round 35: nvcc's front end finds the member, clang does not)."""

from __future__ import annotations

from _units import assert_ported_builds, hip

# cudaKDTree's candidate lists: the member comes into the dependent base through a
# using-declaration, and the derived template calls it from a member defined out of class
CANDIDATES = """#include <cuda_runtime.h>
#include <stdint.h>
struct BaseCandidateList {
  __host__ __device__ float decode_dist2(uint64_t v) const { return float(v >> 32); }
  static __host__ __device__ uint64_t encode(float d, int id) { return uint64_t(d) << 32 | id; }
};
template <int k> struct CandidateList : public BaseCandidateList {
  using BaseCandidateList::decode_dist2;
  using BaseCandidateList::encode;
  uint64_t entry[k];
};
template <int k> struct HeapCandidateList : public CandidateList<k> {
  using CandidateList<k>::entry;
  __host__ __device__ float maxRadius2() const;
  __host__ __device__ void push(float d, int id) { entry[0] = encode(entry[1] + d, id); }
  static __host__ __device__ float scale(float d) { return 2.0f * d; }
};
template <int k>
__host__ __device__ float HeapCandidateList<k>::maxRadius2() const {
  float decode_scale = HeapCandidateList<k>::scale(1.0f);
  return decode_dist2(entry[0]) * decode_scale;
}
__global__ void knn(float* out) {
  HeapCandidateList<4> list;
  list.push(3.0f, 1);
  out[threadIdx.x] = list.maxRadius2();
}
"""


def test_calls_into_a_dependent_base_get_this(nvcc, gfx942_check, tmp_path):
    out = hip(CANDIDATES)
    assert "return this->decode_dist2(entry[0]) * decode_scale;" in out
    assert "entry[0] = this->encode(entry[1] + d, id);" in out
    assert out.count("this->") == 2  # not the declarations, the qualified call or the base's
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "knn", CANDIDATES)
    assert hip(out) == out  # converting twice is converting once


def test_a_name_the_class_or_the_file_declares_itself_is_left_alone():
    own = CANDIDATES.replace(
        "  using CandidateList<k>::entry;\n",
        "  using CandidateList<k>::entry;\n  using CandidateList<k>::decode_dist2;\n"
        "  using CandidateList<k>::encode;\n",
    )
    assert "this->" not in hip(own)
    free = CANDIDATES.replace(
        "template <int k> struct CandidateList",
        "__host__ __device__ inline float decode_dist2(uint64_t v) { return 0.0f; }\n"
        "template <int k> struct CandidateList",
    )
    assert "this->decode_dist2" not in hip(free)
    plain = CANDIDATES.replace("public CandidateList<k>", "public CandidateList<4>")
    assert "this->" not in hip(plain)
