"""HZ1xx: warp width and lane masks."""

from __future__ import annotations

import subprocess

from _convert import hip, result
from _units import assert_nvcc_builds, assert_ported_builds
from test_hazard_common import findings, fixed, only, run_pass

# --------------------------------------------------------------------------- HZ101


def test_hz101_lane_and_warp_ids_from_thread_index():
    src = """__global__ void k(float* o) {
  int tid = threadIdx.x;
  int lane = tid & 31;
  int warp = tid >> 5;
  int w2 = threadIdx.x / 32;
  int l2 = (threadIdx.x + 1) % 0x20;
  int nwarps = blockDim.x / 32;
  o[lane + warp + w2 + l2 + nwarps] = __shfl_down_sync(~0ull, o[tid], 1, warpSize);
}"""
    # the function also works in hardware warps (width warpSize): one diagnosis, at the first
    # 32-lane assumption, listing the others as dependent lines
    found = only("HZ101", src)
    assert len(found) == 1 and found[0].line == 3
    assert found[0].extra["related_lines"] == "4,5,6,7"
    assert "dependent lines: 4, 5, 6, 7" in found[0].message
    assert "`tid & 31`" in found[0].message and "64 lanes" in found[0].message


def test_hz101_data_flow_through_variables_and_lane_named_parameters():
    src = """__device__ int f(int laneId, int width) { return (laneId % 32) + width % warpSize; }
__global__ void k(int* o) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int base = gid;
  o[base & 31] = f(0, 7) * warpSize;
}"""
    texts = [f.message for f in only("HZ101", src)]
    assert len(texts) == 2
    assert any("laneId % 32" in t for t in texts) and any("base & 31" in t for t in texts)


def test_hz101_macro_and_constexpr_widths():
    src = """#define GROUP 32
constexpr int kQuad = 32;
__global__ void k(int* o) { o[threadIdx.x % GROUP] = threadIdx.x / kQuad + warpSize; }"""
    assert len(only("HZ101", src)) == 1  # one finding per line


def test_hz107_warp_size_constants_are_reported_at_their_definition_once():
    src = """#define WARP_SIZE 32
constexpr int kWarp = 32;
static const unsigned THREADS_PER_WARP = 32;
enum { kWarpLanes = 32, kTile = 32 };
#define TILE_DIM 32
const int warp_size = 64;
__global__ void k(int* o) {
  o[threadIdx.x % WARP_SIZE] = threadIdx.x / kWarp + THREADS_PER_WARP + warpSize + kWarpLanes;
}"""
    assert [f.line for f in only("HZ107", src)] == [1, 2, 3, 4]
    # a source file that never uses its constant: nothing in it depends on the value
    assert [f.line for f in only("HZ107", src.replace(" + kWarpLanes", ""))] == [1, 2, 3]
    assert [f.line for f in only("HZ107", src.replace(" + kWarpLanes", ""), "t.h")] == [1, 2, 3, 4]
    assert only("HZ101", src) == []  # the uses follow the one definition to fix


def test_hz107_per_platform_definitions_are_not_reported():
    src = """#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
#ifndef USE_ROCM
constexpr int kWarpSize = 32;
#else
constexpr int kWarpSize = 64;
#endif
__global__ void k(int* o) { o[threadIdx.x % WARP_SIZE] = threadIdx.x / kWarpSize; }"""
    assert only("HZ107", src) == []
    assert only("HZ101", src) == []


def test_hz107_a_constant_only_the_projects_hip_build_compiles_is_its_choice():
    """sppark's `util/cuda2hip.hpp`, all under `#ifdef __HIPCC__`, emulates 32-lane warps on
    AMD with its own shuffles (round 30); the same constant in code CUDA compiles is reported."""
    body = """#define WARP_SZ 32
__device__ int lane_of(int v) {
  return __shfl_sync(0xffffffffffffffffull, v, threadIdx.x % WARP_SZ);
}
__global__ void k(int* o) { o[threadIdx.x] = lane_of(o[threadIdx.x]) + warpSize; }
"""
    assert [f.line for f in only("HZ107", body, "shim.h")] == [1]
    assert only("HZ107", "#ifdef __HIPCC__\n" + body + "#endif\n", "shim.h") == []


def test_hz101_look_alikes_do_not_fire():
    src = """#define TILE 32
__global__ void k(float* out, const float* in, int width, unsigned* bits, int n) {
  int tiles = (width + 31) / 32;
  int pad = width % 32;
  int bx = blockIdx.x % tiles;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicOr(&bits[i / 32], 1u << (i % 32));
  int lane = threadIdx.x % warpSize;
  __shared__ float tile[64][32];
  tile[threadIdx.y][(i + threadIdx.x) % 32] = 0;
  int x = bx * TILE + (n & 31) + (n >> 5);
  out[x + lane + pad] = in[i];
}
void host(int n) { int blocks = n / 32; int rem = n % 32; (void)blocks; (void)rem; }"""
    assert only("HZ101", src) == []


# spark-rapids' row_conversion (round 26): every 32nd row stores the word of a validity bitmask
BITMASK_WORDS = """#include <cstdint>
__device__ int word_index(int row) { return row / 32; }
__global__ void validity(const int8_t* valid, uint32_t* mask, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  auto active = __ballot_sync(0xffffffffu, row < rows);
  if (row < rows) {
    uint32_t bits = __ballot_sync(active, valid[row] != 0);
    if (row % 32 == 0) { mask[word_index(row)] = bits; }
  }
}
"""


def test_hz101_the_rows_that_store_a_bitmask_word_are_the_ballots_to_fix(nvcc, tmp_path):
    (tmp_path / "a.cu").write_text(BITMASK_WORDS)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert [(f.rule, f.line) for f in findings(BITMASK_WORDS) if f.rule in ("HZ101", "HZ105")] == [
        ("HZ105", 7)
    ]
    # a 32-row test that stores something else is lane arithmetic of hardware warps
    other = BITMASK_WORDS.replace("mask[word_index(row)] = bits;", "mask[row] = bits;")
    assert [f.line for f in only("HZ101", other)] == [8]


def test_hz101_lists_functions_only_around_a_candidate():
    """A file without a 32-lane operator, constant or warp-id stride never pays for finding
    its functions; one with a candidate does, and is reported."""
    plain = "__global__ void k(float* o) { int i = threadIdx.x * 4 + 1; o[i] = i / 8; }\n"
    assert "_hz_functions" not in run_pass("HZ101", plain).__dict__
    lane = "__global__ void k(float* o) { int lane = threadIdx.x & 31; o[lane] = warpSize; }\n"
    assert "_hz_functions" in run_pass("HZ101", lane).__dict__
    assert [f.line for f in only("HZ101", lane)] == [1]


def test_hz101_is_never_fixed():
    src = "__global__ void k(int* o) { o[threadIdx.x & 31] = warpSize; }\n"
    assert only("HZ101", src)[0].fix is None
    assert "threadIdx.x & 31" in fixed(src, unsafe_fixes=True)


# --------------------------------------------------------------------------- HZ102 / HZ103


def test_hz102_reduction_loop_from_16_and_scan_to_32():
    src = """__device__ float r(float v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffffffffffULL, v, off);
  for (int d = 1; d < 32; d <<= 1) v += __shfl_up_sync(0xffffffffffffffffULL, v, d);
  return v;
}"""
    found = only("HZ102", src)
    assert [f.line for f in found] == [2, 3]
    assert "__shfl_down_sync" in found[0].message


def test_hz102_unrolled_offset_16_on_hip_side():
    src = (
        "#include <hip/hip_runtime.h>\n__device__ float r(float v) {\n"
        "  v += __shfl_xor(v, 16); v += __shfl_xor(v, 8);\n  return v;\n}\n"
    )
    # alone, the butterfly stays in its 32-lane group: its callers decide
    assert only("HZ102", src, "t.hip") == []
    # a caller that stores one result per hardware wavefront gets half of each one's sum
    src += (
        "__global__ void k(float* o) {\n  float v = r(o[threadIdx.x]);\n"
        "  if (threadIdx.x % warpSize == 0) o[threadIdx.x / warpSize] = v;\n}\n"
    )
    assert len(only("HZ102", src, "t.hip")) == 1


def test_hz102_look_alikes_do_not_fire():
    src = """__device__ float r(float v, float* s, int n) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  for (int off = 16; off > 0; off /= 2) v += __shfl_down(v, off, 32);
  for (int i = 16; i > 0; i /= 2) s[i] += s[i + 1];
  for (int d = 1; d < 32; d *= 2) s[d] = d;
  return v;
}"""
    assert only("HZ102", src) == []


