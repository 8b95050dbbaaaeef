"""Fixes that compile: what `--unsafe-fixes` changes still builds for gfx942.

A fix that widens a mask to 64 bits invalidates `__ffs(mask)`/`__popc(mask)` (HIP's `int` and
`unsigned` overloads make the call ambiguous), so it must change those uses too.  The inputs
are the shapes HeCBench's atomicAggregate and graphB+ have (both broke under `--unsafe-fixes`
while compiling with the defaults); every input is checked with nvcc, every output with clang
for gfx942 against the ROCm 7.2.4 headers.
"""

from __future__ import annotations

import subprocess

import pytest

from test_hazard_common import fixed, only

# a mask variable declared 32-bit, used as a *_sync mask and by the 32-bit bit intrinsics
# (HZ106 widens it); a ballot stored in 32 bits (HZ105 widens it)
AGGREGATE = """__device__ int atomicAggInc(int* ptr) {
  int mask;
  for (int i = 0; i < warpSize; i++) {
    unsigned long long tptr = __shfl_sync(0xffffffff, (unsigned long long)ptr, i);
    unsigned my_mask = __ballot_sync(0xffffffff, tptr == (unsigned long long)ptr);
    if (i == (threadIdx.x & (warpSize - 1))) mask = my_mask;
  }
  int leader = __ffs(mask) - 1;
  int res = 0;
  unsigned lane_id = threadIdx.x % warpSize;
  if (lane_id == leader) res = atomicAdd(ptr, __popc(mask));
  res = __shfl_sync(mask, res, leader);
  return res + __popc(mask & ((1 << lane_id) - 1));
}
__global__ void k(int* d, int s) { atomicAggInc(d + threadIdx.x % s); }
"""

# the same name declared twice in one kernel: each fix changes the uses of its own variable
TWICE = """__global__ void k(int* out, const int* pos, const int* prio) {
  const int lane = threadIdx.x % 32;
  {
    const int b = __ballot_sync(0xffffffff, prio[threadIdx.x] > 0);
    out[0] = __popc(b & ((1 << lane) - 1)) + __popc(b);
  }
  unsigned int bal = __ballot_sync(0xffffffff, pos[threadIdx.x] >= 0);
  const int lid = __ffs(bal) - 1;
  {
    int bal = __ballot_sync(0xffffffff, pos[threadIdx.x] > 1);
    out[1] = __ffs(bal) + lid;
  }
}
"""

# full masks spelled as casts and standard constants
CASTS = """#include <cstdint>
#include <climits>
__global__ void k(int* out, int v) {
  out[threadIdx.x] = __shfl_sync(uint32_t(-1), v, 0) + __shfl_sync(~uint32_t(0), v, 1)
      + __shfl_sync(UINT32_MAX, v, 2) + __shfl_xor_sync(UINT_MAX, v, 1);
}
"""

SOURCES = {"aggregate": AGGREGATE, "twice": TWICE, "casts": CASTS}


@pytest.mark.parametrize("name", SOURCES)
def test_inputs_are_real_cuda(name, nvcc, tmp_path):
    f = tmp_path / "t.cu"
    f.write_text(SOURCES[name])
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(f), "-o", str(tmp_path / "t.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", SOURCES)
def test_unsafe_fixes_compile_for_gfx942(name, gfx942_check, tmp_path):
    out = tmp_path / "t.hip"
    out.write_text(fixed(SOURCES[name], unsafe_fixes=True))
    proc = gfx942_check(out)
    assert proc.returncode == 0, out.read_text() + proc.stderr


def test_a_widened_mask_variable_takes_the_64_bit_bit_intrinsics():
    text = fixed(AGGREGATE, unsafe_fixes=True)
    assert "unsigned long long mask;" in text
    assert "__ffsll(mask)" in text and "__popcll(mask)" in text
    assert "__popcll(mask & ((1 << lane_id) - 1))" in text
    assert "__ffs(" not in text and "__popc(" not in text


def test_each_widened_ballot_changes_only_its_own_uses():
    text = fixed(TWICE, unsafe_fixes=True)
    assert text.count("unsigned long long b =") == 1
    assert text.count("unsigned long long bal =") == 2
    assert "__ffs(" not in text and "__popc(" not in text
    # without unsafe fixes nothing is widened and nothing is renamed
    safe = fixed(TWICE)
    assert "__ffsll" not in safe and "__popcll" not in safe


def test_full_masks_written_as_casts_or_limits_are_converted():
    text = fixed(CASTS)
    assert text.count("0xffffffffffffffffULL") == 4
    assert [f.fixed for f in only("HZ106", CASTS)] == [True] * 4  # nothing left open
