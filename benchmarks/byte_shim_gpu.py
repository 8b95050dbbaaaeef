"""CUDA's 4-byte SIMD intrinsics against hipify-py's shim of them, on an NVIDIA GPU.

ROCm 7.2.4 lacks `__vsub4`, `__vsubss4`, `__vcmpeq4`, `__vcmpne4`, `__vmaxs4` and `__dp4a`'s
unsigned form; `convert` writes a shim that computes them byte by byte (``rewrite/shims.py``).
This script writes a CUDA program that runs CUDA's own intrinsics on the device over 2^20 input
pairs and compares each result with the shim's functions, compiled as host code from the very
text convert writes (read from the source with ``ast``, so the GPU machine needs no packages).

Usage (on a machine with nvcc and a GPU):
    python benchmarks/byte_shim_gpu.py > /tmp/bytes.cu
    nvcc -arch=sm_90 -o /tmp/bytes /tmp/bytes.cu && /tmp/bytes
Prints the mismatches per intrinsic (0 each when the shim computes what CUDA computes).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SHIMS = Path(__file__).resolve().parent.parent / "src" / "hipify_py" / "rewrite" / "shims.py"
NAMES = ("__vsubss4", "__vsub4", "__vcmpeq4", "__vcmpne4", "__vmaxs4", "__dp4a")

MAIN = r"""
__global__ void k(const unsigned* a, const unsigned* b, unsigned* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o[7*i+0] = __vsubss4(a[i], b[i]); o[7*i+1] = __vsub4(a[i], b[i]);
  o[7*i+2] = __vcmpeq4(a[i], b[i]); o[7*i+3] = __vcmpne4(a[i], b[i]);
  o[7*i+4] = __vmaxs4(a[i], b[i]); o[7*i+5] = (unsigned)__dp4a((int)a[i], (int)b[i], 7);
  o[7*i+6] = __dp4a(a[i], b[i], 7u);
}
int main() {
  const int n = 1 << 20;
  unsigned *a = new unsigned[n], *b = new unsigned[n], *o = new unsigned[7*n];
  srand(1);
  for (int i = 0; i < n; i++) {  // every 7th pair equal but for one byte: the compares see both
    a[i] = (unsigned)rand() * 2654435761u;
    b[i] = (i % 7 == 0) ? a[i] ^ (0xffu << (8*(i%4))) : (unsigned)rand() * 40503u;
  }
  unsigned *da, *db, *dout;
  cudaMalloc(&da, 4*n); cudaMalloc(&db, 4*n); cudaMalloc(&dout, 28*n);
  cudaMemcpy(da, a, 4*n, cudaMemcpyHostToDevice); cudaMemcpy(db, b, 4*n, cudaMemcpyHostToDevice);
  k<<<(n+255)/256, 256>>>(da, db, dout, n);
  cudaMemcpy(o, dout, 28*n, cudaMemcpyDeviceToHost);
  long bad[7] = {0};
  for (int i = 0; i < n; i++) {
    unsigned e[7] = {s_vsubss4(a[i], b[i]), s_vsub4(a[i], b[i]), s_vcmpeq4(a[i], b[i]),
                     s_vcmpne4(a[i], b[i]), s_vmaxs4(a[i], b[i]),
                     (unsigned)s_dp4a((int)a[i], (int)b[i], 7), s_dp4a(a[i], b[i], 7u)};
    for (int j = 0; j < 7; j++) bad[j] += o[7*i+j] != e[j];
  }
  printf("mismatches over %d inputs: vsubss4 %ld vsub4 %ld vcmpeq4 %ld vcmpne4 %ld "
         "vmaxs4 %ld dp4a %ld dp4a(unsigned) %ld\n", n, bad[0], bad[1], bad[2], bad[3], bad[4],
         bad[5], bad[6]);
  return 0;
}
"""


def shim_text() -> str:
    """The byte-SIMD shim exactly as ``rewrite/shims.py`` holds it."""
    tree = ast.parse(SHIMS.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_BYTES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise SystemExit(f"no _BYTES shim in {SHIMS}")


def host_copy(text: str) -> str:
    """The shim as host functions named `s_...`, beside CUDA's own device intrinsics."""
    text = text.replace("__host__ __device__ inline", "static inline")
    return re.sub(r"\b(" + "|".join(NAMES) + r")\b", lambda m: "s_" + m.group(1)[2:], text)


if __name__ == "__main__":
    print("#include <cstdio>\n#include <cstdlib>\n" + host_copy(shim_text()) + MAIN)
