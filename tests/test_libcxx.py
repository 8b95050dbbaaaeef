"""libcu++ names: `cuda::std::` copies of standard facilities become `std::`; the rest of
libcu++, which ROCm 7.2.4 does not ship, is HZ347's."""

from __future__ import annotations

from _convert import hip
from _units import assert_ported_builds
from test_hazard_common import only

# qmcpack's strided_range (compile round 31, a silent failure): libcu++ reached through Thrust
STRIDED = """#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
template <typename Iterator> struct strided {
  using difference_type = typename cuda::std::iterator_traits<Iterator>::difference_type;
  difference_type stride;
};
__global__ void k(int* out) {
  strided<thrust::counting_iterator<int>> s{2};
  out[threadIdx.x] = (int)s.stride * cuda::std::numeric_limits<int>::digits;
}
"""


def test_standard_facilities_of_libcxx_become_the_standard_librarys(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "strided", STRIDED)
    out = hip(STRIDED)
    assert "cuda::std" not in out and "typename std::iterator_traits<Iterator>" in out
    assert only("HZ347", STRIDED) == []


def test_the_rest_of_libcxx_is_reported_once_per_file():
    src = STRIDED + "cuda::std::atomic<int> counter;\ncuda::atomic_ref<int> r(x);\n"
    (f,) = only("HZ347", src)
    assert f.line == 11 and "`cuda::std::atomic`" in f.message
    assert f.extra.get("related_lines") == "12"
    assert "cuda::std::atomic<int>" in hip(src)  # left for a person


def test_a_namespace_cuda_of_the_projects_is_not_libcxx():
    """oneflow's `cuda::atomic::Add` (round 32) is a function of its own namespace `cuda`; a
    namespace `cuda` the file opens holds the project's names; `mine::cuda::ptx` is qualified
    by the project's own namespace; a `<cuda/atomic>` include is HP001's."""
    used = "__global__ void k(float* p) { cuda::atomic::Add(p, 1.0f); }\n"
    assert only("HZ347", used) == []
    opened = "namespace cuda { template <class T> struct atomic {}; }\ncuda::atomic<int> a;\n"
    assert only("HZ347", opened) == []
    assert only("HZ347", "int f() { return mine::cuda::ptx(1); }\n") == []
    included = "#include <cuda/atomic>\ncuda::atomic<int> a;\n"
    assert only("HZ347", included) == []


# nanovdb's Math.h (compile round 33: ten TUs failed at `<cuda/std/limits>`): libcu++'s limits
# in the device pass, named from the global namespace
LIMITS = """#include <cuda_runtime.h>
#include <limits>
#if defined(__CUDA_ARCH__)
#include <cuda/std/limits>
#endif
template <typename T> struct Maximum {
  __host__ __device__ static T value() {
#if defined(__CUDA_ARCH__)
    return ::cuda::std::numeric_limits<T>::max();
#else
    return std::numeric_limits<T>::max();
#endif
  }
};
__global__ void k(float* out) { out[threadIdx.x] = Maximum<float>::value(); }
"""


def test_libcxx_headers_of_standard_facilities_become_the_standard_headers(
    nvcc, gfx942_check, tmp_path
):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "limits", LIMITS)
    out = hip(LIMITS)
    assert "cuda/std" not in out and "return ::std::numeric_limits<T>::max();" in out
    # decoy: a libcu++ header of facilities HIP lacks stays, reported
    assert "#include <cuda/std/atomic>" in hip(LIMITS.replace("cuda/std/limits", "cuda/std/atomic"))


# cuBQL's math.h, vendored by NVIDIA Warp (compile round 35): a macro names libcu++'s limits
MACRO_LIMITS = """#include <cuda/std/limits>
#define CUBQL_INF ::cuda::std::numeric_limits<float>::infinity()
__global__ void k(float* out) { out[threadIdx.x] = -CUBQL_INF; }
"""


def test_a_macro_body_names_the_standard_library_too(nvcc, gfx942_check, tmp_path):
    """`#define NAME ::cuda::...`: the name the macro defines qualifies nothing."""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "inf", MACRO_LIMITS)
    assert "#define CUBQL_INF ::std::numeric_limits<float>::infinity()" in hip(MACRO_LIMITS)


# dl-cuda's optimizer.cuh (compile round 42): a libcu++ function object in a device reduction
FUNCTIONAL = """#include <cuda/std/functional>
template <typename Op> __device__ float fold(const float* v, int n, Op op) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc = op(acc, v[i]);
  return acc;
}
__global__ void k(const float* v, float* out, int n) {
  out[threadIdx.x] = fold(v, n, cuda::std::plus<float>()) + cuda::std::multiplies<float>()(2, 3);
}
"""


def test_libcxx_function_objects_become_the_standard_librarys(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "functional", FUNCTIONAL)
    out = hip(FUNCTIONAL)
    assert "#include <functional>" in out and "fold(v, n, std::plus<float>())" in out