def test_hz103_shuffle_without_width_in_sub_warp_code():
    src = """__device__ float f(float v, int lane) {
  float a = __shfl_sync(0xffffffffffffffffULL, v, (lane + 1) % 32);
  float b = __shfl(v, 31);
  float c = __shfl_sync(0xffffffffffffffffULL, v, (lane + 1) % 32, 32);
  float d = __shfl(v, lane + 1);
  return a + b + c + d;
}"""
    found = only("HZ103", src)
    # `lane` is group-relative here (the function works in 32-lane groups): `lane + 1` without
    # width reads the lower group's lanes from the upper one as well; one finding per
    # function, at the first, naming the others
    assert [f.line for f in found] == [2]
    assert "width" in found[0].message and "dependent lines: 3, 5" in found[0].message
    assert found[0].extra == {"related_lines": "3,5"}


# segsort's store phase: 16-thread segments (`gid >> 4`), a 32-lane lane id without a group id,
# the segment's offset broadcast from "lane 0" and "lane 16" of the warp
SEGMENT_STORE = """__global__ void store(const int* begins, const int* key, int* keyB, int n) {
  const int gid = threadIdx.x + blockIdx.x * blockDim.x;
  const int seg = gid >> 4;
  int k = seg < n ? begins[seg] : 0;
  int lane_id = threadIdx.x & 31;
  int kk = __shfl_sync(0xffffffff, k, 0);
  if ((lane_id >> 4) == 0) keyB[kk + lane_id] = key[gid];
  kk = __shfl_sync(0xffffffff, k, 16);
  if ((lane_id >> 4) == 1) keyB[kk + lane_id - 16] = key[gid];
}
"""


def test_hz103_broadcast_from_a_lane_of_a_32_lane_id(nvcc, tmp_path):
    (tmp_path / "s.cu").write_text(SEGMENT_STORE)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "s.cu"), "-o", str(tmp_path / "s.o")]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    # lanes 32-63 count themselves 0-31 of their warp, but read lanes 0 and 16 of the wavefront:
    # one finding for the function, the second broadcast a dependent line
    found = only("HZ103", SEGMENT_STORE)
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(6, "8")]


def test_hz103_no_broadcast_finding_with_width_or_a_hardware_source_lane():
    with_width = SEGMENT_STORE.replace(", 0)", ", 0, 32)").replace(", 16)", ", 16, 32)")
    assert only("HZ103", with_width) == []
    # a source lane computed from threadIdx is a hardware lane; without a 32-lane id the
    # broadcast means the hardware warp
    hardware = SEGMENT_STORE.replace("k, 0)", "k, threadIdx.x ^ 1)").replace("k, 16)", "k, 1)")
    hardware = hardware.replace("threadIdx.x & 31", "threadIdx.x % warpSize")
    assert only("HZ103", hardware) == []


# bitsandbytes' 4-bit GEMV: one 32-thread warp per row, reduced with cub's default logical warp
WARP_REDUCE_ROWS = """#include <cub/cub.cuh>
template <int THREADS>
__global__ void gemv(const float* a, const float* b, float* out, int k) {
  typedef cub::WarpReduce<float> WarpReduce;
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / 32];
  const int warp_idx = threadIdx.x / 32;
  const int warp_lane = threadIdx.x % 32;
  const int row = (THREADS / 32) * blockIdx.x + warp_idx;
  float acc = 0.0f;
  for (int i = warp_lane; i < k; i += 32) acc += a[row * k + i] * b[i];
  acc = WarpReduce(temp_storage[warp_idx]).Sum(acc);
  if (warp_lane == 0) out[row] = acc;
}
template __global__ void gemv<128>(const float*, const float*, float*, int);
"""


def test_hz103_cub_warp_collective_without_width_in_32_lane_code(nvcc, tmp_path):
    (tmp_path / "g.cu").write_text(WARP_REDUCE_ROWS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "g.cu"), "-o", str(tmp_path / "g.o")]
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    found = only("HZ103", WARP_REDUCE_ROWS)
    assert [f.line for f in found] == [4]
    assert "`cub::WarpReduce<...>`" in found[0].message and "second template" in found[0].message
    # with the logical width given, or in code that works in hardware warps, nothing
    assert (
        only("HZ103", WARP_REDUCE_ROWS.replace("WarpReduce<float>", "WarpReduce<float, 32>")) == []
    )
    hardware = WARP_REDUCE_ROWS.replace("threadIdx.x / 32", "threadIdx.x / warpSize")
    assert only("HZ103", hardware.replace("threadIdx.x % 32", "threadIdx.x % warpSize")) == []


def test_cub_warp_threads_macro_has_no_hipcub_counterpart():
    src = "#define WARP_THREADS CUB_WARP_THREADS(0)\nstatic constexpr int W = WARP_THREADS;\n"
    found = only("HZ300", src)
    assert [f.line for f in found] == [1] and "`CUB_WARP_THREADS`" in found[0].message


# --------------------------------------------------------------------------- HZ104


def test_hz104_warpsize_in_constant_contexts():
    src = """template <int W> __device__ int g() { return W; }
__global__ void k(float* o) {
  constexpr int W = warpSize;
  __shared__ float s[warpSize];
  static_assert(warpSize == 64, "wave64");
  o[0] = g<warpSize>() + W + s[0];
}"""
    found = only("HZ104", src)
    assert len(found) == 4
    assert {m.message.split(" used as ")[1].split(":")[0] for m in found} == {
        "a constexpr initializer",
        "an array bound",
        "a static_assert",
        "a template argument",
    }


def test_hz104_runtime_uses_do_not_fire():
    src = """__global__ void k(float* o, float* a) {
  const int w = warpSize;
  int lane = threadIdx.x % warpSize;
  o[lane] = a[warpSize - 1] + w;
  atomicAdd(&o[lane + 2 * warpSize], 1.f);
  float* p = &a[warpSize];
  o[0] = *p;
  for (int off = warpSize / 2; off > 0; off /= 2) o[off] = 0;
}"""
    assert only("HZ104", src) == []


# cuda-metal's cuDeviceGetAttribute (round 39): a host switch that answers from the device's
# properties; the `case` labels the statement, and `prop.warpSize` is a member, not HIP's object
ATTRIBUTE_SWITCH = """#include <cuda_runtime.h>
enum Attr { ATTR_WARP_SIZE = 10, ATTR_SMS = 16 };
int attribute(Attr a, int dev) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  switch (a) {
    case ATTR_WARP_SIZE:
      return prop.warpSize;
    case ATTR_SMS: {
      const cudaDeviceProp* p = &prop;
      return p->multiProcessorCount * p->warpSize;
    }
  }
  return 0;
}
__global__ void k(int* o, int v) {
  switch (v) {
    case warpSize: o[0] = 1; break;
  }
}
"""


def test_hz104_a_property_read_after_a_case_label_is_no_warp_size(nvcc, tmp_path):
    (tmp_path / "attr.cu").write_text(ATTRIBUTE_SWITCH.replace("case warpSize:", "case 32:"))
    assert_nvcc_builds(nvcc, [tmp_path / "attr.cu"], [], tmp_path)
    # only the device switch's `case warpSize:` needs a constant
    assert [(f.line, "case label" in f.message) for f in only("HZ104", ATTRIBUTE_SWITCH)] == [
        (18, True)
    ]


