"""``--shard I/N`` splits a tree's files between CI jobs; ``merge-reports`` puts their reports
back together as the report of the whole tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner

from hipify_py import cache as cache_mod
from hipify_py.cli import root
from hipify_py.shard import ShardError, parse_shard, select, shard_of

SHUFFLE = """__global__ void k{n}(float* a) {{
  float v = a[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  a[threadIdx.x & 31] = v;
}}
void run{n}(float* a, cudaStream_t s) {{
  k{n}<<<1, 64>>>(a);
  cudaDeviceSynchronize();
  float* b;
  cudaMallocAsync(&b, 64, s);
  cudaFree(b);
}}
"""
SHARDS = 3


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cache_mod, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    for n in range(14):
        path = tmp_path / "src" / f"d{n % 4}" / f"k{n}.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SHUFFLE.format(n=n))
    (tmp_path / "src" / "bad.cu").write_bytes(b"\0\0binary")  # a failure in one shard
    (tmp_path / "src" / "CMakeLists.txt").write_text("project(p CUDA)\nadd_library(k d0/k0.cu)\n")
    return tmp_path


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(root, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def main(*args: object) -> tuple[int, str]:
    """The command as a user runs it (one-line errors come from its ``main``)."""
    done = subprocess.run(
        [sys.executable, "-m", "hipify_py", *map(str, args)], capture_output=True, text=True
    )
    return done.returncode, done.stderr


def merged(*reports: str) -> str:
    code, output = cli("merge-reports", *reports, "-o", "merged.json")
    assert code == 0, output
    return Path("merged.json").read_text()


def test_shard_values_are_checked():
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "1", "a/b", "1/0", "-1/2", "1/2/3"):
        with pytest.raises(ShardError):
            parse_shard(bad)
    code, output = main("check", ".", "--shard", "3/2")
    assert code == 2 and output.count("\n") == 1 and "--shard" in output, output


def test_shards_split_the_files_and_new_files_move_no_others():
    rels = [PurePosixPath(f"dir{n % 7}/file{n}.cu") for n in range(200)]
    parts = [select(rels, (i, 4), lambda r: r) for i in range(1, 5)]
    assert sorted(r for p in parts for r in p) == sorted(rels)
    assert all(20 < len(p) < 80 for p in parts)  # spread, not all in one
    before = {r: shard_of(r, 4) for r in rels}
    more = rels + [PurePosixPath(f"new/file{n}.cu") for n in range(50)]
    assert all(shard_of(r, 4) == before[r] for r in more if r in before)
    assert select(rels, None, lambda r: r) == rels


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_merged_check_reports_of_the_shards_equal_the_whole_run(tree, fmt):
    code, whole = cli("check", "src", "--format", fmt, "-j", "1", "--no-cache")
    assert code == 1
    reports = []
    for i in range(1, SHARDS + 1):
        _, part = cli("check", "src", "--format", fmt, "--shard", f"{i}/{SHARDS}", "-j", "1")
        assert part != whole
        Path(f"part{i}.{fmt}").write_text(part)
        reports.append(f"part{i}.{fmt}")
    assert merged(*reports) == whole
    assert merged(*reversed(reports)) == whole  # in any order


def test_merged_in_sync_reports_list_stale_and_orphaned_files_once(tree):
    assert cli("convert", "src", "--out-dir", "hip", "-j", "1", "-q")[0] == 1  # bad.cu
    (tree / "hip" / "d1" / "k1.hip").write_text("// stale\n")
    (tree / "src" / "d2" / "k2.cu").unlink()  # hip/d2/k2.hip is orphaned
    _, whole = cli("check", "src", "--in-sync", "hip", "--format", "json", "-j", "1")
    stale = [f["data"]["status"] for f in json.loads(whole)["findings"] if f["rule"] == "HZ001"]
    assert sorted(stale) == ["orphaned", "stale"]
    for i in range(1, SHARDS + 1):
        args = ("check", "src", "--in-sync", "hip", "--format", "json", "--shard")
        Path(f"p{i}.json").write_text(cli(*args, f"{i}/{SHARDS}")[1])
    assert merged(*(f"p{i}.json" for i in range(1, SHARDS + 1))) == whole


def test_convert_shards_make_the_whole_tree_and_summaries_that_merge(tree):
    cli("convert", "src", "--out-dir", "whole", "-j", "1", "-q", "--json", "whole.json")
    for i in range(1, SHARDS + 1):
        shard = ("--shard", f"{i}/{SHARDS}", "--json", f"s{i}.json")
        cli("convert", "src", "--out-dir", "parts", "-j", "1", "-q", *shard)
    summaries = [json.loads(Path(f"s{i}.json").read_text()) for i in range(1, SHARDS + 1)]
    assert all(s["files"]["scanned"] for s in summaries)
    assert json.loads(merged(*(f"s{i}.json" for i in range(1, SHARDS + 1)))) == json.loads(
        Path("whole.json").read_text()
    )

    def files(top: Path) -> dict[str, bytes]:
        return {
            p.relative_to(top).as_posix(): p.read_bytes() for p in top.rglob("*") if p.is_file()
        }

    assert files(tree / "parts") == files(tree / "whole")  # the manifest too


def test_merge_refuses_reports_that_do_not_go_together(tree):
    cli("check", "src", "--format", "json", "-o", "a.json", "-j", "1")
    cli("check", "src", "--format", "sarif", "-o", "b.sarif", "-j", "1")
    Path("c.json").write_text("[1, 2]")
    Path("d.json").write_text("{not json")
    for pair in (("a.json", "b.sarif"), ("a.json", "c.json"), ("a.json", "d.json")):
        code, output = main("merge-reports", *pair)
        assert code == 2 and output.startswith("hipify-py: error:"), output
        assert output.count("\n") == 1, output
