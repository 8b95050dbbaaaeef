"""The run summary counts every kind of edit a pass makes, named where the pass is declared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from _convert import result
from hipify_py import rules
from hipify_py.cli import root
from hipify_py.context import Context
from hipify_py.discover import Candidate
from hipify_py.edits import Edit
from hipify_py.frontend.unit import Unit
from hipify_py.report.summary import Summary
from hipify_py.result import FileStatus, Outcome

SRC = "__global__ void k() { __nanosleep(100); }\n"


@pytest.fixture
def probe_pass(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A new rewrite pass, registered as a pass module would register itself, and gone after."""
    rules.load_rules()
    monkeypatch.setattr(rules, "PASSES", list(rules.PASSES))
    monkeypatch.setattr(rules, "TALLIES", dict(rules.TALLIES))

    def nanosleep(unit: Unit, ctx: Context) -> Iterator[Edit]:
        at = unit.text.find("__nanosleep")
        if at >= 0:
            yield Edit(at, at + len("__nanosleep"), "__builtin_amdgcn_s_sleep", "nanosleep")

    rules.rewrite_pass("nanosleep-probe", order=60)(nanosleep)
    yield


def _summary_of(src: str) -> Summary:
    summary = Summary()
    converted = result(src)
    summary.add(
        Outcome(Candidate(Path("t.cu"), Path("t.cu"), Path(".")), FileStatus.CONVERTED, converted)
    )
    summary.finish()
    return summary


def test_a_new_pass_is_counted_under_its_tag_until_it_declares_a_tally(probe_pass: None) -> None:
    summary = _summary_of(SRC)
    assert "__builtin_amdgcn_s_sleep(100)" in result(SRC).text
    assert summary.to_json()["conversions"]["nanosleep"] == 1
    rows = {key: label for key, label, _ in summary.tallied()}
    assert rows["nanosleep"] == "edits tagged nanosleep"


def test_a_declared_tally_names_the_count(probe_pass: None) -> None:
    rules.TALLIES["nanosleep"] = rules.Tally("nanosleep", "sleeps_rewritten", "sleeps rewritten")
    conversions = _summary_of(SRC).to_json()["conversions"]
    assert conversions["sleeps_rewritten"] == 1 and "nanosleep" not in conversions


def test_every_pass_that_edits_declares_its_counts() -> None:
    """The shipped passes' tags are all named: no count falls through to a bare tag."""
    src = (
        "#include <cuda_runtime.h>\n__device__ int sym;\n"
        "__global__ void k(int* p) { p[0] = __shfl_sync(0xffffffff, p[0], 1); }\n"
        "int main() { int* p; cudaMalloc(&p, 4); k<<<1, 32>>>(p);\n"
        "  cudaMemcpyToSymbol(sym, p, 4);\n#if CUDART_VERSION >= 11000\n  return 1;\n#endif\n}\n"
    )
    conversions = _summary_of(src).to_json()["conversions"]
    declared = {t.key for t in rules.tallies()}
    assert set(conversions) == declared
    assert conversions["launches_rewritten"] == 1 and conversions["symbols_wrapped"] == 1
    assert conversions["identifiers_renamed"] == 2 and conversions["headers_rewritten"] >= 1
    assert conversions["warp_masks_widened"] == 1 and conversions["version_tests_rewritten"] == 1


def test_a_binary_cuda_source_is_a_failure_and_there_is_no_dead_skipped_count(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bin.cu").write_bytes(b"__global__ void k() {}\0\0\0")
    out = CliRunner().invoke(
        root,
        ["convert", str(tmp_path / "src"), "--out-dir", str(tmp_path / "out"), "--json", "-", "-q"],
    )
    files = json.loads(out.stdout)["files"]
    assert files["failed"] == 1 and "skipped" not in files


def test_the_json_summary_does_not_depend_on_the_order_files_finish() -> None:
    """Two unsupported APIs used once each: the order workers return the files in (it varies
    between -j runs) must not reorder the report, or a CI diff of two runs shows a change."""
    a = "void f() { cudaDeviceGetNvSciSyncAttributes(0, 0, 0); }\n"
    b = "void g() { cudaEGLStreamConsumerConnect(0, 0); }\n"

    def summary(order: list[str]) -> dict:
        s = Summary()
        for n, src in enumerate(order):
            path = Path(f"f{n}.cu")
            s.add(Outcome(Candidate(path, path, Path(".")), FileStatus.CONVERTED, result(src)))
        s.finish()
        return s.to_json()

    one, other = summary([a, b]), summary([b, a])
    assert len(one["unsupported_apis"]) == 2
    assert list(one["unsupported_apis"]) == list(other["unsupported_apis"])
