"""`hipify-py check` through click's CliRunner: exit codes, stale HIP output, baselines,
select/ignore, project config and inline suppression."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli.check import check
from hipify_py.cli.convert import convert
from hipify_py.output.manifest import MANIFEST_NAME
from hipify_py.report.formats import load_formats

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
    v += __shfl_down_sync(0xffffffffULL, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
  out[1] = warpSize;  // the hardware warp too: the 32-lane loop and lane test disagree with it
  unsigned voters = __ballot_sync(__activemask(), v > 0.f);
  out[2] = voters;
}
"""

WARNING_ONLY = """void k(float* x, cudaStream_t s) {
  cudaMallocAsync(&x, 64, s);
  cudaFree(x);
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
    assert "1 warning" in out and "HZ406" in out
    code, _ = invoke("src", "--fail-on", "warning")
    assert code == 1
    code, data = as_json("src", "--fail-on", "info")
    assert code == 1 and data["summary"]["files"] == 2


def test_errors_exit_1_one_finding_per_line_summary_last(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    code, out = invoke("src")
    assert code == 1
    lines = out.splitlines()
    findings = [line for line in lines if re.match(r"^src/reduce\.cu:\d+:\d+: HZ\d{3} ", line)]
    assert {line.split()[1] for line in findings} >= {"HZ105", "HZ106"}
    assert lines[-1].startswith("2 errors, 1 warning")  # the summary comes last
    assert "^~~~" not in out  # piped: no source context, so tools read one line per finding
    code, quiet = invoke("src", "-q")
    assert code == 1 and quiet.splitlines() == lines[:-1]  # -q keeps every finding


def test_usage_errors_exit_2(tree):
    assert invoke("missing-dir")[0] == 2
    assert invoke("src", "--format", "xml")[0] == 2
    assert invoke("src", "--select", "XY9")[0] == 2
    assert invoke("src", "--fail-on", "fatal")[0] == 2
    assert invoke("src", "--keep-names")[0] == 2
    assert invoke("src", "--baseline", "a.json", "--write-baseline", "b.json")[0] == 2


def _stale(data: dict) -> list[dict]:
    """The HZ001 findings (committed HIP output missing, stale or orphaned) of a JSON report."""
    return [f for f in data["findings"] if f["rule"] == "HZ001"]


def test_in_sync_up_to_date_stale_and_missing(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    made = CliRunner().invoke(convert, ["src", "--out-dir", "hip", "-q"], catch_exceptions=False)
    assert made.exit_code == 0, made.output
    assert (tree / "hip" / "scale.hip").is_file()
    # hazards fail on their own; ignore them to look at synchronisation only
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 0, out
    # a CUDA change that was not regenerated
    (tree / "src" / "scale.cu").write_text(CLEAN.replace("*= a", "*= a + 1"))
    code, data = as_json("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1
    assert [(s["path"], s["data"]["status"], s["line"]) for s in _stale(data)] == [
        ("hip/scale.hip", "stale", 4)
    ]
    # a new CUDA file with no HIP copy; --out-dir is the same option
    (tree / "src" / "new.cu").write_text(CLEAN)
    code, out = invoke("src", "--out-dir", "hip", "--ignore", "HZ")
    assert code == 1 and "hip/new.hip is missing" in out


def test_in_sync_keep_names(tree):
    made = CliRunner().invoke(
        convert, ["src", "--out-dir", "hip", "--keep-names", "-q"], catch_exceptions=False
    )
    assert made.exit_code == 0, made.output
    assert invoke("src", "--in-sync", "hip", "--keep-names")[0] == 0
    assert invoke("src", "--in-sync", "hip")[0] == 0  # the manifest says --keep-names
    (tree / "hip" / MANIFEST_NAME).unlink()
    assert invoke("src", "--in-sync", "hip")[0] == 1  # without it: expects .hip names


def test_select_and_ignore_with_prefixes(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    _, data = as_json("src", "--fail-on", "info")
    assert {f["rule"] for f in data["findings"]} == {"HZ105", "HZ106", "HZ406"}
    _, data = as_json("src", "--select", "HZ1")
    assert {f["rule"] for f in data["findings"]} == {"HZ105", "HZ106"}
    _, data = as_json("src", "--select", "HZ1,HZ4", "--ignore", "HZ105", "--ignore", "hz106")
    assert {f["rule"] for f in data["findings"]} == {"HZ406"}
    code, data = as_json("src", "--ignore", "HZ1")
    assert code == 0 and {f["rule"] for f in data["findings"]} == {"HZ406"}


def test_baseline_hides_known_findings_even_after_edits_elsewhere(tree):
    reduce = tree / "src" / "reduce.cu"
    reduce.write_text(HAZARDS)
    code, out = invoke("src", "--write-baseline", "baseline.json")
    assert code == 0
    recorded = json.loads((tree / "baseline.json").read_text())["findings"]
    assert {e["rule"] for e in recorded} == {"HZ105", "HZ106", "HZ406"}
    assert all("line" not in e for e in recorded)
    assert invoke("src", "--baseline", "baseline.json")[0] == 0
    # lines move: still known
    reduce.write_text("// a new header comment\n\n" + HAZARDS)
    code, data = as_json("src", "--baseline", "baseline.json")
    assert code == 0 and data["findings"] == [] and data["summary"]["baselined"] == 3
    # a second copy of a known line is new (occurrence index), and so is a new hazard
    reduce.write_text(
        HAZARDS.replace(
            "  if ((threadIdx.x & 31) == 0)",
            "  unsigned more = __ballot_sync(__activemask(), v < 0.f); (void)more;\n"
            "  if ((threadIdx.x & 31) == 0)",
        )
    )
    code, data = as_json("src", "--baseline", "baseline.json")
    assert code == 1
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("HZ105", 6)]


def test_bad_baseline_is_a_usage_error(tree):
    (tree / "baseline.json").write_text("{not json")
    assert invoke("src", "--baseline", "baseline.json")[0] == 2


def test_project_config_ignore_and_per_file_ignores(tree):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    (tree / ".hipify-py.yaml").write_text(
        "ignore: [HZ106]\nper-file-ignores:\n  'src/sub/*.cu': [HZ4]\n  reduce.cu: HZ102\n"
    )
    _, data = as_json("src", "--fail-on", "info")
    assert {(Path(f["path"]).name, f["rule"]) for f in data["findings"]} == {("reduce.cu", "HZ105")}
    _, data = as_json("src", "--no-config")
    assert {f["rule"] for f in data["findings"]} == {"HZ105", "HZ106", "HZ406"}
    (tree / ".hipify-py.yaml").write_text("ignore: HZ1\n")
    assert invoke("src")[0] == 2  # a list is required


def test_inline_suppression_through_the_cli(tree):
    (tree / "src" / "reduce.cu").write_text(
        HAZARDS.replace("  unsigned voters", "  // hipify-py: ignore[HZ105]\n  unsigned voters")
        .replace("  for (int off", "  // hipify-py: ignore[HZ102, HZ106]\n  for (int off")
        .replace("    v += __shfl", "    // hipify-py: ignore[HZ106]\n    v += __shfl")
    )
    code, out = invoke("src")
    assert code == 0, out


def test_output_file_and_hip_sources(tree):
    (tree / "ported.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* o) {\n"
        "  unsigned m = __ballot(o[0] > 0);\n  o[1] = __popc(m);\n}\n"
    )
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
    assert sorted(Path(f["path"]).name for f in data["findings"]) == [f"r{n}.cu" for n in range(5)]


# ----------------------------------------------------------------------------- QA regressions


def _convert(*args):
    made = CliRunner().invoke(convert, [str(a) for a in args] + ["-q"], catch_exceptions=False)
    assert made.exit_code == 0, made.output


@pytest.mark.parametrize(
    "flags",
    [
        ["--fix"],
        ["--unsafe-fixes"],
        ["--annotate"],
        ["--launch-syntax", "cuda"],
        ["--fix", "--annotate", "--launch-syntax", "cuda"],
    ],
)
def test_in_sync_reproduces_convert_options(tree, flags):
    (tree / "src" / "reduce.cu").write_text(HAZARDS)
    _convert("src", "--out-dir", "hip", *flags)
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ", *flags)
    assert code == 0, out
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 0, out  # the options recorded in the manifest: no repeated flags
    (tree / "hip" / MANIFEST_NAME).unlink()
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1 and "out of sync" in out  # the default options give different output


def test_in_sync_keep_names_keeps_included_cu_names(tree):
    (tree / "src" / "kernels.cu").write_text("__global__ void k() {}\n")
    (tree / "src" / "main.cu").write_text('#include "kernels.cu"\nint main() { return 0; }\n')
    _convert("src", "--out-dir", "hip", "--keep-names")
    assert '#include "kernels.cu"' in (tree / "hip" / "main.cu").read_text()
    code, out = invoke("src", "--in-sync", "hip", "--keep-names")
    assert code == 0, out


def test_convert_flags_need_in_sync(tree):
    for flags in (["--fix"], ["--annotate"], ["--unsafe-fixes"], ["--launch-syntax", "cuda"]):
        code, out = invoke("src", *flags)
        assert code == 2 and "--in-sync" in out


def test_stale_output_is_an_error_whatever_is_selected(tree):
    _convert("src", "--out-dir", "hip")
    (tree / "hip" / "scale.hip").write_text("// edited by hand\n")
    code, out = invoke("src", "--in-sync", "hip", "--select", "HZ0")
    assert code == 1
    assert "out of sync" in out and "1 error," in out
    code, data = as_json("src", "--in-sync", "hip", "--select", "HZ4")
    assert code == 1 and data["summary"]["errors"] == 1 and len(_stale(data)) == 1
    # a prefix ignore keeps it; naming HZ001 hides it
    assert invoke("src", "--in-sync", "hip", "--ignore", "HZ")[0] == 1
    code, data = as_json("src", "--in-sync", "hip", "--ignore", "HZ001")
    assert code == 0 and _stale(data) == [] and data["summary"]["errors"] == 0
    (tree / ".hipify-py.yaml").write_text("per-file-ignores:\n  scale.cu: [HZ001]\n")
    assert invoke("src", "--in-sync", "hip")[0] == 0
    (tree / ".hipify-py.yaml").write_text("ignore: [HZ001]\n")
    assert invoke("src", "--in-sync", "hip")[0] == 0


def test_a_baseline_never_hides_stale_output(tree):
    _convert("src", "--out-dir", "hip")
    (tree / "hip" / "scale.hip").write_text("// edited by hand\n")
    code, out = invoke("src", "--in-sync", "hip", "--write-baseline", "bl.json")
    assert code == 0 and "recorded 1 finding(s)" in out  # the HZ406 warning, not HZ001
    recorded = json.loads((tree / "bl.json").read_text())["findings"]
    assert [e["rule"] for e in recorded] == ["HZ406"]
    code, data = as_json("src", "--in-sync", "hip", "--baseline", "bl.json")
    assert code == 1 and data["summary"]["baselined"] == 1
    assert [f["rule"] for f in data["findings"]] == ["HZ001"]


@pytest.mark.parametrize("fmt", sorted(load_formats()))
def test_every_registered_format_is_a_format_choice(tree, fmt):
    code, out = invoke("src", "--format", fmt)
    assert code == 0 and "HZ406" in out


def test_non_utf8_config_is_one_line_error(tree):
    (tree / ".hipify-py.yaml").write_bytes(b"ignore: [HZ4]\n# caf\xe9\n")
    for command, args in ((check, ["src"]), (convert, ["src", "--dry-run"])):
        result = CliRunner().invoke(command, args)
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "not UTF-8" in lines[0], result.output
        assert f"cannot read {tree / '.hipify-py.yaml'}: not UTF-8" in lines[0]
    # --no-config reads neither its ignore: nor its mappings:
    assert invoke("src", "--no-config")[0] == 0


def test_no_config_skips_config_mappings(tree):
    (tree / "src" / "sub" / "fence.cu").unlink()
    (tree / "src" / "scale.cu").write_text("void f() { cudaDeviceReset(); }\n")
    (tree / ".hipify-py.yaml").write_text(
        "mappings:\n- {cuda: cudaDeviceReset, kind: function, status: unsupported}\n"
    )
    code, data = as_json("src")
    assert code == 1 and {f["rule"] for f in data["findings"]} == {"HZ300"}
    code, data = as_json("src", "--no-config")
    assert code == 0 and data["findings"] == []


@pytest.mark.parametrize(
    "text",
    [
        "ignore: [NOPE]\n",
        "ignore: [HZ4, hz9x]\n",
        "per-file-ignores:\n  '*.cu': [XYZ1]\n",
    ],
)
def test_unknown_rule_ids_in_config(tree, text):
    (tree / ".hipify-py.yaml").write_text(text)
    result = CliRunner().invoke(check, ["src"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and ".hipify-py.yaml" in lines[0]
    assert "no rule ID starts with" in lines[0]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[]", "top level is a list"),
        ('{"version": 1}', "no 'findings' key"),
        ('{"findings": {"rule": "HZ101"}}', "'findings' is a object"),
        ('{"findings": [["HZ101"]]}', "finding 0 is a list"),
        (
            '{"findings": [{"rule": "HZ101", "line_text": "x", "occurrence": 0}]}',
            "finding 0 has no 'path'",
        ),
        (
            '{"findings": [{"rule": "HZ101", "path": "a.cu", "line_text": "x", '
            '"occurrence": "z"}]}',
            "'occurrence' is not a non-negative integer",
        ),
        ('{"version": 7, "findings": []}', "unsupported version 7"),
    ],
)
def test_malformed_baseline_messages(tree, text, reason):
    (tree / "bl.json").write_text(text)
    code, out = invoke("src", "--baseline", "bl.json")
    assert code == 2
    assert "cannot read baseline bl.json: not a hipify-py baseline (" in out
    assert reason in out
    (tree / "bl.json").write_bytes(b'{"findings": ["\xff"]}')
    code, out = invoke("src", "--baseline", "bl.json")
    assert code == 2 and "not a hipify-py baseline (not UTF-8)" in out


def test_non_utf8_source_is_checked_and_binary_source_is_a_failure(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("latin.cu").write_bytes(
        b"void k(float* x, cudaStream_t s) { cudaMallocAsync(&x, 64, s); cudaFree(x); }"
        b" // caf\xe9\n"
    )
    Path("bin.cu").write_bytes(b"\x7fELF\0\0\0__global__")
    code, out = invoke("latin.cu")
    assert code == 0 and "HZ406" in out, out
    code, report = as_json("latin.cu", "bin.cu")
    assert code == 1
    failures = {f["path"]: f["message"] for f in report["failures"]}
    assert list(failures) == ["bin.cu"] and failures["bin.cu"].startswith("binary")
    assert [f["rule"] for f in report["findings"]] == ["HZ406"]


def test_unwritable_output_paths_are_one_line_errors(tree):
    missing = tree / "nonexist" / "dir"
    for args in (
        ("--write-baseline", missing / "x.json"),
        ("-o", missing / "x.sarif", "--format", "sarif"),
        ("-o", missing / "x.txt"),
    ):
        result = CliRunner().invoke(check, ["src", *map(str, args)])
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert f"cannot write {missing}" in result.output
        assert "Traceback" not in result.output


# ----------------------------------------------------------------------------- CI gate (issue 13)


def test_in_sync_maps_file_arguments_through_convert_layout(tree):
    _convert("src", "--out-dir", "src-hip")
    # the pre-commit hook passes files, from the project root and from elsewhere
    code, out = invoke("src/sub/fence.cu", "--in-sync", "src-hip", "--ignore", "HZ")
    assert code == 0, out
    os.chdir(tree / "src" / "sub")
    code, out = invoke("fence.cu", "--in-sync", "../../src-hip", "--ignore", "HZ")
    assert code == 0, out
    os.chdir(tree)
    # without a manifest, a DIR-hip tree still places src/sub/k.cu at DIR-hip/sub/k.hip
    (tree / "src-hip" / MANIFEST_NAME).unlink()
    code, out = invoke("src/sub/fence.cu", "--in-sync", "src-hip", "--ignore", "HZ")
    assert code == 0, out


def test_in_sync_reports_orphaned_hip_files(tree):
    _convert("src", "--out-dir", "hip")
    (tree / "src" / "sub" / "fence.cu").rename(tree / "src" / "sub" / "barrier.cu")
    code, data = as_json("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1
    statuses = {(s["path"], s["data"]["status"]) for s in _stale(data)}
    assert ("hip/sub/fence.hip", "orphaned") in statuses
    assert ("hip/sub/barrier.hip", "missing") in statuses
    # a file argument elsewhere in the tree still sees the orphan (the hook's view)
    code, out = invoke("src/scale.cu", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1 and "hip/sub/fence.hip:1:1: HZ001" in out and "no longer exists" in out


def test_convert_refuses_to_overwrite_hand_edits_without_force(tree):
    _convert("src", "--out-dir", "hip")
    edited = tree / "hip" / "scale.hip"
    edited.write_text(edited.read_text() + "// tuned by hand\n")
    (tree / "src" / "scale.cu").write_text(CLEAN.replace("*= a", "*= a + 1"))
    made = CliRunner().invoke(convert, ["src", "--out-dir", "hip", "-q"])
    assert made.exit_code == 1
    assert "edited since hipify-py wrote it" in made.output and "--force" in made.output
    assert edited.read_text().endswith("// tuned by hand\n")
    # an untouched generated file is still regenerated; --force overwrites the edit
    _convert("src", "--out-dir", "hip", "--force")
    assert "a + 1" in edited.read_text() and "tuned by hand" not in edited.read_text()
    _convert("src", "--out-dir", "hip")  # and the manifest now knows the new content


def test_unknown_config_key_names_the_key(tree):
    (tree / ".hipify-py.yaml").write_text("ignroe: [HZ1]\n")
    result = CliRunner().invoke(check, ["src"])
    assert result.exit_code == 2
    assert "unknown key `ignroe`" in result.output


def test_config_option_applies_that_files_mappings_too(tree):
    (tree / "src" / "sub" / "fence.cu").write_text("void f() { cudaTeamApi(); }\n")
    other = tree / "other.yaml"
    other.write_text(
        "mappings:\n- {cuda: cudaTeamApi, kind: function, status: unsupported}\nignore: [HZ406]\n"
    )
    _, data = as_json("src", "--config", str(other))
    assert [(f["rule"], Path(f["path"]).name) for f in data["findings"]] == [("HZ300", "fence.cu")]
    _, data = as_json("src")
    assert data["findings"] == []  # without it cudaTeamApi is an unknown name, not a finding


def test_fifo_as_baseline_is_an_error_not_a_hang(tree):
    os.mkfifo(tree / "base.json")
    code, out = invoke("src", "--baseline", "base.json")
    assert code == 2 and "not a regular file" in out


def test_config_ignores_decide_for_convert_fix_and_annotate_too(tmp_path, monkeypatch):
    """Rules ignored in .hipify-py.yaml are neither reported by check nor fixed or annotated by
    convert --fix --annotate (one place decides which findings exist)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the project root: config discovery stops here
    (tmp_path / ".hipify-py.yaml").write_text("ignore: [HZ101, HZ105]\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(
        "__global__ void k(int* o, int v) {\n"
        "  unsigned n = __ballot_sync(0xffffffff, v > 0);\n"
        "  o[threadIdx.x & 31] = __popc(n);\n}\n"
    )
    made = CliRunner().invoke(
        convert, ["src", "--out-dir", "hip", "--fix", "--unsafe-fixes", "--annotate", "-q"]
    )
    assert made.exit_code == 0, made.output
    out = (tmp_path / "hip" / "k.hip").read_text()
    assert "hipify-py[HZ101]" not in out and "hipify-py[HZ105]" not in out
    assert "unsigned n = " in out  # HZ105's fix (unsigned long long) not applied
    checked = CliRunner().invoke(check, ["src"])
    assert "HZ101" not in checked.output and "HZ105" not in checked.output


