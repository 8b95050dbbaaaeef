"""Mapping tables: coverage of the reference tables, schema errors, user rules, CLI, cache."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SHARED, missing
from hipify_py.cli.mappings import mappings
from hipify_py.config import Config, ConfigFileError
from hipify_py.context import Options
from hipify_py.mappings import (
    MappingError,
    hip_name,
    is_convertible,
    load_index,
    needs_newer_hip,
)
from hipify_py.mappings import load as load_mod
from hipify_py.user_mappings import user_rules

TABLES = SHARED / "reference" / "hipify-tables"
OVERRIDE_SOURCES = {"warp_sync.yaml", "overrides.yaml"}  # documented overrides of table rows


def _reference_rows():
    """(file, cuda, hip, status) for every row of *_supported_by_HIP.md, parsed independently.

    Columns are found by the header row: newer tables have a ``U`` column before ``E``.
    """
    rows = []
    for md in sorted(TABLES.glob("*_supported_by_HIP.md")):
        names: list[str] = []
        for line in md.read_text().splitlines():
            cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
            if line.startswith("|**CUDA**"):
                names = [c.strip("*") for c in cells]
            if not line.startswith("|`"):
                continue
            assert len(cells) == len(names), (md.name, line)
            hip_at = names.index("HIP")
            hip_cols = dict(zip(names[hip_at + 1 :], cells[hip_at + 1 :], strict=False))
            cuda, hip = cells[0], cells[hip_at] or None
            d, r, e = hip_cols["D"], hip_cols["R"], hip_cols["E"]
            status = (
                "unsupported" if not hip else "experimental" if e else "removed" if r
                else "deprecated" if d else "supported"
            )  # fmt: skip
            rows.append((md.name, cuda, hip, status))
    return rows


def test_every_reference_row_present():
    if not TABLES.is_dir():
        missing(f"reference tables not found at {TABLES}")
    ref = _reference_rows()
    print(f"reference rows: {len(ref)}")
    assert len(ref) == 10918
    index = load_index()
    table_rows = defaultdict(list)
    for e in index.all_entries:
        if e.source.startswith("cuda_"):
            table_rows[e.cuda].append((e.hip, e.status))
    assert sum(len(v) for v in table_rows.values()) == 10918
    by_name = defaultdict(list)
    for _, cuda, hip, status in ref:
        by_name[cuda].append((hip, status))
        assert (hip, status) in table_rows[cuda], cuda
    dup = [n for n, v in by_name.items() if len(v) > 1]
    print(f"CUDA names in more than one table: {len(dup)}")
    # The index holds one winner per name; it agrees with the table unless an override file wins.
    for cuda, variants in by_name.items():
        winner = index.get(cuda)
        assert winner is not None, cuda
        if winner.source in OVERRIDE_SOURCES or not winner.source.startswith("cuda_"):
            continue
        assert (winner.hip, winner.status) in variants, cuda


def test_warp_sync_override_and_headers():
    index = load_index()
    e = index.get("__shfl_down_sync")
    assert (e.hip, e.status, e.hip_added, e.source) == (
        "__shfl_down_sync", "supported", "7.0", "warp_sync.yaml"
    )  # fmt: skip
    assert needs_newer_hip(e, Options(target_rocm=(6, 4)))
    assert not needs_newer_hip(e, Options(target_rocm=(7, 0)))
    assert index.header("cublas_v2.h").hip == "hipblas/hipblas.h"
    assert hip_name(index.header("cublas_v2.h"), Options(roc=True)) == "rocblas/rocblas.h"
    assert index.header("cusolverDn.h").hip == "hipsolver/hipsolver.h"
    assert index.get("cub").hip == "hipcub"
    assert index.get("ncclAllReduce").hip == "ncclAllReduce"


def test_roc_and_status_helpers():
    index = load_index()
    sgemm = index.get("cublasSgemm")
    assert hip_name(sgemm, Options()) == "hipblasSgemm"
    assert hip_name(sgemm, Options(roc=True)) == "rocblas_sgemm"
    assert is_convertible(index.get("cudaMalloc"), Options())
    assert not is_convertible(index.get("cudaDeviceGetNvSciSyncAttributes"), Options())
    exp = next(e for e in index.all_entries if e.status == "experimental")
    assert not is_convertible(exp, Options())
    assert not is_convertible(exp, Options(experimental=True))  # HIP 7.13: newer than 7.1
    assert is_convertible(exp, Options(experimental=True, target_rocm=(7, 13)))
    relu = index.get("CUDNN_ACTIVATION_RELU")
    assert hip_name(relu, Options(miopen=True)) == "miopenActivationRELU"


def test_pytorch_is_opt_in():
    index = load_index()
    assert "pytorch" in index.optional_families
    assert index.header("ATen/cuda/CUDAContext.h") is None
    torch = index.with_families(["pytorch"])
    assert torch.header("ATen/cuda/CUDAContext.h").hip == "ATen/hip/HIPContext.h"
    assert torch.header("c10/cuda/CUDAGuard.h").hip == "c10/hip/HIPGuard.h"
    keep = torch.get("C10_CUDA_KERNEL_LAUNCH_CHECK")
    assert keep.hip == keep.cuda
    assert torch.get("CUDA_VERSION").hip == "TORCH_HIP_VERSION"
    assert load_index(Options(pytorch=True)).get("at::cuda::getCurrentCUDAStream") is not None


def _write(tmp_path: Path, text: str, name: str = "rules.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    ("body", "expect"),
    [
        ("- {cuda: foo, kind: function}", r"rules\.yaml: entry 0 \(foo\): field 'status'"),
        ("- {cuda: foo, kind: fn, status: supported, hip: x}", r"entry 0 \(foo\): field 'kind'"),
        ("- {cuda: a, hip: b, kind: type, status: supported}\n"
         "- {cuda: c, hip: d, kind: type, status: supported, hip_added: 7.0}",
         r"entry 1 \(c\): field 'hip_added': must be a string.*quote"),
        ("- {cuda: foo, kind: type, status: supported}", r"entry 0 \(foo\): field 'hip': required"),
        ("- {cuda: foo, hip: x, kind: type, status: ok}", r"field 'status': 'ok' is not one of"),
        ("- {cuda: foo, hip: x, kind: type, status: supported, colour: red}",
         r"field 'colour': unknown field"),
        ("- {cuda: foo, kind: fn, status: supported, hip: x}",
         r"field 'kind': 'fn' is not one of function, "),
        ("- {cuda: 'cuda Foo', hip: x, kind: type, status: supported}",
         r"entry 0 \(cuda Foo\): field 'cuda': not a C/C\+\+ identifier \(e\.g\. cudaMalloc"),
        ("- {cuda: foo, hip: x, kind: type, status: supported, hip_added: '7.x'}",
         r"entry 0 \(foo\): field 'hip_added': not a version: '7\.x'"),
        ("- {cuda: foo, hip: x, kind: type, status: supported, cuda_changed: '12.0 1a'}",
         r"field 'cuda_changed': not a version: '12\.0 1a'"),
    ],
)  # fmt: skip
def test_schema_errors_name_file_entry_field(tmp_path, body, expect):
    p = _write(tmp_path, f"family: user\nentries:\n{body}\n")
    with pytest.raises(MappingError, match=expect) as info:
        load_index(extra_files=[p])
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_schema_file_level_errors(tmp_path):
    with pytest.raises(MappingError, match=r"rules\.yaml: field 'entries': missing"):
        load_index(extra_files=[_write(tmp_path, "family: user\n")])
    with pytest.raises(MappingError, match=r"rules\.yaml:\d+:\d+: invalid YAML"):
        load_index(extra_files=[_write(tmp_path, "family: user\nentries: [\n  {a: b\n")])


def test_user_rules_win(tmp_path):
    p = _write(
        tmp_path,
        "family: user\nentries:\n"
        "- {cuda: cudaMalloc, hip: myMalloc, kind: function, status: supported}\n"
        "- {cuda: myCudaThing, hip: myHipThing, kind: function, status: supported}\n",
    )
    index = load_index(extra_files=[p])
    assert index.get("cudaMalloc").hip == "myMalloc"
    assert index.get("myCudaThing").hip == "myHipThing"
    assert index.get("cudaFree").hip == "hipFree"
    assert load_index().get("cudaMalloc").hip == "hipMalloc"  # shipped index unchanged


def test_project_config_discovery(tmp_path):
    proj = tmp_path / "proj"
    (proj / "src" / "deep").mkdir(parents=True)
    (proj / ".hipify-py.yaml").write_text(
        "mappings:\n- {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n"
    )
    files = user_rules(Config.find(proj / "src" / "deep" / "k.cu"))
    assert len(files) == 1
    assert load_index(extra_files=files).get("cudaFoo").hip == "hipFoo"

    other = tmp_path / "other"
    (other / "a").mkdir(parents=True)
    (other / "rules.yaml").write_text(
        "family: user\nentries:\n- {cuda: cudaBar, hip: hipBar, kind: type, status: supported}\n"
    )
    (other / "pyproject.toml").write_text('[tool.hipify-py]\nmappings = ["rules.yaml"]\n')
    files = user_rules(Config.find(other / "a"))
    assert [f.label for f in files] == [str((other / "rules.yaml").resolve())]
    assert load_index(extra_files=files).get("cudaBar").hip == "hipBar"

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / ".hipify-py.yaml").write_text("mappings:\n- {cuda: x, kind: nope, status: supported}\n")
    with pytest.raises(MappingError, match=r"entry 0 \(x\): field 'kind'"):
        user_rules(Config.find(bad))


# ----------------------------------------------------------------------------- CLI


def test_cli_show():
    r = CliRunner().invoke(mappings, ["show", "cudaMalloc"])
    assert r.exit_code == 0, r.output
    assert re.search(r"^hip\s+hipMalloc$", r.output, re.M)
    assert re.search(r"^status\s+supported$", r.output, re.M)
    assert re.search(r"^family\s+runtime$", r.output, re.M)
    r = CliRunner().invoke(mappings, ["show", "cublasSgemm"])
    assert re.search(r"^roc\s+rocblas_sgemm$", r.output, re.M)
    r = CliRunner().invoke(mappings, ["show", "cudaMaloc"])
    assert r.exit_code == 1
    assert "did you mean cudaMalloc" in r.output
    r = CliRunner().invoke(mappings, ["show", "cuda_runtime.h", "--json"])
    assert json.loads(r.output)["hip"] == "hip/hip_runtime.h"


def test_cli_search():
    r = CliRunner().invoke(mappings, ["search", "memcpyhosttodevice", "--json"])
    assert r.exit_code == 0
    names = {d["cuda"] for d in json.loads(r.output)}
    assert "cudaMemcpyHostToDevice" in names
    r = CliRunner().invoke(mappings, ["search", "cudaMalloc*", "--family", "runtime"])
    assert r.exit_code == 0
    assert "hipMallocManaged" in r.output and "cuMemAlloc" not in r.output
    r = CliRunner().invoke(
        mappings, ["search", "cublas*gemm*", "--status", "unsupported", "--json", "--limit", "0"]
    )
    data = json.loads(r.output)
    assert data and all(d["status"] == "unsupported" for d in data)
    r = CliRunner().invoke(mappings, ["search", "x", "--family", "nosuch"])
    assert r.exit_code == 2
    r = CliRunner().invoke(mappings, ["search", "x", "--status", "bogus"])
    assert r.exit_code == 2


def test_cli_stats():
    r = CliRunner().invoke(mappings, ["stats", "--json"])
    assert r.exit_code == 0
    data = json.loads(r.output)
    # table rows (13 + 59), 3 overrides.yaml rows (CUB_MAX, CUB_MIN, CUB_STDERR), extras.yaml's
    # CUB_WARP_THREADS and the 67 cub/*.cuh -> hipcub/*.hpp header rows of headers.yaml
    assert data["families"]["cub"] == {"supported": 13 + 67, "unsupported": 59 + 3 + 1}
    assert data["families"]["runtime"]["experimental"] == 16
    r = CliRunner().invoke(mappings, ["stats"])
    assert "runtime" in r.output and "total" in r.output


# ----------------------------------------------------------------------------- cache


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    load_mod.clear_caches()
    try:
        cold = load_index()
        cold_hit = cold.get("cudaMalloc")
        files = list((tmp_path / "cache" / "hipify-py").glob("index-*.marshal"))
        assert len(files) == 1
        load_mod.clear_caches()

        # A warm start reads the marshal cache only: parsing YAML again would defeat it.
        def no_parse(*_args, **_kwargs):
            raise AssertionError("warm load parsed a YAML table")

        with monkeypatch.context() as m:
            m.setattr(load_mod, "_parse", no_parse)
            warm = load_index()
            warm_hit = warm.get("cudaMalloc")
            assert warm_hit == cold_hit is not None
            assert len(warm.entries) == len(cold.entries)
        # Unwritable cache dir: silently no cache.
        monkeypatch.setenv("XDG_CACHE_HOME", "/proc/nonexistent")
        load_mod.clear_caches()
        assert load_index().get("cudaFree").hip == "hipFree"
    finally:
        load_mod.clear_caches()


# ----------------------------------------------------------------------------- QA regressions


@pytest.mark.parametrize(
    ("body", "expect"),
    [
        ("- {cuda: cudaFoo, hip: hipFoo, kind: function, status: supported}\n"
         "- {cuda: cudaBar, hip: hipBar, kind: function, status: supported}\n"
         "- {cuda: cudaFoo, hip: hipFoo2, kind: function, status: supported}",
         r"rules\.yaml: entry 2 \(cudaFoo\): field 'cuda': duplicate of entry 0"),
        ("- {cuda: 'cuda Foo', hip: hipFoo, kind: function, status: supported}",
         r"entry 0 \(cuda Foo\): field 'cuda': not a C/C\+\+ identifier"),
        ("- {cuda: 2cudaFoo, hip: hipFoo, kind: type, status: supported}",
         r"entry 0 \(2cudaFoo\): field 'cuda': not a C/C\+\+ identifier"),
        ("- {cuda: 'cudaFoo()', hip: hipFoo, kind: function, status: supported}",
         r"field 'cuda': not a C/C\+\+ identifier"),
        ("- {cuda: '<my cuda.h>', hip: my_hip.h, kind: header, status: supported}",
         r"entry 0 \(<my cuda.h>\): field 'cuda': not a header path"),
        ("- {cuda: ../up.h, hip: up_hip.h, kind: header, status: supported}",
         r"field 'cuda': not a header path"),
    ],
)  # fmt: skip
def test_user_mapping_duplicates_and_bad_names(tmp_path, body, expect):
    p = _write(tmp_path, f"family: user\nentries:\n{body}\n")
    with pytest.raises(MappingError, match=expect) as info:
        load_index(extra_files=[p])
    assert "\n" not in str(info.value)


def test_user_mapping_qualified_names_and_header_paths_are_fine(tmp_path):
    p = _write(
        tmp_path,
        "family: user\nentries:\n"
        "- {cuda: 'my::cuda::Stream', hip: 'my::hip::Stream', kind: type, status: supported}\n"
        "- {cuda: mylib/cuda_ext.cuh, hip: mylib/hip_ext.h, kind: header, status: supported}\n"
        "- {cuda: cudaExt, hip: hipExt, kind: function, status: supported}\n",
    )
    index = load_index(extra_files=[p])
    assert index.get("my::cuda::Stream").hip == "my::hip::Stream"
    assert index.header("mylib/cuda_ext.cuh").hip == "mylib/hip_ext.h"


def test_project_config_not_utf8(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".hipify-py.yaml").write_bytes(b"# \xff\nmappings: []\n")
    not_utf8 = r"^cannot read .*\.hipify-py\.yaml: not UTF-8 \(byte 0xff"
    with pytest.raises(ConfigFileError, match=not_utf8):
        Config.find(proj)


def test_bad_inline_mapping_names_the_config_file(tmp_path):
    config = tmp_path / ".hipify-py.yaml"
    config.write_text("mappings:\n- {cuda: cudaX, kind: function, status: supported, oops: 1}\n")
    with pytest.raises(MappingError) as info:
        user_rules(Config.find(tmp_path))
    message = str(info.value)
    assert message.startswith(f"{config}: field 'mappings': entry 0 (cudaX)"), message
    assert "user-rules" not in message and "cache" not in message


def test_cli_search_rejects_negative_limit():
    r = CliRunner().invoke(mappings, ["search", "cudaMalloc", "--limit", "-1"])
    assert r.exit_code == 2
    assert "--limit" in r.output