def test_hz104_the_projects_own_warp_size_variable_is_no_read(nvcc, tmp_path):
    """chongchen1999's `commons.cuh` declares `inline constexpr int warpSize = 32;` (round 45:
    2 false HZ104): the name being declared reads no warp size; a constant initialised from
    HIP's `warpSize` still does."""
    src = "inline constexpr int warpSize = 32;\n"
    (tmp_path / "commons.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "commons.cu"], [], tmp_path)
    assert only("HZ104", src) == []
    decoy = "__global__ void k(int* o) {\n  constexpr int lanes = warpSize;\n  o[0] = lanes;\n}\n"
    assert [f.line for f in only("HZ104", decoy)] == [2]


# deepmd-kit's tabulate.cu (rw27): its ROCm branch defines the launch's warp size as warpSize
HOST_WARP_SIZE = """#define WARP_SIZE warpSize
__global__ void k(float* x) { x[threadIdx.x] = warpSize; }
__host__ __device__ inline int lanes() { return 1; }
void run(float* x, int n) {
  k<<<n, 4 * WARP_SIZE>>>(x);
  auto lane = [=] __device__(int i) { return i % warpSize; };
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  x[0] = prop.warpSize;
}
"""


def test_hz104_warpsize_read_in_host_code_is_an_error(nvcc, tmp_path):
    real = tmp_path / "h.cu"
    real.write_text(HOST_WARP_SIZE.replace("#define WARP_SIZE warpSize", "#define WARP_SIZE 32"))
    assert_nvcc_builds(nvcc, [real], ["--extended-lambda"], tmp_path)
    found = only("HZ104", HOST_WARP_SIZE)
    assert [f.line for f in found] == [5]
    assert "read in host code" in found[0].message and found[0].fix is None
    # deepmd-kit's launchers are templates of their own type parameter
    templated = HOST_WARP_SIZE.replace(
        "void run(float* x", "template <typename FPTYPE>\nvoid run(FPTYPE* x"
    )
    assert [f.line for f in only("HZ104", templated)] == [6]
    # not host code: a function a macro of another file may mark `__device__` (RAFT's `DI`),
    # a constexpr function (clang compiles it for both sides: QUDA), a host variable of the
    # name (kaldi's `int warpSize; cudaDeviceGetAttribute(&warpSize, ...)`)
    others = (
        "template <typename T>\nDI int lanes(T v) { return v * warpSize; }\n"
        "constexpr int warp_size() { return warpSize; }\n"
        "void launch(float* x) {\n  int warpSize;\n"
        "  cudaDeviceGetAttribute(&warpSize, cudaDevAttrWarpSize, 0);\n  dim3 b(warpSize, 16);\n}\n"
    )
    assert only("HZ104", others) == []


# Legion's realm/hip/hip_module.cc (round 33): a macro's parameter that names a member
MEMBER_MACRO = """#include <cuda_runtime.h>
struct Info { int warpSize; int maxThreadsPerBlock; };
#define GET_PROP(member, name)                                \\
  do {                                                        \\
    int tmp;                                                  \\
    cudaDeviceGetAttribute(&tmp, cudaDevAttr##name, 0);        \\
    info->member = tmp;                                       \\
  } while (0)
#define SET(out, value) out = value
void fill(Info* info) {
  GET_PROP(warpSize, WarpSize);
  GET_PROP(maxThreadsPerBlock, MaxThreadsPerBlock);
  int w;
  SET(w, warpSize);
}
"""


def test_hz104_macro_parameter_naming_a_member_is_no_read(nvcc, tmp_path):
    real = tmp_path / "m.cu"
    # the CUDA build of the decoy line cannot read the device object either: leave it out there
    real.write_text(MEMBER_MACRO.replace("SET(w, warpSize)", "SET(w, 32)"))
    assert_nvcc_builds(nvcc, [real], [], tmp_path)
    # the member's name is left alone; the decoy, a macro whose parameter is a value, is a read
    assert [f.line for f in only("HZ104", MEMBER_MACRO)] == [14]


# cutorch's init.c (round 35): the parameter names a member and is spelled as the key
SPELLED_MEMBER = """#include <cuda_runtime.h>
#include <cstdio>
#define SHOW_PROP(NAME) printf("%s=%d\\n", #NAME, (int)prop.NAME);
#define SHOW_VALUE(NAME) printf("%s=%d\\n", #NAME, (int)NAME);
void show(int w) {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  SHOW_PROP(warpSize);
  SHOW_PROP(maxThreadsPerBlock);
  SHOW_VALUE(warpSize);
}
"""


def test_hz104_macro_parameter_spelled_and_naming_a_member_is_no_read(nvcc, tmp_path):
    real = tmp_path / "s.cu"
    real.write_text(SPELLED_MEMBER.replace("SHOW_VALUE(warpSize)", "SHOW_VALUE(w)"))
    assert_nvcc_builds(nvcc, [real], [], tmp_path)
    # the decoy's parameter is also read as a value: the host reads the device object there
    assert [f.line for f in only("HZ104", SPELLED_MEMBER)] == [10]


# CGBN's core_counting.cu (round 35): a comparison whose `)` comes before a later `>>`
COMPARED = """template <int N> __device__ int scaled(int v) { return v * N; }
template <int TPI> __global__ void k(unsigned* o) {
  unsigned top = o[threadIdx.x];
  if (TPI < warpSize)
    top = top >> (threadIdx.x ^ (threadIdx.x & (TPI - 1)));
  o[threadIdx.x] = top;
}
template __global__ void k<8>(unsigned*);
"""


def test_hz104_a_comparison_in_a_condition_is_no_template_argument(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "compared", COMPARED)
    assert only("HZ104", COMPARED) == []
    # the decoy: a template argument, with a `>>` after its list
    decoy = COMPARED.replace("= top;", "= scaled<warpSize>(top >> 1);")
    assert [f.line for f in only("HZ104", decoy)] == [6]


# era-bellman-cuda's memory.cuh (round 30): a default argument after a `constexpr` function
DEFAULT_WIDTH = """template <unsigned S> __device__ constexpr unsigned half(unsigned i) {
  return i % S;
}
template <typename T> __device__ __forceinline__ T shfl_xor(T var, int m, int width = warpSize) {
  return __shfl_xor_sync(0xffffffffffffffffull, var, m, width);
}
struct Lanes { int n; };
__global__ void k(float* o) {
  o[threadIdx.x] = shfl_xor(o[threadIdx.x], 1) + half<4>(threadIdx.x);
}
"""


def test_hz104_a_default_argument_after_a_constexpr_function(nvcc, gfx942_check, tmp_path):
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "width", DEFAULT_WIDTH)
    assert only("HZ104", DEFAULT_WIDTH) == []
    # a braced initializer is no statement's end: the constexpr before it still needs a constant
    braced = DEFAULT_WIDTH.replace(
        "  o[threadIdx.x] =", "  constexpr int w = Lanes{1}.n + warpSize;\n  o[threadIdx.x] = w +"
    )
    assert [f.line for f in only("HZ104", braced)] == [9]


def test_hz104_unsafe_fix_makes_it_a_runtime_const():
    src = "__global__ void k(int* o) {\n  constexpr int kW = warpSize;\n  o[0] = kW;\n}\n"
    (f,) = only("HZ104", src)
    assert f.fix is not None and not f.fix.safe
    assert "constexpr int kW" in fixed(src)  # safe fixes only: unchanged
    assert "const int kW = warpSize;" in fixed(src, unsafe_fixes=True)


def test_hz104_no_fix_when_the_name_is_needed_as_a_constant():
    src = (
        "__global__ void k(int* o) {\n  constexpr int kW = warpSize;\n"
        "  __shared__ int s[kW];\n  o[0] = s[0];\n}\n"
    )
    (f,) = only("HZ104", src)
    assert f.fix is None


def test_hz104_a_macro_the_file_defines_as_a_number_is_a_constant(nvcc, tmp_path):
    # softmax-fused: `#define C10_WARP_SIZE 32` then used in a constexpr; real CUDA
    src = """#define C10_WARP_SIZE 32
__global__ void k(int* o, int n) {
  constexpr int w = (16 < C10_WARP_SIZE) ? 16 : C10_WARP_SIZE;
  o[threadIdx.x % w] = n;
}
"""
    (tmp_path / "c.cu").write_text(src)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "c.cu"), "-o", str(tmp_path / "c.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert only("HZ104", src) == []
    # without the file's own definition it is PyTorch's: constexpr (64 on gfx9) in device code
    # (apex megatron softmax kernels), a run-time query on the host
    assert only("HZ104", src.split("\n", 1)[1]) == []
    host = "void launch(int* o) {\n  constexpr int w = C10_WARP_SIZE;\n  k<<<1, w>>>(o, 0);\n}\n"
    (f,) = only("HZ104", host)
    assert f.line == 2 and "run-time on the ROCm host pass" in f.message


# --------------------------------------------------------------------------- HZ105


def test_hz105_ballot_into_32_bits_and_popc():
    src = """__global__ void k(int* o, int n) {
  unsigned m = __ballot_sync(0xffffffffffffffffULL, n > 0);
  unsigned long long ok = __ballot_sync(0xffffffffffffffffULL, n > 0);
  int a = __popc(ok);
  int b = __popc(__activemask());
  int c = __popcll(ok) + __ffsll(ok);
  o[0] = m + a + b + c;
  o[1] = __popc(__activemask() == 1);  // cuOpt's assertions (round 33): one bit, a comparison's
}"""
    found = only("HZ105", src)
    assert [f.line for f in found] == [2, 4, 5]
    assert "__popcll" in found[1].message


# taichi's ldg.cu (compile round 32): a one-thread launch, so lanes 32-63 never vote; `__ffs`
# of the 64-bit mask still does not compile, `__popc` does
ONE_LANE = """__global__ void k(float* a) {
  *a += __ffs(__ballot_sync(__activemask(), 1));
  a[1] = __popc(__ballot_sync(__activemask(), 1));
}
int main() {
  float* a = nullptr;
  k<<<1, 1>>>(a);
}
"""


def test_hz105_ffs_of_a_ballot_does_not_compile_whoever_votes(nvcc, gfx942_check, tmp_path):
    (tmp_path / "one.cu").write_text(ONE_LANE)
    assert_nvcc_builds(nvcc, [tmp_path / "one.cu"], [], tmp_path)
    found = only("HZ105", ONE_LANE)
    assert [f.line for f in found] == [2] and "ambiguous" in found[0].message
    converted = tmp_path / "one.hip"
    converted.write_text(hip(ONE_LANE))
    proc = gfx942_check(converted)
    assert "call to '__ffs' is ambiguous" in proc.stderr
    assert proc.stderr.count("error:") == 1, proc.stderr[-2000:]  # not the __popc


def test_hz105_names_the_declared_type_as_written():
    """cuDF's `bitmask_type const new_word = __ballot_sync(...)` (round 24): its header's
    `bitmask_type` is not parsed, and the message said `const int`."""
    src = """#include "types.hpp"  // cuDF's: using bitmask_type = uint32_t;
__global__ void k(bitmask_type* o, const bool* p) {
  bitmask_type const word = __ballot_sync(0xffffffffffffffffULL, p[threadIdx.x]);
  if (threadIdx.x % 32 == 0) o[threadIdx.x / 32] = word;
}"""
    found = only("HZ105", src)
    assert [f.line for f in found] == [3]
    assert "32-bit `bitmask_type const word`" in found[0].message


def test_hz105_one_narrow_mask_of_one_function_is_one_finding():
    # HeCBench atomicAggregate: `int mask` from __match_any_sync, then __ffs and two __popc
    src = """__device__ int agg(int* p, int mask) {
  mask = __match_any_sync(0xffffffff, (unsigned long long)p);
  int leader = __ffs(mask) - 1;
  int res = atomicAdd(p, __popc(mask));
  return res + __popc(mask & 3) + leader;
}
__device__ int two(int mask) { return __popc(mask); }  // another function's mask
__device__ int other(int* p) { int m2 = 0; m2 = __ballot_sync(~0u, p[0]); return __popc(m2); }
"""
    found = [f for f in only("HZ105", src) if "ballot mask" in f.message]
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(3, "4,5"), (8, None)]


