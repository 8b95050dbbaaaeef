"""One module decides which findings are reported (issue 27): every way of turning a finding off,
met in one run, in the order ``policy`` documents."""

from __future__ import annotations

from pathlib import Path

from _units import assert_nvcc_builds
from hipify_py.policy import matches_rule
from test_check_cli import HAZARDS, as_json, invoke, tree  # noqa: F401 - tree is a fixture
from test_hazard_common import only

# one kernel per way of turning a finding off; each draws HZ105 (a ballot kept in 32 bits)
LANES = (
    "__global__ void {name}(unsigned* o) {{ unsigned b = __ballot_sync(__activemask(), o[1]); "
    "o[0] = b; }}{tail}\n"
)


def _kernels(root: Path) -> None:
    (root / "src" / "lanes.cu").write_text(
        LANES.format(name="suppressed", tail="  // hipify-py: ignore[hz1]")
        + "#ifndef __HIP_PLATFORM_AMD__\n"
        + LANES.format(name="cuda_only", tail="")
        + "#endif\n"
        + LANES.format(name="reported", tail="")
    )
    (root / "src" / "vendor.cu").write_text(LANES.format(name="vendored", tail=""))
    (root / "src" / "reduce.cu").write_text(HAZARDS)
    (root / ".hipify-py.yaml").write_text("per-file-ignores:\n  'src/vendor.cu': [ALL]\n")


def _found(data: dict) -> set[tuple[str, int, str]]:
    return {(Path(f["path"]).name, f["line"], f["rule"]) for f in data["findings"]}


def test_each_step_in_one_run(tree: Path) -> None:  # noqa: F811 - the fixture
    _kernels(tree)
    # suppression, the inactive branch and per-file-ignores act in the worker: never reported
    _, data = as_json("src", "--fail-on", "info")
    lanes = {f for f in _found(data) if f[0] == "lanes.cu"}
    assert lanes == {("lanes.cu", 5, "HZ105")}
    assert not any(f[0] == "vendor.cu" for f in _found(data))
    reduce_rules = {r for n, _, r in _found(data) if n == "reduce.cu"}
    # HZ102 is opt-in: reported when --enable, the config or --select by full ID asks for it,
    # not when a --select prefix happens to cover it
    assert "HZ105" in reduce_rules and "HZ102" not in reduce_rules
    for asked in (("--enable", "hz10"), ("--select", "HZ105,HZ102")):
        _, data = as_json("src", *asked, "--fail-on", "info")
        assert ("reduce.cu", 4, "HZ102") in _found(data), asked
    _, data = as_json("src", "--select", "HZ1", "--fail-on", "info")
    assert "HZ102" not in {r for _, _, r in _found(data)}
    config = tree / ".hipify-py.yaml"
    config.write_text(config.read_text() + "enable: [HZ102]\n")
    _, data = as_json("src", "--fail-on", "info")
    assert ("reduce.cu", 4, "HZ102") in _found(data)
    # --select / --ignore over what the files left
    _, data = as_json("src", "--select", "HZ10", "--ignore", "HZ102,hz106", "--fail-on", "info")
    assert {r for _, _, r in _found(data)} == {"HZ105"}
    # the baseline hides what it knows; a new finding still fails the run
    assert invoke("src", "--write-baseline", "base.json")[0] == 0
    assert invoke("src", "--baseline", "base.json")[0] == 0
    (tree / "src" / "new.cu").write_text(LANES.format(name="added", tail=""))
    code, data = as_json("src", "--baseline", "base.json")
    assert code == 1 and _found(data) == {("new.cu", 1, "HZ105")}
    # --fail-on decides which of the findings left fail: the managed-memory warning alone does not
    for name in ("lanes.cu", "reduce.cu", "new.cu", "vendor.cu"):
        (tree / "src" / name).unlink()
    assert invoke("src")[0] == 0
    assert invoke("src", "--fail-on", "warning")[0] == 1


def test_patterns_match_by_prefix_case_and_all() -> None:
    assert matches_rule("hz101", ("HZ1",)) and matches_rule("HZ101", ("ALL",))
    assert not matches_rule("HZ201", ("HZ1",)) and not matches_rule("HZ101", ())


def test_a_source_files_macro_it_never_expands_reports_nothing(nvcc: str, tmp_path: Path) -> None:
    """No code holds the body of a source file's macro that it never names again: its CUDA
    names are never compiled (100-days-cuda's unused `CHECK_CUDNN`, round 42: a false HZ300).
    Expanded once, the body is code; a header's macro may be expanded by its includers."""
    src = """#include <cstdio>
#include <cuda_runtime.h>
#define CHECK_INIT(dev) { cudaError_t e = cudaInitDevice(dev, 0, 0); if (e) printf("init"); }
#define CHECK_CUDA(call) { cudaError_t e = call; if (e) printf("%s\\n", cudaGetErrorString(e)); }
int main() {
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}
"""
    (tmp_path / "k.cu").write_text(src)
    assert_nvcc_builds(nvcc, [tmp_path / "k.cu"], [], tmp_path)
    assert only("HZ300", src) == []
    expanded = src.replace("  return 0;", "  CHECK_INIT(0);\n  return 0;")
    assert [f.line for f in only("HZ300", expanded)] == [3]
    assert [f.line for f in only("HZ300", src, path="check.cuh")] == [3]
