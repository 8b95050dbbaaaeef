"""`hipify-py check` through click's CliRunner: exit codes, stale HIP output, baselines,
select/ignore, project config and inline suppression."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli.check import check
from hipify_py.cli.convert import convert

CLEAN = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
void run(float* h, int n) {
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d, 2.f, n);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
"""

HAZARDS = """#include <cuda_runtime.h>
__global__ void reduce(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
"""

WARNING_ONLY = """__global__ void k(float* x) {
  x[threadIdx.x] = 1.f;
  __threadfence_system();
}
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "scale.cu").write_text(CLEAN)
    (src / "sub" / "fence.cu").write_text(WARNING_ONLY)
    (src / "notes.txt").write_text("not CUDA\n")
    return tmp_path


def invoke(*args):
    result = CliRunner().invoke(check, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def as_json(*args):
    code, out = invoke(*args, "--format", "json")
    return code, json.loads(out)


def test_clean_tree_exits_0_and_warnings_fail_only_with_fail_on(tree):
    code, out = invoke("src")
    assert code == 0, out
    assert "1 warning" in out and "HZ402" in out
    code, _ = invoke("src", "--fail-on", "warning")
    assert code == 1
    code, data = as_json("src", "--fail-on", "info")
    assert code == 1 and data["summary"]["files"] == 2


def test_errors_exit_1_with_source_line_and_caret(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    code, out = invoke("src")
    assert code == 1
    assert "HZ102" in out and "HZ106" in out and "HZ101" in out
    assert "^~~~" in out and "v += __shfl_down_sync(0xffffffff, v, off);" in out


def test_usage_errors_exit_2(tree):
    assert invoke("missing-dir")[0] == 2
    assert invoke("src", "--format", "xml")[0] == 2
    assert invoke("src", "--select", "XY9")[0] == 2
    assert invoke("src", "--fail-on", "fatal")[0] == 2
    assert invoke("src", "--keep-names")[0] == 2
    assert invoke("src", "--baseline", "a.json", "--write-baseline", "b.json")[0] == 2


def test_in_sync_up_to_date_stale_and_missing(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    made = CliRunner().invoke(convert, ["src", "--out-dir", "hip", "-q"],
                              catch_exceptions=False)
    assert made.exit_code == 0, made.output
    assert (tree / "hip" / "scale.hip").is_file()
    # hazards fail on their own; ignore them to look at synchronisation only
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 0, out
    # a CUDA change that was not regenerated
    (tree / "src" / "scale.cu").write_text(CLEAN.replace("*= a", "*= a + 1"))
    code, data = as_json("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1
    assert [(s["path"], s["status"], s["line"]) for s in data["stale"]] == [
        ("hip/scale.hip", "stale", 4)]
    # a new CUDA file with no HIP copy; --out-dir is the same option
    (tree / "src" / "new.cu").write_text(CLEAN)
    code, out = invoke("src", "--out-dir", "hip", "--ignore", "HZ")
    assert code == 1 and "hip/new.hip is missing" in out


def test_in_sync_keep_names(tree):
    made = CliRunner().invoke(convert, ["src", "--out-dir", "hip", "--keep-names", "-q"],
                              catch_exceptions=False)
    assert made.exit_code == 0, made.output
    assert invoke("src", "--in-sync", "hip", "--keep-names")[0] == 0
    assert invoke("src", "--in-sync", "hip")[0] == 1  # expects .hip names


def test_select_and_ignore_with_prefixes(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    _, data = as_json("src", "--fail-on", "info")
    assert {f["rule"] for f in data["findings"]} == {"HZ101", "HZ102", "HZ106", "HZ402"}
    _, data = as_json("src", "--select", "HZ1")
    assert {f["rule"] for f in data["findings"]} == {"HZ101", "HZ102", "HZ106"}
    _, data = as_json("src", "--select", "HZ1,HZ4", "--ignore", "HZ101", "--ignore", "hz106")
    assert {f["rule"] for f in data["findings"]} == {"HZ102", "HZ402"}
    code, data = as_json("src", "--ignore", "HZ1")
    assert code == 0 and {f["rule"] for f in data["findings"]} == {"HZ402"}


def test_baseline_hides_known_findings_even_after_edits_elsewhere(tree):
    reduce = tree / "src" / "reduce.cu"
    reduce.write_text(HAZARDS)
    code, out = invoke("src", "--write-baseline", "baseline.json")
    assert code == 0
    recorded = json.loads((tree / "baseline.json").read_text())["findings"]
    assert {e["rule"] for e in recorded} == {"HZ101", "HZ102", "HZ106", "HZ402"}
    assert all("line" not in e for e in recorded)
    assert invoke("src", "--baseline", "baseline.json")[0] == 0
    # lines move: still known
    reduce.write_text("// a new header comment\n\n" + HAZARDS)
    code, data = as_json("src", "--baseline", "baseline.json")
    assert code == 0 and data["findings"] == [] and data["summary"]["baselined"] == 4
    # a second copy of a known line is new (occurrence index), and so is a new hazard
    reduce.write_text(HAZARDS.replace(
        "  if ((threadIdx.x & 31) == 0)",
        "  int lane = threadIdx.x % 32; (void)lane;\n  if ((threadIdx.x & 31) == 0)"))
    code, data = as_json("src", "--baseline", "baseline.json")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("HZ101", 6)]


def test_bad_baseline_is_a_usage_error(tree):
    (tree / "baseline.json").write_text("{not json")
    assert invoke("src", "--baseline", "baseline.json")[0] == 2


def test_project_config_ignore_and_per_file_ignores(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    (tree / ".hipify-py.yaml").write_text(
        "ignore: [HZ106]\nper-file-ignores:\n  'src/sub/*.cu': [HZ4]\n  reduce.cu: HZ102\n")
    _, data = as_json("src", "--fail-on", "info")
    assert {(Path(f["path"]).name, f["rule"]) for f in data["findings"]} == {
        ("reduce.cu", "HZ101")}
    _, data = as_json("src", "--no-config")
    assert {f["rule"] for f in data["findings"]} == {"HZ101", "HZ102", "HZ106", "HZ402"}
    (tree / ".hipify-py.yaml").write_text("ignore: HZ1\n")
    assert invoke("src")[0] == 2  # a list is required


def test_inline_suppression_through_the_cli(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS.replace(
        "atomicAdd(out, v);", "atomicAdd(out, v);  // hipify-py: ignore[HZ101]").replace(
        "  for (int off", "  // hipify-py: ignore[HZ102, HZ106]\n  for (int off").replace(
        "    v += __shfl", "    // hipify-py: ignore[HZ106]\n    v += __shfl"))
    code, out = invoke("src")
    assert code == 0, out


def test_output_file_and_hip_sources(tree):
    (tree / "ported.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* o) {\n"
        "  unsigned m = __ballot(o[0] > 0);\n  o[1] = __popc(m);\n}\n")
    code, out = invoke("ported.hip", "--output", "report.txt")
    assert code == 1 and out == ""
    text = (tree / "report.txt").read_text()
    assert "HZ105" in text and "ported.hip" in text and "\x1b[" not in text


@pytest.mark.skipif(os.name != "posix", reason="pre-commit style file list")
def test_pre_commit_style_file_arguments(tree):
    code, _ = invoke("src/scale.cu", "src/sub/fence.cu")
    assert code == 0


def test_many_files_in_parallel_workers(tree):
    for n in range(5):
        (tree / "src" / f"r{n}.cu").write_text(HAZARDS)
    code, data = as_json("src", "-j", "2", "--select", "HZ102")
    assert code == 1
    assert sorted(Path(f["path"]).name for f in data["findings"]) == [
        f"r{n}.cu" for n in range(5)]