def test_hz105_unsafe_fix_widens_the_declaration():
    src = "__global__ void k(int* o) {\n  unsigned int m = __ballot(o[0] > 0);\n  o[1] = m;\n}\n"
    (f,) = only("HZ105", src, "t.hip")
    assert not f.fix.safe
    out = fixed(src, "t.hip", unsafe_fixes=True)
    assert "unsigned long long m = __ballot(o[0] > 0);" in out


def test_hz105_negatives_auto_and_64_bit():
    src = """__global__ void k(int* o) {
  auto m = __ballot(o[0] > 0);
  uint64_t m2 = __activemask();
  unsigned long long m3 = (unsigned long long)__ballot(o[0]);
  o[1] = __popcll(m) + __popcll(m2) + __popcll(m3) + __popc(o[2]);
}"""
    assert only("HZ105", src, "t.hip") == []


# --------------------------------------------------------------------------- HZ106
# A 32-bit mask cannot compile on ROCm >= 6.2: `convert` widens it by default where that keeps the
# meaning (the finding is then `fixed`); the rest stays open. Reported once, where the fix goes.


def test_hz106_full_mask_literal_is_converted_and_counted_fixed():
    src = "__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    (f,) = only("HZ106", src)
    assert f.fixed and f.fix.safe
    res = result(src)
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, 1)" in res.text
    assert res.conversions["mask64"] == 1 and all(f.fixed for f in res.findings)
    assert hip(src) == res.text  # converting twice == once


def test_hz106_a_widened_32_lane_mask_is_still_half_a_wave():
    src = "__device__ float f(float v) { return __shfl_down_sync(0xffffffffULL, v, 1); }\n"
    (f,) = only("HZ106", src)
    assert "lanes 0-31" in f.message and f.fix.safe and not f.fixed
    assert "0xffffffffULL" in result(src).text  # compiles as is: only --fix changes it
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, 1)" in fixed(src)
    partial = "__device__ float f(float v) { return __shfl_down_sync(0xffffULL, v, 1); }\n"
    assert only("HZ106", partial) == []


def test_hz106_fix_applies_with_renames_in_the_same_file():
    src = (
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float* o) { o[0] = __shfl_xor_sync(0xFFFFFFFF, o[0], 1); }\n"
        "void h(float* d) { cudaMalloc(&d, 4); k<<<1, 64>>>(d); cudaFree(d); }\n"
    )
    out = fixed(src)
    assert "0xffffffffffffffffULL" in out and "hipMalloc" in out


def test_hz106_partial_masks_macros_and_variables():
    src = """#define FULL 0xffffffff
__device__ float f(float v, unsigned m32, unsigned long long m64) {
  v += __shfl_down_sync(0x0000ffff, v, 1);
  v += __shfl_down_sync(FULL, v, 1);
  v += __shfl_down_sync(m32, v, 1);
  v += __shfl_down_sync(~0u, v, 1) + __shfl_down_sync(-1, v, 1);
  v += __shfl_down_sync(m64, v, 1) + __shfl_down_sync(0xffffffffffffffffull, v, 1);
  __syncwarp(0xffffffff);
  return v + __shfl_down_sync(__activemask(), v, 1);
}"""
    found = only("HZ106", src)
    assert [f.line for f in found] == [1, 2, 3, 6, 6, 8]
    macro, param, partial = found[0], found[1], found[2]
    assert macro.fixed and "`FULL` (0xffffffff)" in macro.message
    assert not param.fixed and "parameter" in param.message and not param.fix.safe
    assert not partial.fixed and partial.fix is None and "lanes 0-15" in partial.message
    assert partial.severity.value == "warning"
    out = result(src).text
    assert "#define FULL 0xffffffffffffffffULL" in out
    assert "__shfl_down_sync(0x0000ffffULL, v, 1)" in out
    assert "unsigned m32" in out  # a parameter changes only with --unsafe-fixes
    assert out.count("0xffffffffffffffffULL") == 4


def test_hz106_macro_reported_once_at_its_definition():
    src = """#ifndef FULL_MASK
#define FULL_MASK 0xffffffff
#endif
__device__ float f(float v) {
  v += __shfl_down_sync(FULL_MASK, v, 1);
  return v + __shfl_xor_sync(FULL_MASK, v, 2);
}"""
    (f,) = only("HZ106", src)
    assert f.line == 2 and f.fixed
    assert "__shfl_down_sync`, `__shfl_xor_sync" in f.message
    assert "#define FULL_MASK 0xffffffffffffffffULL" in hip(src)


def test_hz106_macro_with_other_uses_is_not_changed():
    src = """#define LOW32 0xffffffff
__device__ unsigned long long f(float v, unsigned long long x) {
  v += __shfl_down_sync(LOW32, v, 1);
  return x & LOW32;
}"""
    (f,) = only("HZ106", src)
    assert f.line == 1 and not f.fixed and not f.fix.safe and "also used 1 time" in f.message
    assert "#define LOW32 0xffffffff\n" in result(src).text
    assert "#define LOW32 0xffffffffffffffffULL" in fixed(src, unsafe_fixes=True)


def test_hz106_per_platform_macro_is_left_alone():
    src = """#ifdef __HIP_PLATFORM_AMD__
#define FULL_MASK 0xffffffffffffffffULL
#else
#define FULL_MASK 0xffffffff
#endif
__device__ float f(float v) { return __shfl_down_sync(FULL_MASK, v, 1); }"""
    assert only("HZ106", src) == []


def test_hz106_typed_local_is_fixed_at_its_declaration_once():
    src = """__device__ float f(float v) {
  unsigned m = 0xffffffff;
  v += __shfl_sync(m, v, 0);
  return v + __shfl_xor_sync(m, v, 1);
}"""
    (f,) = only("HZ106", src)
    assert f.line == 2 and f.fixed and "`m` of 32-bit type `unsigned int`" in f.message
    assert "unsigned long long m = 0xffffffffffffffffULL;" in hip(src)


def test_hz106_ballot_result_used_as_mask_is_widened_at_its_declaration():
    src = """__device__ float f(float v) {
  unsigned m = __ballot_sync(0xffffffff, v > 0.0f);
  return __shfl_sync(m, v, 0);
}"""
    found = only("HZ106", src)
    assert [(f.line, f.fixed) for f in found] == [(2, True), (2, True)]
    (ballot,) = only("HZ105", src)
    assert ballot.fixed  # the same widening is HZ105's fix: not reported as open either
    out = hip(src)
    assert "unsigned long long m = __ballot_sync(0xffffffffffffffffULL, v > 0.0f);" in out


def test_hz106_variable_with_other_uses_gets_only_an_unsafe_fix():
    src = """__device__ float f(float v, int* o) {
  uint32_t m = 0xffffffff;
  v += __shfl_sync(m, v, 0);
  o[0] = m >> 1;
  return v;
}"""
    (f,) = only("HZ106", src)
    assert f.line == 2 and not f.fixed and not f.fix.safe
    assert "uint32_t m = 0xffffffff;" in result(src).text
    assert "unsigned long long m = 0xffffffffffffffffULL;" in fixed(src, unsafe_fixes=True)


def test_hz106_annotate_does_not_describe_what_was_fixed():
    src = """__device__ float f(float v) {
  v += __shfl_down_sync(0xffffffff, v, 1);
  return v + __shfl_down_sync(0x00ff, v, 1);
}"""
    out = result(src, annotate=True).text
    assert out.count("hipify-py[HZ106]") == 1 and "lanes 0-7" in out


