"""The per-file result cache: the same results with and without it, only changed files redone,
and a cache file that is not whole never costs more than the cache itself."""

from __future__ import annotations

import base64
import json
import os
import shutil
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py import cache as cache_mod
from hipify_py import cache_records, runner
from hipify_py import output as output_mod
from hipify_py.cache_records import pack_edits
from hipify_py.cli import root
from hipify_py.output.manifest import MANIFEST_NAME

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float* a, int n) {
  float v = a[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) a[blockIdx.x] = v * warpSize;
  unsigned voters = __ballot_sync(__activemask(), v > 0.f);
  a[n] = voters;
}
void run(float* a, int n) {
  reduce<<<n / 256, 256>>>(a, n);
  cudaDeviceSynchronize();
}
"""
FENCE = """__global__ void k(float* x) {
  x[threadIdx.x] = 1.f;
  cudaMallocManaged(0, 1 << 20);
}
"""
CMAKE = "project(p LANGUAGES CXX CUDA)\nadd_library(k kern.cu sub/fence.cu)\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small project, and a cache directory of its own for this test."""
    monkeypatch.setattr(cache_mod, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "kern.cu").write_text(KERNEL)
    (src / "sub" / "fence.cu").write_text(FENCE)
    (src / "sub" / "helpers.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "notes.txt").write_text("cudaMalloc stays here\n")
    (src / "latin1.cu").write_bytes("// caf\xe9\ncudaFree(p);\n".encode("latin-1"))
    return tmp_path


@pytest.fixture
def converted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the pipeline actually converts (not taken from the cache)."""
    seen: list[str] = []
    real = runner._convert

    def counting(candidate, *args, **kwargs):
        seen.append(candidate.path.name)
        return real(candidate, *args, **kwargs)

    monkeypatch.setattr(runner, "_convert", counting)
    return seen


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(root, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def convert(out: str, *args: object) -> tuple[int, dict, dict[str, bytes]]:
    """convert src -> out with a JSON summary: (exit code, summary, output tree)."""
    code, _ = cli("convert", "src", "--out-dir", out, "-j", "1", "-q", "--json", "s.json", *args)
    return code, json.loads(Path("s.json").read_text()), snapshot(Path(out))


def snapshot(top: Path) -> dict[str, bytes]:
    return {
        p.relative_to(top).as_posix(): p.read_bytes()
        for p in sorted(top.rglob("*"))
        if p.is_file() and p.name != MANIFEST_NAME
    }


def test_cold_warm_no_change_and_no_cache_runs_give_the_same_results(tree, converted):
    cold = convert("out")
    assert cold[0] == 0 and len(converted) == 5  # 4 CUDA sources and the CMakeLists.txt
    assert cold[1]["findings_by_rule"] and cold[1]["files"]["converted"] >= 2
    manifest = (tree / "out" / MANIFEST_NAME).read_bytes()

    converted.clear()
    assert convert("out") == cold  # no change: nothing converted, nothing rewritten
    assert converted == []
    assert (tree / "out" / MANIFEST_NAME).read_bytes() == manifest

    assert convert("warm") == cold  # a new output tree, written from the cache
    assert converted == []

    assert convert("nocache", "--no-cache") == cold
    assert len(converted) == 5


def test_an_edited_file_is_the_only_one_converted_again(tree, converted):
    convert("out")
    converted.clear()
    fence = tree / "src" / "sub" / "fence.cu"
    fence.write_text(
        FENCE.replace("cudaMallocManaged(0, 1 << 20);", "cudaMallocManaged(0, 1 << 20);\n  ")
    )
    code, summary, files = convert("out")
    assert converted == ["fence.cu"]
    converted.clear()
    assert convert("fresh", "--no-cache")[1:] == (summary, files)


def test_a_touched_file_is_hashed_not_converted(tree, converted):
    convert("out")
    converted.clear()
    kern = tree / "src" / "kern.cu"
    os.utime(kern, ns=(kern.stat().st_atime_ns, kern.stat().st_mtime_ns + 10**9))
    convert("out")
    assert converted == []
    (record,) = [
        r
        for f in (tree / "cache" / "files").iterdir()
        for r in json.loads(f.read_text())["files"].values()
        if r["given"].endswith("kern.cu")
    ]
    assert record["stat"][0] == kern.stat().st_mtime_ns  # next time the stat decides again


def test_output_edited_by_hand_is_still_refused_and_a_deleted_one_rewritten(tree, converted):
    _, _, files = convert("out")
    hip = tree / "out" / "kern.hip"
    hip.write_text("// my edit\n")
    code, output = cli("convert", "src", "--out-dir", "out", "-j", "1", "-q")
    assert code == 1 and "was edited since hipify-py wrote it" in output
    assert hip.read_text() == "// my edit\n"
    hip.unlink()
    assert convert("out")[2] == files


def test_an_unchanged_output_is_not_read_but_a_same_size_edit_with_its_old_mtime_is_seen(
    tree, converted, monkeypatch
):
    """A no-change re-run trusts an output whose size, inode, mtime and ctime are the ones the
    manifest recorded (it is not read again); an edit that keeps the size and puts the mtime
    back still changes the ctime, so it is read and refused."""
    convert("out")
    reads: list[str] = []
    original = output_mod.read_regular

    def counting(path, *args, **kwargs):
        reads.append(str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(output_mod, "read_regular", counting)
    convert("out")
    assert not [r for r in reads if "/out/" in r], reads
    hip = tree / "out" / "kern.hip"
    before = hip.stat()
    text = hip.read_text()
    hip.write_text(text[:-2] + "x\n")  # same size
    os.utime(hip, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert hip.stat().st_size == before.st_size and hip.stat().st_mtime_ns == before.st_mtime_ns
    code, output = cli("convert", "src", "--out-dir", "out", "-j", "1", "-q")
    assert code == 1 and "was edited since hipify-py wrote it" in output


def test_options_that_change_results_are_part_of_the_key(tree, converted):
    convert("out")
    converted.clear()
    code, summary, files = convert("annotated", "--annotate")
    assert len(converted) == 5
    assert b"hipify-py[" in files["kern.hip"]
    converted.clear()
    assert convert("annotated", "--annotate")[1:] == (summary, files)
    assert converted == []


def test_dry_run_diff_is_the_same_from_the_cache(tree, converted):
    convert("out")
    first = cli("convert", "src", "--dry-run", "-j", "1", "-q")
    second = cli("convert", "src", "--dry-run", "-j", "1", "-q", "--no-cache")
    assert first == second and "+#include <hip/hip_runtime.h>" in first[1]


def test_check_findings_are_the_same_from_the_cache(tree, converted):
    reports = []
    for extra in ((), (), ("--no-cache",)):
        for fmt in ("json", "sarif", "text"):
            reports.append(cli("check", "src", "--format", fmt, "-j", "1", *extra))
    assert reports[0:3] == reports[3:6] == reports[6:9]
    assert json.loads(reports[0][1])["findings"]
    assert converted.count("kern.cu") == 4  # once cold, three times with --no-cache


def test_check_in_sync_uses_the_conversion_cache(tree, converted):
    convert("out")
    converted.clear()
    expected = cli("check", "src", "--in-sync", "out", "-j", "1", "--format", "json")
    assert converted == ["CMakeLists.txt"]  # check knows no renames: its build files differ
    converted.clear()
    assert cli("check", "src", "--in-sync", "out", "-j", "1", "--format", "json") == expected
    assert converted == []
    assert [f for f in json.loads(expected[1])["findings"] if f["rule"] == "HZ001"] == []
    (tree / "out" / "kern.hip").write_text("// stale\n")
    code, output = cli("check", "src", "--in-sync", "out", "-j", "1", "--format", "json")
    assert converted == []
    assert (code, output) == cli(
        "check", "src", "--in-sync", "out", "-j", "1", "--format", "json", "--no-cache"
    )
    stale = [f["data"]["status"] for f in json.loads(output)["findings"] if f["rule"] == "HZ001"]
    assert stale == ["stale"]


def test_no_cache_for_parses_that_read_headers(tree, converted):
    (tree / "inc").mkdir()
    convert("out", "-I", "inc")
    assert not (tree / "cache" / "files").exists()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b'{"format": 1, "key": ',  # truncated
        b"\xff\xfe garbage \x00",
        b"[1, 2, 3]",  # foreign JSON
        b'{"format": 99, "files": {}}',
        b"[" * 100_000,  # nesting
    ],
)
def test_a_cache_file_that_is_not_whole_is_ignored(tree, converted, content):
    _, summary, files = convert("out")
    (path,) = (tree / "cache" / "files").glob("*.json")
    path.write_bytes(content)
    converted.clear()
    assert convert("out")[1:] == (summary, files)
    assert convert("again")[1:] == (summary, files)


@pytest.mark.parametrize(
    "change",
    [
        {"findings": [["HZ999"]]},
        {"edits": pack_edits([[5, 2, "x", "r"]])},
        {"edits": '[[0, 1, "x"'},  # not packed
        {"edits": pack_edits([[0, 1, "x"]])[:-8]},  # a packed list, truncated
        {"status": "converted", "conversions": []},
        {"stat": "now", "sha": 7},
        {"problems": None},
        {"findings": [[1, "nonsense", 0, 0, "", None, "", 0, 0, False, {}]]},
    ],
)
def test_a_record_of_the_wrong_shape_is_a_miss(tree, converted, change):
    """The right key, every record changed so: each file is converted afresh, as if uncached."""
    _, summary, files = convert("out")
    (path,) = (tree / "cache" / "files").glob("*.json")
    doc = json.loads(path.read_text())
    for record in doc["files"].values():
        record.update(change)
    path.write_text(json.dumps(doc))
    converted.clear()
    assert convert("out")[1:] == (summary, files)
    assert convert("again")[1:] == (summary, files)
    assert "kern.cu" in converted  # its record was no use


def test_a_cache_path_that_is_not_a_file_is_ignored(tree, converted):
    _, summary, files = convert("out")
    (path,) = (tree / "cache" / "files").glob("*.json")
    path.unlink()
    path.mkdir()
    assert convert("out")[1:] == (summary, files)
    path.rmdir()
    (tree / "elsewhere.json").write_text("{}")
    path.symlink_to(tree / "elsewhere.json")
    assert convert("out")[1:] == (summary, files)
    assert (tree / "elsewhere.json").read_text() == "{}"  # replaced the link, not its target


def test_the_cache_stays_in_its_directory_and_is_bounded(tree, converted, monkeypatch):
    monkeypatch.setattr(cache_mod, "MAX_CACHE_FILES", 2)
    (tree / "cache").mkdir()
    (tree / "cache" / "files").mkdir()
    (tree / "cache" / "files" / "mine.txt").write_text("not ours")
    left = tree / "cache" / "files" / f".{'0' * 32}.json.1-0.tmp"  # a run killed while saving
    left.write_text("{")
    os.utime(left, (0, 0))
    for version in ("6.4", "7.0", "7.1", "7.2"):
        convert(f"out-{version}", "--target-rocm", version)
    kept = sorted(p.name for p in (tree / "cache" / "files").iterdir())
    assert len(kept) == 3 and "mine.txt" in kept  # two cache files, and the stranger's file
    assert {p.parent for p in (tree / "cache").rglob("*")} <= {
        tree / "cache",
        tree / "cache" / "files",
    }
    # records of files that are gone are dropped when the cache is saved
    (tree / "src" / "sub" / "fence.cu").unlink()
    convert("out-7.2", "--target-rocm", "7.2")
    newest = max((tree / "cache/files").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    records = json.loads(newest.read_text())["files"]
    assert records and all(not k.endswith("fence.cu") for k in records)


def test_a_symlinked_cache_directory_is_not_written(tree, converted):
    elsewhere = tree / "elsewhere"
    elsewhere.mkdir()
    (tree / "cache").mkdir()
    (tree / "cache" / "files").symlink_to(elsewhere)
    convert("out")
    assert list(elsewhere.iterdir()) == []


def test_adding_a_cu_file_redoes_the_build_files_only(tree, converted):
    convert("out")
    converted.clear()
    (tree / "src" / "more.cu").write_text(FENCE)
    convert("out")
    assert sorted(converted) == ["CMakeLists.txt", "more.cu"]


def test_in_place_and_stdout_runs_are_the_same_from_the_cache(tree, converted):
    shutil.copytree(tree / "src", tree / "copy")
    first = cli("convert", "src", "--in-place", "-j", "1", "-q")
    again = cli("convert", "src", "--in-place", "-j", "1", "-q")  # the HIP files: unchanged
    assert first[0] == again[0] == 0
    assert snapshot(tree / "src") != snapshot(tree / "copy")
    uncached = cli("convert", "copy", "--in-place", "-j", "1", "-q", "--no-cache")
    assert uncached[0] == 0
    assert snapshot(tree / "src") == snapshot(tree / "copy")  # backups (.prehip) included
    converted.clear()
    one = cli("convert", "copy/kern.cu", "--stdout")
    assert one == cli("convert", "copy/kern.cu", "--stdout") and "hipLaunchKernelGGL" in one[1]
    assert converted == ["kern.cu"]


def test_recorded_edits_unpack_within_a_bound(monkeypatch):
    """A record's packed edits inflate to at most EDITS_LIMIT bytes; past it (a damaged or
    hostile cache file) they are malformed, which makes the file a miss, not a memory spike."""
    packed = pack_edits([[0, 1, "x" * 100, "r", 0]])
    assert [e.text for e in cache_records._RecordedEdits(packed)] == ["x" * 100]
    padded = base64.b64encode(zlib.compress(b"[]" + b" " * 1000)).decode()  # JSON at any cut
    assert list(cache_records._RecordedEdits(padded)) == []
    monkeypatch.setattr(cache_records, "EDITS_LIMIT", 64)
    for text in (packed, padded):
        with pytest.raises(ValueError):
            list(cache_records._RecordedEdits(text))