# --------------------------------------------------- a committed manifest is untrusted (issue 24)


def _edit_manifest(hip: Path, **changes) -> None:
    path = hip / MANIFEST_NAME
    doc = json.loads(path.read_text())
    for key, value in changes.items():
        doc[key] = {**doc[key], **value}
    path.write_text(json.dumps(doc))


def test_a_manifest_that_maps_a_source_to_a_decoy_does_not_pass_stale_output(tree):
    _convert("src", "--out-dir", "hip")
    (tree / "src" / "scale.cu").write_text(CLEAN.replace("*= a", "*= a + 1"))
    # the pull request regenerates a decoy and points the manifest at it; hip/scale.hip, the
    # file the build compiles, is stale
    _convert("src", "--out-dir", "fresh")
    (tree / "hip" / "decoy.hip").write_text((tree / "fresh" / "scale.hip").read_text())
    doc = json.loads((tree / "hip" / MANIFEST_NAME).read_text())
    entry = doc["files"].pop("scale.hip")
    doc["files"]["decoy.hip"] = entry
    (tree / "hip" / MANIFEST_NAME).write_text(json.dumps(doc))
    code, data = as_json("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 1
    assert ("hip/scale.hip", "stale") in {(s["path"], s["data"]["status"]) for s in _stale(data)}


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("extra_clang_args", ["-include", "PIPE"]),
        ("extra_clang_args", ["-Xclang", "-load"]),
        ("include_dirs", ["/etc"]),
        ("extra_clang_args", ["-I/etc"]),
        ("defines", ["X\nY"]),
        ("launch_syntax", "rm -rf"),
        ("fix", "yes"),
        ("target_rocm", "7.2; x"),
    ],
)
def test_manifest_options_outside_what_convert_writes_are_refused(tree, option, value):
    _convert("src", "--out-dir", "hip")
    fifo = tree / "pipe"
    os.mkfifo(fifo)  # libclang would wait on it forever
    value = [str(fifo) if v == "PIPE" else v for v in value] if isinstance(value, list) else value
    _edit_manifest(tree / "hip", options={option: value})
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 2 and f"option {option!r}" in out and "Traceback" not in out


def test_manifest_options_convert_writes_are_taken(tree):
    (tree / "inc").mkdir()
    _convert("src", "--out-dir", "hip")
    _edit_manifest(
        tree / "hip",
        options={"defines": ["N=4"], "extra_clang_args": ["-DM", "-Iinc", "-std=c++17"]},
    )
    code, out = invoke("src", "--in-sync", "hip", "--ignore", "HZ")
    assert code == 0, out
