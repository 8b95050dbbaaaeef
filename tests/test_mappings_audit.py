"""Header truth: the names the tables emit are checked against the real ROCm 7.2.4 headers."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from _convert import body, ctx, result
from conftest import require_tool
from hipify_py.cli.mappings import mappings
from hipify_py.context import Options
from hipify_py.mappings import hip_name, is_convertible, load_index
from hipify_py.mappings.load import RulesText
from hipify_py.verify.mappings_audit import counterpart_candidates, probe_source, run_audit
from test_hazard_common import only

# Done-when of issue 11, against ROCm 7.2.4 for the default target.
MAX_ABSENT = 50
MAX_COUNTERPARTS = 30


def test_rocm7_headers_declare_what_the_tables_emit(rocm7):
    clang = require_tool("clang-19")
    r = CliRunner().invoke(
        mappings, ["audit", "--rocm-path", str(rocm7), "--clang", clang, "--json"]
    )
    data = json.loads(r.output)
    absent, pairs = data["absent"], data["unsupported_with_counterpart"]
    print(
        f"emitted {data['emitted']}, absent {len(absent)}, unverified {data['unverified']}, "
        f"unsupported with a counterpart {len(pairs)}, reviewed {len(data['reviewed'])}, "
        f"headers absent {data['headers_absent']}"
    )
    assert data["emitted"] > 4000  # the probe really covered the tables
    assert len(absent) <= MAX_ABSENT, absent
    assert data["unexplained"] == [], data["unexplained"]
    assert len(pairs) <= MAX_COUNTERPARTS, pairs
    assert data["dated_too_late"] == {}, data["dated_too_late"]  # no false HZ302 premise
    assert r.exit_code == 0
    # every header the conversion emits exists in the tree or in clang's resource dir
    assert set(data["headers_absent"]) <= {"nvToolsExt.h"}, data["headers_absent"]


def test_probe_lines_map_back_to_names():
    text, at = probe_source(
        ["hipMalloc", "hipcub::BlockReduce", "hipcub"], ["hip/hip_runtime.h"], frozenset({"hipcub"})
    )
    lines = text.splitlines()
    assert {name: lines[n - 1] for n, name in at.items()} == {
        "hipMalloc": "namespace p0 { using ::hipMalloc; }",
        "hipcub::BlockReduce": "namespace p1 { using ::hipcub::BlockReduce; }",
        "hipcub": "namespace p2 = ::hipcub;",
    }
    assert (
        lines[lines.index("namespace p0 { using ::hipMalloc; }") - 1] == "#if !defined(hipMalloc)"
    )


def test_counterpart_guesses():
    index = load_index()
    assert counterpart_candidates(index.get("cuMemcpy")) == ["hipMemcpy"]
    assert counterpart_candidates(index.get("__floats2bfloat162_rn")) == ["__floats2bfloat162_rn"]


def test_hipblas_v2_names_follow_the_target():
    e = load_index().get("cublasCaxpy")
    assert hip_name(e, Options()) == "hipblasCaxpy"
    assert hip_name(e, Options(target_rocm=(6, 4))) == "hipblasCaxpy_v2"
    e64 = load_index().get("cublasCaxpy_64")
    assert hip_name(e64, Options(target_rocm=(6, 4))) == "hipblasCaxpy_v2_64"
    assert hip_name(load_index().get("cublasSaxpy"), Options(target_rocm=(6, 4))) == "hipblasSaxpy"
    src = "void f(cublasHandle_t h, cuComplex* x) { cublasCaxpy(h, 1, x, x, 1, x, 1); }\n"
    assert "hipblasCaxpy_v2(h" in body(src, target_rocm=(6, 4))
    assert "hipblasCaxpy(h" in body(src)


def test_names_newer_than_the_target_stay_and_are_reported():
    e = load_index().get("cuDevResourceGenerateDesc")
    assert not is_convertible(e, Options()) and is_convertible(e, Options(target_rocm=(7, 14)))
    src = "void f() { cuDevResourceGenerateDesc(0, 0, 0); }\n"
    assert "cuDevResourceGenerateDesc(0, 0, 0)" in body(src)
    (f,) = only("HZ302", src)
    assert f.severity.value == "error" and "left unconverted" in f.message


def test_cudnn_is_reported_without_miopen_and_converted_with_it():
    src = "#include <cudnn.h>\nvoid f(cudnnHandle_t* h) { cudnnCreate(h); }\n"
    assert "cudnnCreate(h)" in body(src) and "#include <cudnn.h>" in body(src)
    assert "#include <miopen/miopen.h>" in body(src, miopen=True)
    (header,) = [f for f in result(src).findings if f.rule == "HP001"]
    assert "hipDNN" in header.message
    msgs = [f.message for f in only("HZ300", src)]
    assert any("hipDNN" in m and "--miopen" in m for m in msgs), msgs
    assert "miopenCreate(h)" in body(src, miopen=True)
    assert only("HZ300", src, miopen=True) == []
    assert ctx().mappings.get("cudnnCreate").roc == "miopenCreate"


def test_show_says_where_a_mapping_comes_from():
    def show(name: str) -> str:
        r = CliRunner().invoke(mappings, ["show", name])
        assert r.exit_code == 0, r.output
        return r.output

    assert re.search(
        r"^origin\s+AMD HIPIFY table \(cuda_runtime\.yaml\)$", show("cudaMalloc"), re.M
    )
    assert re.search(r"^holds_from\s+ROCm 1\.5\.0", show("cudaMalloc"), re.M)
    out = show("__hadd_rn")
    assert re.search(r"^origin\s+header check: declared by the ROCm 7\.2\.4 headers", out, re.M)
    assert re.search(r"^origin\s+reviewed override .*hipMemcpyKind", show("cuMemcpy"), re.M)
    assert re.search(
        r"^converts_to\s+left and reported \(HZ300\): hipDNN .*miopenCreate$",
        show("cudnnCreate"),
        re.M,
    )


def test_overrides_each_give_a_reason():
    for e in load_index().all_entries:
        if e.source == "overrides.yaml":
            assert e.note and len(e.note) > 20, e.cuda


def test_conversions_count_where_their_mapping_came_from():
    res = result("void f(cudaStream_t s, int* d) { cudaStreamGetDevice(s, d); }\n")
    assert res.conversions["rename/runtime@header check (ROCm 7.2.4)"] == 1
    assert res.conversions["rename/runtime"] == 1  # cudaStream_t: an AMD table row


def test_a_name_dated_after_the_release_its_headers_declare_is_caught(rocm7):
    """An entry whose hip_added is later than the checked release although its headers declare
    the name (HZ302 would call it too new for 7.2.4): the audit lists it."""
    rule = (
        b"family: runtime\nentries:\n- {cuda: cudaDevAttrHostNumaId,"
        b" hip: hipDeviceAttributeHostNumaId, kind: enum, status: supported, hip_added: 7.13.0}\n"
    )
    index = load_index(extra_files=(RulesText("late.yaml", rule),))
    audit = run_audit(rocm7, require_tool("clang-19"), Options(), index)
    assert set(audit.dated_too_late) == {"hipDeviceAttributeHostNumaId"}


NUMA = """#include <cuda.h>
#include <cuda_runtime.h>
int numa_of(int dev) {
  int id = -1;
  cudaDeviceGetAttribute(&id, cudaDevAttrHostNumaId, dev);
  CUdevice d;
  cuDeviceGet(&d, dev);
  cuDeviceGetAttribute(&id, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, d);
  return id;
}
"""


def test_host_numa_id_converts_for_rocm_7_2_and_compiles_for_gfx942(tmp_path, gfx942_check):
    """hipDeviceAttributeHostNumaId is HIP 7.2 (the 7.2.4 headers declare it): converted for
    --target-rocm 7.2 (the default) and the result compiles; for 7.1 it stays and HZ302 says so."""
    out = result(NUMA, target_rocm=(7, 2))
    assert [f for f in out.findings if f.rule == "HZ302"] == []
    assert out.text.count("hipDeviceAttributeHostNumaId") == 2
    path = tmp_path / "numa.hip"
    path.write_text(out.text)
    proc = gfx942_check(path)
    assert proc.returncode == 0, out.text + proc.stderr[-3000:]
    found = only("HZ302", NUMA, target_rocm=(7, 1))  # one release to require: one finding
    assert [(f.line, f.extra.get("related_lines")) for f in found] == [(5, "8")]