# arrayfire's reduce_by_key (round 13): a partial mask computed for the first group's lanes,
# reached only under `warpid == 0` with `warpid = threadIdx.x / 32`: lanes 32-63 never run
# the scan, so the widened 32-bit value names its lanes as on CUDA
LOW_LANES_SCAN = """__global__ void scan(int* sizes, int n_warps) {
  const int laneid = threadIdx.x % 32;
  const int warpid = threadIdx.x / 32;
  int v = 0;
  if (warpid == 0 && laneid < n_warps) {
    v = sizes[laneid];
    int activemask = 0xFFFFFFFF >> (32 - n_warps);
    for (int offset = 1; offset < 32; offset <<= 1) {
      int up = __shfl_up_sync(activemask, v, offset);
      if (laneid >= offset) v += up;
    }
    sizes[laneid] = v;
  }
}
"""


def test_hz106_a_partial_mask_only_lanes_0_31_reach_is_widened_without_a_question(nvcc, tmp_path):
    src = tmp_path / "scan.cu"
    src.write_text(LOW_LANES_SCAN)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ106", LOW_LANES_SCAN) == []
    assert "unsigned long long activemask = 0xFFFFFFFF >> (32 - n_warps);" in fixed(LOW_LANES_SCAN)
    # every group's first lanes run it: which of the 64 lanes take part is a question again
    every_group = LOW_LANES_SCAN.replace("warpid == 0 && ", "")
    [found] = only("HZ106", every_group)
    assert found.line == 7 and "check which lanes" in found.message


# pyg-lib's shuffle.cuh (round 15): the mask type is chosen per platform; the parse sees the
# CUDA build's 32-bit one, the HIP build compiles the 64-bit one
PER_PLATFORM_MASK = """#ifdef USE_ROCM
using warp_mask_t = unsigned long long;
#else
using warp_mask_t = unsigned int;
#endif
__device__ float down(const warp_mask_t mask, float v, unsigned int delta) {
  return __shfl_down_sync(mask, v, delta);
}
"""


def test_hz106_a_mask_type_chosen_per_platform_is_read_as_hip_builds_it(nvcc, tmp_path):
    src = tmp_path / "shuffle.cu"
    src.write_text(PER_PLATFORM_MASK)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ106", PER_PLATFORM_MASK) == []
    swapped = PER_PLATFORM_MASK.replace("unsigned long long;", "@").replace(
        "unsigned int;", "unsigned long long;"
    )
    assert [f.line for f in only("HZ106", swapped.replace("@", "unsigned int;"))] == [6]


# cuvs's CAGRA search (round 16): the first 32-lane group alone picks the next parent, the
# others return at once; the function's __device__ hides behind a library macro
FIRST_GROUP_ONLY = """#define DEVICE_FN __device__ __forceinline__
DEVICE_FN void pick(int* parent, const int* invalid) {
  const unsigned warp_id = threadIdx.x / 32;
  if (warp_id > 0) { return; }
  int j = 31 - __clz(__ballot_sync(0xffffffff, invalid[threadIdx.x]));
  if (__any_sync(0xffffffff, j >= 0) && threadIdx.x == 0) parent[0] = j;
}
__global__ void search(int* parent, const int* invalid) { pick(parent, invalid); }
"""


def test_a_function_that_sends_lanes_past_31_away_runs_as_on_32_threads(nvcc, tmp_path):
    src = tmp_path / "pick.cu"
    src.write_text(FIRST_GROUP_ONLY)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    rules = {f.rule for f in findings(FIRST_GROUP_ONLY)}
    assert not rules & {"HZ101", "HZ105"}, rules
    every_group = FIRST_GROUP_ONLY.replace("  if (warp_id > 0) { return; }\n", "")
    assert {"HZ101", "HZ105"} <= {f.rule for f in findings(every_group)}


def test_hz106_not_for_rocm_without_sync_builtins():
    src = "__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    assert only("HZ106", src, target_rocm=(6, 1)) == []
    assert "__shfl_down(v, 1)" in fixed(src, target_rocm=(6, 1))
    assert "__shfl_down_sync(0xffffffffffffffffULL" in result(src, target_rocm=(6, 3)).text


def test_ast_positions_survive_non_ascii_text():
    src = (
        "// Ünïcödé comment: résumé → ✓\n__global__ void k(int* o) {\n"
        "  unsigned m = __ballot_sync(0xffffffffffffffffULL, o[0] > 0); // ü\n  o[1] = m;\n}\n"
    )
    (f,) = only("HZ105", src)
    assert src[f.start : f.end].startswith("unsigned m = __ballot_sync(")
    assert "unsigned long long m = __ballot_sync(" in fixed(src, unsafe_fixes=True)


def test_hz105_per_platform_mask_typedef_resolves_to_the_hip_side():
    src = """#ifdef __HIP_PLATFORM_AMD__
typedef unsigned long long mask_t;
#else
typedef unsigned int mask_t;
#endif
__global__ void k(int* o) {
  mask_t m = __ballot_sync(__activemask(), o[threadIdx.x] > 0);
  o[0] = __popcll(m);
}"""
    assert only("HZ105", src) == []
    narrow = src.replace("unsigned long long mask_t", "unsigned int mask_t")
    assert [f.line for f in only("HZ105", narrow)] == [7]


def test_hz108_sub_warp_and_wide_masks_are_not_reported():
    src = """__global__ void k(unsigned long long* o, int lane) {
  o[0] = (1ull << lane) - 1;
  o[1] = (uint64_t)1 << lane;
  o[2] = 1u << (lane_count % 8);
}"""
    assert only("HZ108", src) == []
    assert len(only("HZ108", src.replace("1ull << lane", "1u << lane"))) == 1


def test_hz105_a_group_index_of_0_or_an_early_return_leaves_lanes_below_32():
    """flashinfer's MoE kernels (round 12): a ballot under `if (warp == 0)` with `warp = tid /
    32`, or after `if (threadIdx.x >= 32) return;`, runs in lanes 0-31 only; the same with 64
    (a whole wavefront votes) is still reported."""
    src = """__global__ void a(const int* v, int* out) {
  int tid = threadIdx.x;
  int warp = tid / 32;
  if (warp == 0) {
    unsigned int vote = __ballot_sync(0xFFFFFFFF, v[tid] > 0);
    out[0] = __popc(vote);
  }
}
__global__ void b(const int* v, int* out) {
  if (threadIdx.x >= 32) return;
  unsigned int vote = __ballot_sync(0xFFFFFFFF, v[threadIdx.x] > 0);
  out[0] = __popc(vote);
}"""
    assert only("HZ105", src) == []
    decoy = src.replace("tid / 32", "tid / 64").replace(">= 32", ">= 64")
    assert [f.line for f in only("HZ105", decoy)] == [5, 11]
    # gsplat (round 5): a group index broadcast from lane 0 is group 0 in all 64 lanes
    broadcast = src.replace("tid / 32;", "__shfl_sync(~0u, tid >> 5, 0);")
    assert [f.line for f in only("HZ105", broadcast)] == [5]


def test_hz104_a_function_s_own_warpsize_constant_is_a_constant():
    # nccl reduce_copy: `constexpr int warpSize = 32;` shadows HIP's run-time warpSize
    src = """__device__ void f(float* o) {
  constexpr int warpSize = 32;
  constexpr int stride = 4 > 2 ? 4 : warpSize;
  o[stride] = 1;
}
__global__ void g(float* o) { constexpr int w = warpSize; o[w] = 1; }
"""
    assert [f.line for f in only("HZ104", src)] == [6]


def test_hz104_a_template_parameter_named_warpsize_is_a_constant():
    # AMGX scalers: `template <int warpSize, typename T>` is instantiated with VectorSize
    src = """template <int warpSize, typename T>
__device__ T reduce(T v) {
  __shared__ T s[warpSize];
  if (warpSize > 16) { v += __shfl_down(v, 16, warpSize); }
  return v + s[0];
}
template <typename T>
__device__ T other(T v) { __shared__ T s[warpSize]; return v + s[0]; }
"""
    assert [f.line for f in only("HZ104", src)] == [8]


