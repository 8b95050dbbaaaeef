"""One diagnosis per root cause: findings a rule says share a cause are one finding in a file,
listing the other lines (text: in the message; SARIF: related locations)."""

from __future__ import annotations

import subprocess

from hipify_py.report.findings_sarif import _related
from test_hazard_common import findings, only

# intrinsics-simd: SIMD-in-a-word intrinsics HIP lacks, called many times; HeCBench's file has
# 79 of them, which used to be 79 findings
SIMD = """__global__ void simd(const unsigned* a, const unsigned* b, unsigned* o) {
  unsigned x = a[threadIdx.x], y = b[threadIdx.x];
  o[0] = __vabs2(x);
  o[1] = __vabs4(x);
  o[2] = __vadd2(x, y);
  o[3] = __vadd2(y, x);
  o[4] = __vsubus4(x, y);
  o[5] = __vcmpeq2(x, y);
}
"""


def test_the_missing_names_of_one_family_are_one_finding(nvcc, tmp_path):
    (tmp_path / "s.cu").write_text(SIMD)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "s.cu"), "-o", str(tmp_path / "s.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    (found,) = only("HZ300", SIMD)
    assert found.line == 3 and found.extra["related_lines"] == "4,5,6,7,8"
    assert "the same holds for `__vabs4`, `__vadd2`, `__vsubus4`, `__vcmpeq2`" in found.message
    lines = [r["physicalLocation"]["region"]["startLine"] for r in _related(found)]
    assert lines == [4, 5, 6, 7, 8]


def test_findings_without_a_declared_cause_stay_apart():
    src = """void f() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major >= 8) {}
  int cc = prop.major * 10 + prop.minor;
}"""
    assert [f.line for f in only("HZ502", src)] == [4, 5]  # two places to fix
    # a suppressed line is not listed; the next one carries the diagnosis
    quiet = SIMD.replace("o[0] = __vabs2(x);", "o[0] = __vabs2(x);  // hipify-py: ignore[HZ300]")
    (found,) = only("HZ300", quiet)
    assert found.line == 4 and found.extra["related_lines"] == "5,6,7,8"
    assert [f.rule for f in findings(quiet)] == ["HZ300"]


def test_a_long_list_of_lines_is_cut_in_the_message_only():
    # apex's bottleneck.cpp: 300 cuDNN lines in one diagnosis; the message names twenty
    calls = "".join(f"  o[{k}] = __vabs2(x);\n" for k in range(25))
    src = f"__global__ void k(unsigned* o, unsigned x) {{\n{calls}}}\n"
    (found,) = only("HZ300", src)
    assert found.extra["related_lines"] == ",".join(str(n) for n in range(3, 27))
    assert "(also at lines 3, 4, 5" in found.message and "22 and 4 more)" in found.message
