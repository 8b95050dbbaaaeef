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
from hipify_py.verify.mappings_audit import counterpart_candidates, probe_source
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