def test_hz104_a_class_template_parameter_named_warpsize_is_a_constant(nvcc, tmp_path):
    # RAFT's coalesced reduction policies (round 21): the struct's own `warpSize`; real CUDA
    src = """template <int warpSize, int tpb>
struct Policy {
  static_assert(tpb % warpSize == 0, "whole warps");
  static constexpr int LogicalWarpSize = warpSize;
  static constexpr int Warps = tpb / LogicalWarpSize;
};
template <int tpb>
struct Hardware {
  static_assert(tpb % warpSize == 0, "whole warps");
};
__global__ void k(int* o) { o[threadIdx.x] = Policy<32, 256>::Warps; }
"""
    (tmp_path / "p.cu").write_text(src)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "p.cu"), "-o", str(tmp_path / "p.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    # the decoy: a class template of another parameter reads HIP's run-time warpSize
    assert [f.line for f in only("HZ104", src)] == [9]


def test_hz104_a_cast_of_warpsize_is_no_template_argument():
    # LightGBM ShuffleReduceSum: min(static_cast<data_size_t>(warpSize), ...) is run-time code
    src = """__device__ int f(int len) {
  const int n = min(static_cast<int>(warpSize), static_cast<int>(len) - 1);
  return n + Lanes<warpSize>::value;
}
"""
    assert [f.line for f in only("HZ104", src)] == [3]


def test_hz108_a_plane_is_not_a_lane():
    # nccl net_ib: NCCL_IB_PLANE_VIRT_BIT (0x1 << NCCL_IB_PLANE_MAX_INDEX), a flag bit
    src = "#define VIRT_BIT (1u << NCCL_IB_PLANE_MAX_INDEX)\n"
    src += "unsigned f(int plane) { return 1u << plane; }\n"
    assert only("HZ108", src) == []
    assert len(only("HZ108", "__device__ unsigned f(int myLane) { return 1u << myLane; }\n")) == 1


def test_hz108_a_32_lane_group_s_lane_id_never_reaches_63():
    # cudpp multisplit, apex nhwc batch norm: laneId = threadIdx.x & 0x1F (0-31)
    src = """__global__ void k(unsigned* o, unsigned m) {
  int laneId = threadIdx.x & 0x1F;
  o[0] = __popc(m & (0xFFFFFFFF >> (31 - laneId)));
  o[1] = (m & (1U << laneId)) != 0;
}
__global__ void h(unsigned* o, unsigned m) {
  int lane = threadIdx.x % warpSize;
  o[0] = __popc(m & ((1u << lane) - 1));
}"""
    assert [f.line for f in only("HZ108", src)] == [8]


def test_hz106_a_parameter_of_a_per_platform_mask_type_is_wide_on_hip():
    # pytorch_scatter utils.cuh: warp_mask_t is unsigned long long under USE_ROCM; the parse
    # cannot resolve `mask` (at::Half is unknown), the tokens read its declaration
    src = """#ifdef USE_ROCM
using warp_mask_t = unsigned long long;
#else
using warp_mask_t = unsigned int;
#endif
__device__ float up(const warp_mask_t mask, const at::Half var, unsigned delta) {
  return __shfl_up_sync(mask, var.operator __half(), delta);
}
__device__ float dn(const unsigned mask, const at::Half var, unsigned delta) {
  return __shfl_down_sync(mask, var.operator __half(), delta);
}
"""
    assert [f.line for f in only("HZ106", src)] == [10]


def test_hz106_masks_in_code_hip_never_compiles_stay_as_they_are():
    src = """#ifndef USE_ROCM
__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1); }
#else
__device__ float f(float v) { return __shfl_down_sync(0xffffffffffffffffULL, v, 1); }
#endif
"""
    assert only("HZ106", src) == []
    assert "__shfl_down_sync(0xffffffff, v, 1)" in result(src).text


def test_hz106_mask_from_a_header_is_reported_once_per_name():
    src = """#include "masks.h"
__device__ float f(float v) {
  v += __shfl_down_sync(FULL_MASK, v, 1);
  return v + __shfl_xor_sync(FULL_MASK, v, 2);
}"""
    (f,) = only("HZ106", src)
    assert f.line == 3 and f.severity.value == "warning" and f.fix is None
    assert "defined outside this file" in f.message
    assert "FULL_MASK, v, 1" in result(src).text


def test_hz106_a_local_mask_of_a_type_from_another_file_names_its_declaration():
    """nvdiffrast: `U32 actMask = __ballot_sync(~0u, act)`, U32 a typedef of another header
    (the message said the mask was defined outside the file)."""
    src = """#include "framework.h"
__device__ int f(int v, bool act) {
  U32 actMask = __ballot_sync(~0u, act);
  return __shfl_sync(actMask, v, 0);
}"""
    f = only("HZ106", src)[-1]  # the first is the `~0u` literal
    assert f.line == 4 and f.severity.value == "warning"
    assert "is of type `U32` (declared at line 3; a type of another file)" in f.message
    assert "outside this file" not in f.message


def test_hz106_a_local_mask_after_a_directive_line_is_read_from_its_own_line():
    """iro-cuda-ax's `#ifdef __CUDA_ARCH__` then `const unsigned mask = __activemask();` in a
    class with a base of another header (round 43): the type read from tokens took the
    directive line in, and the message called `unsigned` a type of another file."""
    src = """#pragma once
template <class Recipe>
struct WarpSum : lib::contract::Realization<Recipe> {
  __device__ __forceinline__ static float execute(float v) {
#ifdef __CUDA_ARCH__
    const unsigned mask = __activemask();
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(mask, v, offset);
#endif
    return v;
  }
};
"""
    (f,) = only("HZ106", src, "sum.cuh")
    # the type read from tokens is the declaration's own, and the declaration a site of its
    # own that convert widens (the parse lost the use: rwatling's masks, round 49)
    assert f.line == 6 and "of 32-bit type `const unsigned`" in f.message and f.fixed
    assert "const unsigned long long mask = __activemask();" in result(src, "sum.cuh").text


def test_hz106_a_namespace_mask_of_std_uint32_t_is_widened(nvcc, gfx942_check, tmp_path):
    """High-Performance-BVH-Builder's `constexpr std::uint32_t FULL_MASK = 0xffffffffu;` in an
    anonymous namespace (round 43): the hermetic parse knew no `std::uint32_t`, so the mask
    read as defined outside the file and kept its 32 bits; widened, `std::` goes too."""
    src = """#include <cstdint>
namespace {
constexpr std::uint32_t FULL_MASK = 0xffffffffu;
}
__global__ void spread(int* work) {
  int id = __shfl_sync(FULL_MASK, work[threadIdx.x], 0);
  work[threadIdx.x] = id + threadIdx.x;
}
"""
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "bvh", src)
    assert "constexpr unsigned long long FULL_MASK = 0xffffffffffffffffULL;" in hip(src)


# egs: one 32-bit ballot variable per block of a kernel, each counted once; `uint` is glibc's,
# unknown to a hermetic parse
COUNTED_BALLOTS = """#include <sys/types.h>
__global__ void steps(const int* status, unsigned* counters) {
  if (status[threadIdx.x] == 1) {
    uint count_mask = __ballot_sync(0xffffffffu, status[threadIdx.x] == 1);
    if (threadIdx.x % 32 == 0) counters[0] += __popc(count_mask);
  }
  if (status[threadIdx.x] == 2) {
    uint count_mask = __ballot_sync(0xffffffffu, status[threadIdx.x] == 2);
    if (threadIdx.x % 32 == 0) counters[1] += __popc(count_mask);
  }
}
"""


