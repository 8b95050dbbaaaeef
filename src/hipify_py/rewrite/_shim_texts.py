"""Shim texts of the arithmetic and host-runtime shims (``shims`` inserts them): CUDA's
directed-rounding operations, the system-scope wrapping atomics, map-flag hints, the
cooperative-groups reduce/scan, the half/bf16 atomics and bf16 loads, and NVTX's no-op ranges
(the headers pass puts that one in place of the include).  Kept apart from the pass so that
each stays small."""

from __future__ import annotations

# CUDA's directed-rounding arithmetic -> the device library's (ocml) operation: CUDA name
# stem, ocml operation, type, arity; rounding suffix d/u/z -> ocml's rtn/rtp/rtz.  A
# reciprocal is a division of 1 in that rounding (as clang's __clang_hip_math.h writes it).
ROUNDED_OPS = (
    ("__fadd", "add", "float", 2),
    ("__fsub", "sub", "float", 2),
    ("__fmul", "mul", "float", 2),
    ("__fdiv", "div", "float", 2),
    ("__fsqrt", "sqrt", "float", 1),
    ("__frcp", "div", "float", 1),
    ("__fmaf", "fma", "float", 3),
    ("__dadd", "add", "double", 2),
    ("__dsub", "sub", "double", 2),
    ("__dmul", "mul", "double", 2),
    ("__ddiv", "div", "double", 2),
    ("__dsqrt", "sqrt", "double", 1),
    ("__drcp", "div", "double", 1),
    ("__fma", "fma", "double", 3),
)
ROUNDING = {"d": "rtn", "u": "rtp", "z": "rtz"}


def rounded(stem: str, op: str, type_: str, arity: int, r: str) -> str:
    params = ", ".join(f"{type_} {v}" for v in "abc"[:arity])
    one = "1.0f" if type_ == "float" else "1.0"
    args = f"{one}, a" if stem.endswith("rcp") else ", ".join("abc"[:arity])
    bits = "f32" if type_ == "float" else "f64"
    call = f"__ocml_{op}_{ROUNDING[r]}_{bits}({args})"
    return f"__device__ inline {type_} {stem}_r{r}({params}) {{ return {call}; }}\n"


ROUNDED = (
    "// hipify-py shim: CUDA's directed-rounding arithmetic on the device library's own\n"
    + "".join(rounded(*o, r) for o in ROUNDED_OPS for r in ROUNDING)
)

MAP_FLAGS = """\
// hipify-py shim: cudaGraphicsResourceSetMapFlags (HIP 7.2 has none): its flags only promise
// how kernels will use the resource while mapped (read-only, write-discard); HIP maps without
#include <hip/hip_runtime_api.h>
static inline hipError_t cudaGraphicsResourceSetMapFlags(hipGraphicsResource_t, unsigned int) {
  return hipSuccess;
}
"""

SYSTEM_WRAP = """\
// hipify-py shim: CUDA's system-scope wrapping increment/decrement (HIP 7.2 has atomicInc and
// atomicDec at device scope only): a compare-and-swap loop with HIP's atomicCAS_system
__device__ inline unsigned int atomicInc_system(unsigned int* p, unsigned int v) {
  unsigned int old = *p, seen;
  do {
    seen = old;
    old = atomicCAS_system(p, seen, seen >= v ? 0u : seen + 1u);
  } while (old != seen);
  return old;
}
__device__ inline unsigned int atomicDec_system(unsigned int* p, unsigned int v) {
  unsigned int old = *p, seen;
  do {
    seen = old;
    old = atomicCAS_system(p, seen, (seen == 0u || seen > v) ? v : seen - 1u);
  } while (old != seen);
  return old;
}
"""