def test_hz105_a_count_of_a_stored_ballot_is_a_dependent_line(nvcc, tmp_path):
    (tmp_path / "c.cu").write_text(COUNTED_BALLOTS)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "c.cu"), "-o", str(tmp_path / "c.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    found = only("HZ105", COUNTED_BALLOTS)
    assert [(f.line, f.extra["related_lines"]) for f in found] == [(4, "5"), (8, "9")]
    assert "`__popc` on it count only 32 lanes" in found[0].message
    out = fixed(COUNTED_BALLOTS, unsafe_fixes=True)
    assert (
        out.count("unsigned long long count_mask") == 2 and out.count("__popcll(count_mask)") == 2
    )


def test_hz106_an_unresolved_parameter_mask_is_named_as_one():
    """mmcv's float16 `__shfl_sync(unsigned mask, ...)` wraps the call in a macro the parse
    cannot read: the mask is this function's 32-bit parameter, not "defined outside"."""
    src = """__device__ inline float shfl16(unsigned mask, float var, int lane, int width = 64) {
  WRAP(float r = __shfl_sync(mask, var, lane, width); return r;);
}
"""
    [found] = only("HZ106", src)
    assert "32-bit parameter of this function" in found.message


def test_hz105_a_ballot_only_lanes_below_32_run_loses_nothing():
    """TransformerEngine's standalone_topk: the ballot runs under `if (threadIdx.x < 32)`, so
    lanes 32-63 never vote and 32 bits hold every vote; in the `else`, or outside, it does not."""
    src = """#define WARP_SIZE 32
__global__ void k(const int* in, int* out) {
  if (threadIdx.x < WARP_SIZE) {
    unsigned mask = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);
    out[0] = __popc(mask);
  } else {
    unsigned m2 = __ballot_sync(0xffffffffu, in[threadIdx.x] > 1);
    out[1] = __popc(m2);
  }
  unsigned m3 = __ballot_sync(0xffffffffu, in[0] > 0);
  out[2] = m3;
}"""
    assert [f.line for f in only("HZ105", src)] == [7, 10]


WARP_COUNT_VOTE = """template <unsigned int blockSize>
__global__ void reduce(const float* in, float* out, unsigned int* votes) {
  __shared__ float sdata[32];
  unsigned int tid = threadIdx.x;
  if (tid % warpSize == 0) sdata[tid / warpSize] = in[tid];
  __syncthreads();
  const unsigned int extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
  const unsigned int ballot = __ballot_sync(0xffffffffu, tid < extent);
  const unsigned int wide = __ballot_sync(0xffffffffu, tid < blockSize);
  if (tid == 0) { out[blockIdx.x] = sdata[0]; votes[0] = ballot; votes[1] = wide; }
}
template __global__ void reduce<256>(const float*, float*, unsigned int*);
"""


def test_hz105_a_vote_of_the_block_s_warp_count_has_no_lane_past_31(nvcc, tmp_path):
    """The CUDA samples' reduce7 (round 21): `tid < blockSize / warpSize` is false past lane
    31 (a block has at most 32 warps), so 32 bits hold every vote; a vote of `tid <
    blockSize` is not."""
    (tmp_path / "v.cu").write_text(WARP_COUNT_VOTE)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "v.cu"), "-o", str(tmp_path / "v.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert [f.line for f in only("HZ105", WARP_COUNT_VOTE)] == [9]


def test_hz107_a_constant_that_sizes_cooperative_group_tiles_stays_in_its_groups():
    """flashinfer's MoE top-k (round 12): `kWARP_SIZE = 32` only sizes `thread_block_tile<>`
    / `tiled_partition<>` tiles and their lane ids; a tile's operations are tile-relative, so a
    64-lane wavefront holds two tiles.  The same constant beside `warpSize` is reported."""
    src = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
static constexpr int kWARP_SIZE = 32;
__device__ float top(cg::thread_block_tile<kWARP_SIZE> const& warp, float v) {
  for (int o = warp.size() / 2; o > 0; o /= 2) v = fmaxf(v, warp.shfl_xor(v, o));
  return v;
}
__global__ void k(const float* in, float* out) {
  auto warp = cg::tiled_partition<kWARP_SIZE>(cg::this_thread_block());
  int lane = threadIdx.x % kWARP_SIZE;
  float v = top(warp, in[threadIdx.x]);
  if (lane == 0) out[threadIdx.x / kWARP_SIZE] = v;
}
"""
    assert only("HZ107", src) == []
    hardware = src.replace("if (lane == 0)", "if (lane == warpSize - 1)")
    assert [f.line for f in only("HZ107", hardware)] == [3]


def test_hz106_a_use_the_parse_misses_of_a_mask_widened_here_is_not_reported_again():
    """arrayfire (round 13): `constexpr unsigned int FULL_MASK` at namespace scope is widened
    at its declaration, but a use inside a specialisation on a type of another header (which
    the parse cannot resolve) was reported again as "defined outside this file"."""
    src = """#include "types.h"
constexpr unsigned int FULL_MASK = 0xffffffff;
template <typename T>
__device__ T shfl_down_sync(T var, int delta) {
  return __shfl_down_sync(FULL_MASK, var, delta);
}
template <>
__device__ cfloat shfl_down_sync(cfloat var, int delta) {
  cfloat res = {__shfl_down_sync(FULL_MASK, var.x, delta), __shfl_down_sync(FULL_MASK, var.y, 1)};
  return res;
}
"""
    assert [f.fixed for f in only("HZ106", src)] == [True]  # at the declaration, widened
    assert "unsigned long long FULL_MASK = 0xffffffffffffffffULL;" in fixed(src)
    header_only = src.replace("constexpr unsigned int FULL_MASK = 0xffffffff;", "")
    assert [f.fixed for f in only("HZ106", header_only)] == [False]  # a header's: once


def test_hz105_a_block_of_one_32_lane_group_rounded_up_has_no_lanes_past_31():
    """warp's tile reductions (round 13): `if constexpr (warp_count == 1)` with `warp_count =
    (BLOCK + WARP_SIZE - 1) / WARP_SIZE` (32) is a block of at most 32 threads; its `else`, and
    a count rounded down (`block / 32 == 1`: up to 63 threads), are still reported."""
    src = """#define WP_TILE_WARP_SIZE 32
template <int WP_TILE_BLOCK_DIM>
__device__ void reduce(const int* v, int* out) {
  constexpr int warp_count = (WP_TILE_BLOCK_DIM + WP_TILE_WARP_SIZE - 1) / WP_TILE_WARP_SIZE;
  if constexpr (warp_count == 1) {
    unsigned int mask = __ballot_sync(0xFFFFFFFF, v[threadIdx.x] > 0);
    out[0] = __ffs(mask) - 1;
  } else {
    unsigned int m2 = __ballot_sync(0xFFFFFFFF, v[threadIdx.x] > 0);
    out[1] = __ffs(m2) - 1;
  }
}
__device__ void floor_div(const int* v, int* out, int block) {
  const int warps = block / WP_TILE_WARP_SIZE;
  if (warps == 1) {
    unsigned int m3 = __ballot_sync(0xFFFFFFFF, v[threadIdx.x] > 0);
    out[2] = __ffs(m3) - 1;
  }
}
"""
    assert [f.line for f in only("HZ105", src)] == [9, 16]


# a HIP header of a library with its own macros (Kokkos' HIP backend, round 19): the parse fails
# around the class, and the cursor at `done_active` is the class, not the variable
LIBRARY_TOKEN = """#include <hip/hip_runtime.h>
#include <MyLib_Token.hpp>
namespace MyLib {
template <>
class Token<GPU, Scope::Global> {
 protected:
  Array<unsigned*, DeviceSpace> m_slots;

 public:
  using size_type = int;
  MYLIB_INLINE_FUNCTION
  size_type size() const noexcept { return m_slots.extent(0); }

 private:
  __device__ size_type take() const {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    idx = idx % size();
    unsigned long long active = __ballot(1);
    unsigned long long done_active = 0;
    bool done = false;
    while (active != done_active) {
      if (!done) done = atomicCAS(m_slots.data() + idx, 0, 1) == 0;
      done_active = __ballot(done ? 1 : 0);
    }
    return idx;
  }
};
}  // namespace MyLib
"""


def test_a_ballot_stored_in_a_64bit_variable_of_a_class_that_does_not_parse():
    assert only("HZ105", LIBRARY_TOKEN, "token.hpp") == []
    narrow = LIBRARY_TOKEN.replace(
        "unsigned long long done_active = 0;", "unsigned done_active = 0;"
    )
    assert [f.line for f in only("HZ105", narrow, "token.hpp")] == [23]


# ByteTransformer's sequence lengths (round 19): one 32-lane group per sequence, each group
# counting its votes; on a 64-lane wavefront the ballot holds two groups' votes
GROUP_COUNTS = """__global__ void lengths(const float* mask, int* len, int rows, int cols) {
  const int tid = threadIdx.x;
  int groups = blockDim.x >> 5;
  int group = tid >> 5;
  int lane = tid & 0x1F;
  for (int r = group; r < rows; r += groups) {
    int count = 0;
    for (int i = lane; i < (cols + 31) / 32 * 32; i += 32) {
      float m = i < cols ? mask[r * cols + i] : 0.f;
      count += __popc(__ballot_sync(0xFFFFFFFF, m >= 0.5f));
    }
    if (lane == 0) len[r] = count;
  }
}
"""


def test_a_ballot_counted_by_32_lane_groups_is_one_finding_at_the_ballot(nvcc, tmp_path):
    (tmp_path / "g.cu").write_text(GROUP_COUNTS)
    assert_nvcc_builds(nvcc, [tmp_path / "g.cu"], [], tmp_path)
    found = [f for f in findings(GROUP_COUNTS) if f.rule in ("HZ101", "HZ105")]
    assert [(f.rule, f.line) for f in found] == [("HZ105", 10)]
    assert "count the group's own half" in found[0].message
    # SlabHash's bucket counts (round 28): a key mask on the count changes nothing
    keyed = GROUP_COUNTS.replace("m >= 0.5f))", "m >= 0.5f) & 0x15555555u)")
    assert [(f.rule, f.line) for f in findings(keyed) if f.rule in ("HZ101", "HZ105")] == [
        ("HZ105", 10)
    ]
    # a ballot kept in a 32-bit word whose bits the 32-lane id picks (deepmd-kit's run heads,
    # round 28): the group's own half of the ballot makes the ids right again
    ranked = GROUP_COUNTS.replace(
        "count += __popc(__ballot_sync(0xFFFFFFFF, m >= 0.5f));",
        "unsigned b = __ballot_sync(0xFFFFFFFF, m >= 0.5f);\n"
        "      count += __popc(b & ((1u << lane) - 1));",
    )
    (tmp_path / "r.cu").write_text(ranked)
    assert_nvcc_builds(nvcc, [tmp_path / "r.cu"], [], tmp_path)
    found = [f for f in findings(ranked) if f.rule in ("HZ101", "HZ105")]
    assert [(f.rule, f.line) for f in found] == [("HZ105", 10)]
    assert "keep the group's own half" in found[0].message and found[0].fix is None
    # kept in 64 bits, its bits are hardware lanes: the 32-lane id picks the wrong half
    wide = ranked.replace("unsigned b", "unsigned long long b").replace(
        "__popc(b & ((1u", "__popcll(b & ((1ull"
    )
    assert "HZ101" in [f.rule for f in findings(wide)]


# deepmd-kit's scan_runs (round 28): a macro spells `__device__`, and the rows of the 32-lane
# group leaders store the group's ballot word; a macro that instantiates kernels is no specifier
RUN_HEADS = """#define DEV_INLINE __device__ __forceinline__
#define INSTANTIATE(T) template __global__ void k2<T>(T*);
DEV_INLINE void heads(int tid, int rows, const int* dst, unsigned* masks, int* run_of) {
  bool head = tid < rows && (tid == 0 || dst[tid] != dst[tid - 1]);
  const unsigned m = __ballot_sync(0xffffffffu, head);
  if ((tid & 31) == 0) {
    masks[tid >> 5] = m;
  }
  __syncthreads();
  const int w = tid >> 5, lane = tid & 31;
  int idx = 0;
  for (int i = 0; i < w; ++i) idx += __popc(masks[i]);
  idx += __popc(masks[w] & ((1u << lane) - 1u));
  if (tid < rows) run_of[tid] = head ? idx : idx - 1;
}
__global__ void k(const int* dst, int rows, int* run_of) {
  __shared__ unsigned masks[8];
  heads(threadIdx.x, rows, dst, masks, run_of);
}
template <typename T>
__global__ void k2(T* x) { x[threadIdx.x] = T(1); }
INSTANTIATE(int)
void run(const int* dst, int rows, int* run_of) { k<<<1, 256>>>(dst, rows, run_of); }
"""


def test_a_ballot_word_stored_per_32_lane_group_is_one_finding_at_the_ballot(nvcc, tmp_path):
    (tmp_path / "h.cu").write_text(RUN_HEADS)
    assert_nvcc_builds(nvcc, [tmp_path / "h.cu"], [], tmp_path)
    found = [f for f in findings(RUN_HEADS) if f.rule in ("HZ101", "HZ105")]
    assert [(f.rule, f.line) for f in found] == [("HZ105", 5)]
    assert "keep the group's own half" in found[0].message
    assert not [f for f in findings(RUN_HEADS) if f.rule == "HZ312"]  # `run` launches on the host
    # the same helper meeting the hardware warp elsewhere keeps its 32-lane ids reported
    hardware = RUN_HEADS.replace("run_of[tid] = head", "run_of[tid] = warpSize + head")
    assert "HZ101" in [f.rule for f in findings(hardware)]


RSMT = """static const int WS = 32;  // warp size
__device__ int inserted(int* out, bool insert, int num) {
  const int lane = threadIdx.x % WS;
  const int warp = threadIdx.x / WS;
  const unsigned long long bal = __ballot_sync(~0ull, insert);
  const int pos = __popcll(bal & ~(-1ull << lane)) + num;
  if (insert) out[warp * WS + pos] = lane;
  return __popcll(bal);
}
__global__ void nets(int* out, const int* work, int n) {
  const int lane = threadIdx.x % WS;
  int i = 0;
  if (lane == 0) i = atomicAdd(out, 1);
  i = __shfl_sync(0xffffffff, i, 0);
  if (i < n) out[i] = inserted(out, work[i] > lane, i);
}
"""


def test_hz103_group_code_that_picks_ballot_bits_by_its_lane_is_the_constant_s(nvcc, tmp_path):
    """HeCBench's rsmt (its human port sets `WS` to 64 and keeps the width-less broadcasts):
    a kernel whose helper picks a ballot's bits by `lane = threadIdx.x % WS` works in the
    hardware warp, so its broadcast from lane 0 is right once `WS` is (HZ107), not a shuffle
    to give width 32.  Without the ballot helper, the same broadcast is HZ103's."""
    (tmp_path / "r.cu").write_text(RSMT)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "r.cu"), "-o", str(tmp_path / "r.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    assert only("HZ103", RSMT) == []
    assert [f.line for f in only("HZ107", RSMT)] == [1]
    alone = RSMT.replace("out[i] = inserted(out, work[i] > lane, i);", "out[i] = work[i] + lane;")
    assert [f.line for f in only("HZ103", alone)] == [14]
    # as HeCBench's file has it, the ballot kept in an int: still the constant's to fix
    narrow = RSMT.replace("const unsigned long long bal", "const int bal").replace(
        "__popcll(bal & ~(-1ull", "__popc(bal & ~(-1"
    )
    assert only("HZ103", narrow) == []
    assert [f.line for f in only("HZ107", narrow)] == [1]


SMALL_BLOCK_VOTES = """#include <cstdio>
const unsigned BLOCK_SIZE = 16;
const unsigned FULL_MASK = 0xffffffff;
// the CUDA book's warp demo (round 25): one block of 16 threads votes into 32 bits
__global__ void votes(void) {
  int tid = threadIdx.x;
  unsigned mask1 = __ballot_sync(FULL_MASK, tid > 0);
  if (tid == 1) printf("mask1 = %x\\n", mask1);
}
int main(void) {
  votes<<<1, BLOCK_SIZE>>>();
  cudaDeviceSynchronize();
  return 0;
}
"""


def test_hz105_a_kernel_of_at_most_32_threads_loses_no_votes(nvcc, tmp_path):
    """Blocks of 16 threads have no lane past 31: a ballot stored in 32 bits holds every vote
    (the mask itself is still HZ106's, 32-bit); blocks of 64 threads lose lanes 32-63."""
    (tmp_path / "v.cu").write_text(SMALL_BLOCK_VOTES)
    assert_nvcc_builds(nvcc, [tmp_path / "v.cu"], [], tmp_path)
    assert only("HZ105", SMALL_BLOCK_VOTES) == []
    assert [f.line for f in only("HZ106", SMALL_BLOCK_VOTES)] == [3]
    wide = SMALL_BLOCK_VOTES.replace("BLOCK_SIZE = 16", "BLOCK_SIZE = 64")
    assert [f.line for f in only("HZ105", wide)] == [7]


# PhysX's output compaction (round 31): every lane votes, but only the first 32-lane group
# reads the word, as the mask of its scan: the 32 bits kept are all it needs
VOTE_READ_BY_GROUP_0 = """#define WARP_SIZE 32
__global__ void offsets(const unsigned* n, unsigned* out) {
  const unsigned lane = threadIdx.x & (WARP_SIZE - 1);
  const unsigned warp = threadIdx.x / WARP_SIZE;
  unsigned mask = __ballot_sync(0xffffffffu, n[threadIdx.x] > 0);
  if (warp == 0 && lane < 8) {
    out[lane] = __popc(mask & ((1u << lane) - 1)) + n[lane];
  }
}
"""


def test_hz105_a_ballot_only_lanes_below_32_read_loses_nothing(nvcc, tmp_path):
    src = tmp_path / "offsets.cu"
    src.write_text(VOTE_READ_BY_GROUP_0)
    assert_nvcc_builds(nvcc, [src], [], tmp_path)
    assert only("HZ105", VOTE_READ_BY_GROUP_0) == []
    # decoy: one read outside the first group's branch sees the upper lanes' votes lost
    read = VOTE_READ_BY_GROUP_0.replace(
        "  if (warp == 0", "  out[64 + warp] = mask;\n  if (warp == 0"
    )
    assert [f.line for f in only("HZ105", read)] == [5]


# Magicube's SDDMM (round 36): `dim3 block;` with `block.x = 32;` before every launch
MEMBER_SET_BLOCK = """__global__ void scan(float* o) {
  int lane = threadIdx.x & 31;
  float v = o[threadIdx.x];
  v += __shfl_up_sync(0xffffffff, v, 8);
  if (lane >= 8) o[threadIdx.x] = v;
}
void run(float* o, int n) {
  dim3 grid;
  grid.x = n;
  dim3 block;
  block.x = 32;
  scan<<<grid, block>>>(o);
}
"""


def test_hz103_none_in_a_kernel_whose_dim3_block_is_set_to_32_member_by_member(nvcc, tmp_path):
    """The block's sizes set one by one, `block.x = 32;`: no wavefront has lanes 32-63; set
    to 64, or set twice, the shuffle's width matters again."""
    (tmp_path / "a.cu").write_text(MEMBER_SET_BLOCK)
    assert_nvcc_builds(nvcc, [tmp_path / "a.cu"], [], tmp_path)
    assert only("HZ103", MEMBER_SET_BLOCK) == []
    assert [f.line for f in only("HZ103", MEMBER_SET_BLOCK.replace("= 32;", "= 64;"))] == [4]
    twice = MEMBER_SET_BLOCK.replace("block.x = 32;", "block.x = 32;\n  block.x = n;")
    assert [f.line for f in only("HZ103", twice)] == [4]