CG_REDUCE = """\
// hipify-py shim: cooperative_groups/reduce.h (not in HIP 7.2): cg::reduce over a tile or
// a coalesced group of any size (shuffles down, then lane 0's value to every lane, as in CUDA)
#include <hip/hip_cooperative_groups.h>
#include <type_traits>
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less {
  __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct greater {
  __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };
template <class Group, class T>
__device__ inline T hipify_py_shfl(const Group& g, T v, unsigned delta, bool down) {
  if constexpr (std::is_arithmetic<T>::value) {
    return down ? g.shfl_down(v, delta) : g.shfl(v, delta);
  } else {  // a struct (HIP shuffles arithmetic types only): word by word
    int w[(sizeof(T) + 3) / 4] = {};
    __builtin_memcpy(w, &v, sizeof(T));
    for (int& x : w) x = down ? g.shfl_down(x, delta) : g.shfl(x, delta);
    T r = v;
    __builtin_memcpy(&r, w, sizeof(T));
    return r;
  }
}
template <class Group, class T, class Op>
__device__ inline T reduce(const Group& g, T v, Op op) {
  const unsigned n = g.size(), rank = g.thread_rank();
  for (unsigned m = 1; m < n; m *= 2) {
    T other = hipify_py_shfl(g, v, m, true);
    if (rank + m < n) v = op(v, other);
  }
  return hipify_py_shfl(g, v, 0, false);
}
// cooperative_groups/scan.h: Hillis-Steele over the tile (lane i combines lanes 0..i in order);
// exclusive: lane 0 gets T{} (CUDA leaves it undefined but for plus, where it is 0)
template <class Group, class T, class Op>
__device__ inline T inclusive_scan(const Group& g, T v, Op op) {
  for (unsigned d = 1; d < g.size(); d *= 2) {
    T o = g.shfl_up(v, d);
    if (g.thread_rank() >= d) v = op(o, v);
  }
  return v;
}
template <class Group, class T> __device__ inline T inclusive_scan(const Group& g, T v) {
  return inclusive_scan(g, v, plus<T>());
}
template <class Group, class T, class Op>
__device__ inline T exclusive_scan(const Group& g, T v, Op op) {
  T o = g.shfl_up(inclusive_scan(g, v, op), 1);
  return g.thread_rank() == 0 ? T{} : o;
}
template <class Group, class T> __device__ inline T exclusive_scan(const Group& g, T v) {
  return exclusive_scan(g, v, plus<T>());
}
}  // namespace cooperative_groups
"""


# NVTX (<nvtx3/nvToolsExt.h>) has no header in ROCm 7.2.4's set (roctx.h is not among them), so
# its include becomes <stdint.h> and this: the C API's ranges and marks as no-ops (annotations
# for NVIDIA's profilers; rocprofv3 traces the HIP runtime without them).  kaldi's cu-common.h
# and multi-gpu-programming-models' PUSH_RANGE macros failed on the missing header (held out).
# The unsuffixed names are NVTX's own macros for the ASCII forms (cuda-course's profiling
# example calls `nvtxRangePush("...")`; held out, issue 23 round 23).
NVTX_SHIM = """// hipify-py shim: NVTX ranges and marks, no-ops on AMD
#ifndef HIPIFY_PY_SHIM_NVTX
#define HIPIFY_PY_SHIM_NVTX
#include <stddef.h>
#include <stdint.h>
typedef uint64_t nvtxRangeId_t;
typedef union nvtxMessageValue_t {
  const char* ascii;
  const wchar_t* unicode;
  void* registered;
} nvtxMessageValue_t;
typedef struct nvtxEventAttributes_t {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t colorType;
  uint32_t color;
  int32_t payloadType;
  int32_t reserved0;
  union { uint64_t ullValue; int64_t llValue; double dValue; uint32_t uiValue; int32_t iValue;
          float fValue; } payload;
  int32_t messageType;
  nvtxMessageValue_t message;
} nvtxEventAttributes_t;
#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxEventAttributes_t))
#define NVTX_COLOR_UNKNOWN 0
#define NVTX_COLOR_ARGB 1
#define NVTX_MESSAGE_TYPE_UNKNOWN 0
#define NVTX_MESSAGE_TYPE_ASCII 1
#define NVTX_MESSAGE_TYPE_UNICODE 2
static inline int nvtxRangePushA(const char* m) { (void)m; return 0; }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t* a) { (void)a; return 0; }
static inline int nvtxRangePop(void) { return 0; }
static inline void nvtxMarkA(const char* m) { (void)m; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t* a) { (void)a; }
static inline nvtxRangeId_t nvtxRangeStartA(const char* m) { (void)m; return 0; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* a) { (void)a; return 0; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxNameOsThreadA(uint32_t id, const char* name) { (void)id; (void)name; }
#define nvtxRangePush nvtxRangePushA
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxNameOsThread nvtxNameOsThreadA
#endif
"""

HALF_ATOMIC_ADD = """\
// hipify-py shim: CUDA's atomicAdd on __half/__half2/bf16 (HIP 7.2 has only unsafeAtomicAdd,
// which may lose updates on fine-grained memory): a compare-and-swap loop on the 32-bit word
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
template <class To, class From> __device__ inline To hipify_py_bits(From f) {
  To t;  // __hip_bfloat162 is not trivially copyable: no __builtin_bit_cast
  __builtin_memcpy(&t, &f, sizeof(To));
  return t;
}
template <class V> __device__ inline V hipify_py_atomic_add2(V* p, V v) {
  unsigned* w = reinterpret_cast<unsigned*>(p);
  unsigned old = *w, seen;
  do {
    seen = old;
    V sum = __hadd2(hipify_py_bits<V>(seen), v);
    old = atomicCAS(w, seen, hipify_py_bits<unsigned>(sum));
  } while (old != seen);
  return hipify_py_bits<V>(old);
}
template <class V> __device__ inline V hipify_py_atomic_add1(V* p, V v) {
  unsigned long long a = reinterpret_cast<unsigned long long>(p);
  unsigned* w = reinterpret_cast<unsigned*>(a & ~3ull);
  unsigned shift = (a & 2u) * 8u, old = *w, seen;
  do {
    seen = old;
    V sum = __hadd(hipify_py_bits<V>(static_cast<unsigned short>(seen >> shift)), v);
    unsigned bits = hipify_py_bits<unsigned short>(sum);
    old = atomicCAS(w, seen, (seen & ~(0xffffu << shift)) | (bits << shift));
  } while (old != seen);
  return hipify_py_bits<V>(static_cast<unsigned short>(old >> shift));
}
__device__ inline __half2 atomicAdd(__half2* p, __half2 v) { return hipify_py_atomic_add2(p, v); }
__device__ inline __half atomicAdd(__half* p, __half v) { return hipify_py_atomic_add1(p, v); }
__device__ inline __hip_bfloat162 atomicAdd(__hip_bfloat162* p, __hip_bfloat162 v) {
  return hipify_py_atomic_add2(p, v);
}
__device__ inline __hip_bfloat16 atomicAdd(__hip_bfloat16* p, __hip_bfloat16 v) {
  return hipify_py_atomic_add1(p, v);
}
"""


# CUDA's names of its bfloat16 types (the typed shims' trigger)
BF16_TYPES = frozenset({"__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162"})

BF16_LDG = """\
// hipify-py shim: __ldg on bfloat16 (HIP 7.2 has it for __half and the vector types only;
// qserve's `ldg` helpers, compile round 31): a plain load, as HIP's own __ldg is
#include <hip/hip_bf16.h>
__device__ inline __hip_bfloat16 __ldg(const __hip_bfloat16* p) { return *p; }
__device__ inline __hip_bfloat162 __ldg(const __hip_bfloat162* p) { return *p; }
"""

CG_MEMCPY_ASYNC = """\
// hipify-py shim: cooperative_groups/memcpy_async.h (not in HIP 7.2): the group copies the
// bytes itself, each thread a strided share, and cg::wait is the group's barrier: the same
// data once waited for, without the overlap
#include <hip/hip_cooperative_groups.h>
#include <cstddef>
namespace cooperative_groups {
template <class Group>
__device__ inline void memcpy_async(const Group& g, void* dst, const void* src, size_t bytes) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  for (size_t i = g.thread_rank(); i < bytes; i += g.size()) d[i] = s[i];
}
template <class Group, class T>
__device__ inline void memcpy_async(const Group& g, T* dst, size_t dst_count, const T* src,
                                    size_t src_count) {
  const size_t n = dst_count < src_count ? dst_count : src_count;
  for (size_t i = g.thread_rank(); i < n; i += g.size()) dst[i] = src[i];
}
template <class Group> __device__ inline void wait(const Group& g) { const_cast<Group&>(g).sync(); }
template <unsigned N, class Group> __device__ inline void wait_prior(const Group& g) {
  const_cast<Group&>(g).sync();
}
}  // namespace cooperative_groups
"""

PIPELINE = """\
// hipify-py shim: CUDA's pipeline primitives (cuda_pipeline.h, not in HIP 7.2): each thread
// copies its own bytes at once, so they are in place when __pipeline_wait_prior returns, as
// CUDA's own path for GPUs before sm_80 does; the overlap of copy and compute is lost
#include <cstddef>
__device__ inline void __pipeline_memcpy_async(void* __restrict__ dst, const void* __restrict__ src,
                                               size_t size, size_t zfill = 0) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  if (zfill == 0 && size == 16) {
    *reinterpret_cast<int4*>(d) = *reinterpret_cast<const int4*>(s);
  } else if (zfill == 0 && size == 8) {
    *reinterpret_cast<int2*>(d) = *reinterpret_cast<const int2*>(s);
  } else if (zfill == 0 && size == 4) {
    *reinterpret_cast<int*>(d) = *reinterpret_cast<const int*>(s);
  } else {
    for (size_t i = 0; i < size; ++i) d[i] = i < size - zfill ? s[i] : 0;
  }
}
__device__ inline void __pipeline_commit() {}
__device__ inline void __pipeline_wait_prior(size_t) {}
"""

CARVEOUT = """\
// hipify-py shim: CUDA's named shared-memory carveouts (driver_types.h), which HIP 7.2 does not
// name; hipFuncAttributePreferredSharedMemoryCarveout takes the same percentage
enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0
};
"""
CARVEOUT_NAMES = frozenset(
    {
        "cudaSharedCarveout",
        "cudaSharedmemCarveoutDefault",
        "cudaSharedmemCarveoutMaxShared",
        "cudaSharedmemCarveoutMaxL1",
    }
)
