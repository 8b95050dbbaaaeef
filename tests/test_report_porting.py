"""`hipify-py report`: what the porting report says about a converted tree (the examples),
its verify results, its escaping of hostile names and code, and the Markdown comment's cap.
The page in a real browser is tested in test_report_browser.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from _report import HOSTILE_NAME, hostile_tree, report
from hipify_py.report.porting import (
    FileEntry,
    PortReport,
    diff_rows,
    load_port_formats,
    risky_changes,
)
from hipify_py.report.porting_markdown import MAX_CHARS
from test_hazard_common import findings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WARP = "warp_reduce/warp_reduce.cu"


def _data(page: str) -> list:
    """The per-file JSON the page's script draws diffs from."""
    found = re.findall(r'<script type="application/json" id="data-(\d+)">(.*?)</script>', page)
    assert [int(i) for i, _ in found] == list(range(len(found)))
    return [json.loads(text) for _, text in found]


def _scripts(page: str) -> int:
    """The page's <script> elements that run (the others hold JSON)."""
    return len(re.findall(r'<script(?! type="application/json")', page))


def test_the_formats_register_themselves() -> None:
    assert set(load_port_formats()) >= {"html", "markdown"}


def test_diff_rows_fold_unchanged_lines_but_keep_the_lines_findings_point_at() -> None:
    a = "".join(f"line {i}\n" for i in range(1, 41))
    b = a.replace("line 5\n", "LINE 5\n")
    rows, added, removed = diff_rows(a, b, marks_old={30}, marks_new=set())
    assert (added, removed) == (1, 1)
    shown_old = [r.old for r in rows if r.tag in (" ", "-")]
    assert shown_old == [2, 3, 4, 5, 6, 7, 8, 27, 28, 29, 30, 31, 32, 33]
    folds = [(r.old, r.skipped) for r in rows if r.tag == "~"]
    assert folds == [(1, 1), (9, 18), (34, 7)]
    assert [r.text for r in rows if r.tag == "+"] == ["LINE 5"]
    assert diff_rows(a, a, set(), set()) == ([], 0, 0)  # nothing to show: no rows at all


def test_risky_build_flag_changes_are_found_in_changed_lines_only() -> None:
    old = "NVCCFLAGS := -O3 --use_fast_math\nARCH ?= sm_90\nLDFLAGS := -lm\n"
    new = "NVCCFLAGS := -O3 -ffast-math\nARCH ?= gfx942\nLDFLAGS := -lm\n"
    rows, _, _ = diff_rows(old, new, set(), set())
    found = [(r.category, r.tag, r.line) for r in risky_changes("Makefile", rows)]
    assert found == [
        ("fast-math", "-", 1),
        ("GPU architectures", "-", 2),
        ("fast-math", "+", 1),
        ("GPU architectures", "+", 2),
    ]


def test_the_examples_report_has_summary_findings_build_changes_and_rule_pages(
    tmp_path: Path,
) -> None:
    out = tmp_path / "r.html"
    result = report(str(EXAMPLES), "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "https://" not in page and "http://" not in page and "src=" not in page  # no network
    assert _scripts(page) == 1 and "Content-Security-Policy" in page
    # the summary: what needs a human, errors first, with the rule names
    human = page[page.index('id="human"') : page.index('id="risky"')]
    keys = re.findall(r'href="#rule=([\w-]+)"', human)
    assert keys == ["HZ105", "risky", "HB106"]  # errors, warnings, then infos
    severities = re.findall(r'<tr class="(error|warning|info)">', human)
    assert len(severities) == len(keys)
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert "ballot-truncated" in human and "not-checkable" not in human  # no verify given
    # risky flag changes of the build files: fast-math in Make, CMake and setup.py
    risky = page[page.index('id="risky"') : page.index('id="verify"')]
    for build_file in ("make_project/Makefile", "blas/CMakeLists.txt", "masked_add/setup.py"):
        assert build_file in risky
    assert "-ffast-math" in risky and "gfx942" in risky
    assert "No verify result in this report" in page
    # each file with something to review has a row; unchanged/copied ones are folded
    rows = re.findall(r'<details class="file"[^>]*data-path="([^"]+)"', page)
    assert any(r.endswith(WARP) for r in rows) and any(r.endswith("Makefile") for r in rows)
    assert not any(r.endswith("README.md") for r in rows)
    assert re.search(r'<details id="quiet"><summary>9 files', page)
    # the warp example's findings sit with the line they point at
    data = _data(page)[rows.index(next(r for r in rows if r.endswith(WARP)))]
    lines = {r[1] for r in data["r"] if r[0] in (" ", "-")}
    assert {f[0] for f in data["f"]} <= lines
    assert {f[2] for f in data["f"] if not f[5]} == {"HZ105"}
    # the rule pages are in the page, as `hipify-py explain` prints them
    for rule in ("HZ105", "HZ106"):
        assert f'<details class="rule" id="rule-{rule}">' in page
    assert "What it detects" in page


def test_verify_results_are_shown_per_translation_unit(tmp_path: Path) -> None:
    hip = "examples-hip/warp_reduce/warp_reduce.hip"
    verify = {
        "toolchain": {"kind": "clang", "arch": "gfx942"},
        "mode": "syntax",
        "ok": False,
        "summary": {"passed": 1, "failed": 1},
        "files": [
            {
                "path": hip,
                "cuda_path": None,
                "status": "failed",
                "notes": [],
                "errors": [
                    {
                        "severity": "error",
                        "message": "no matching function for call to '__shfl_up_sync'",
                        "anchor": [14, 12],
                        "cuda": {"line": 14},
                    }
                ],
            },
            {"path": "examples-hip/make_project/src/main.hip", "status": "passed"},
            {"path": "elsewhere/other.hip", "status": "passed"},
        ],
    }
    vfile = tmp_path / "v.json"
    vfile.write_text(json.dumps(verify))
    out = tmp_path / "r.html"
    assert report(str(EXAMPLES), "-o", str(out), "--verify-json", str(vfile)).exit_code == 0
    page = out.read_text()
    human = page[page.index('id="human"') : page.index('id="risky"')]
    assert re.findall(r'href="#rule=([\w-]+)"', human)[0] == "verify-failed"
    assert "Verified files not in this tree: elsewhere/other.hip" in page
    rows = re.findall(r'<details class="file"[^>]*data-path="([^"]+)"', page)
    warp = _data(page)[rows.index(next(r for r in rows if r.endswith(WARP)))]
    assert warp["v"]["status"] == "failed"
    assert warp["v"]["errors"] == [
        [14, 12, "no matching function for call to '__shfl_up_sync'", 14]
    ]
    assert 14 in {r[2] for r in warp["r"] if r[0] in (" ", "+")}  # the error's HIP line shown
    main = _data(page)[rows.index(next(r for r in rows if r.endswith("src/main.cu")))]
    assert main["v"]["status"] == "passed"
    md = report(str(EXAMPLES), "--format", "markdown", "--verify-json", str(vfile)).output
    assert "verify: 1 passed, 1 failed, 0 not checkable" in md
    assert (
        "- 🔴 compiler, HIP line 14: no matching function for call to '\\_\\_shfl\\_up\\_sync'"
        in md
    )


def test_a_bad_verify_file_or_an_empty_tree_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "v.json"
    bad.write_text("[1, 2]")
    result = report(str(EXAMPLES), "--verify-json", str(bad), "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 2 and "not the output of `hipify-py verify" in result.output
    (tmp_path / "empty").mkdir()
    result = report(str(tmp_path / "empty"), "-o", str(tmp_path / "r.html"))
    assert result.exit_code == 1 and "nothing to report" in result.output
    assert not (tmp_path / "r.html").exists()


def test_hostile_names_and_code_are_escaped_in_html_and_markdown(tmp_path: Path) -> None:
    src = hostile_tree(tmp_path)
    out = tmp_path / "r.html"
    assert report(str(src), "-o", str(out)).exit_code == 0
    page = out.read_text()
    assert _scripts(page) == 1 and "<img" not in page
    assert "&lt;img src=y onerror=alert(3)&gt;" in page  # the file name, shown as text
    data = _data(page)[0]
    code = "\n".join(r[3] for r in data["r"] if r[0] != "~")
    assert "</script><script>alert(1)</script>" in code  # the code itself, intact in the data
    md = report(str(src), "--format", "markdown").output
    outside_code = re.sub(r"(`+)[^`].*?\1", "", md)
    assert not re.search(r"(?<!\\)<(img|script)", outside_code)
    assert HOSTILE_NAME.replace(">", "&gt;").replace("<", "&lt;").replace('"', "&quot;") in md


def test_the_markdown_comment_is_capped_and_lists_the_worst_files_first() -> None:
    src = '__global__ void k(int* o) {\n  asm volatile("membar.gl;");\n}\n'
    found = findings(src, "k.cu")
    assert {f.rule for f in found} == {"HZ310"}
    port = PortReport("big tree", "0", [])
    for i in range(3000):
        path = f"src/dir{i // 50}/kernel_{i}.cu"
        port.files.append(
            FileEntry(path, path, "converted", findings=[replace(f, path=path) for f in found])
        )
    port.files.append(FileEntry("src/broken.cu", "src/broken.hip", "failed", message="binary"))
    md = load_port_formats()["markdown"](port)
    assert len(md) <= MAX_CHARS
    assert "more files with findings: see the HTML report" in md
    files = re.findall(r"<summary><code>([^<]+)</code>", md)
    assert files[0] == "src/broken.cu" and 100 < len(files) < 3000
    assert "| 🔴 error | `failed` files not converted | 1 | 1 |" in md


def test_a_binary_source_and_a_name_that_is_not_utf8_give_a_valid_report(tmp_path: Path) -> None:
    src = tmp_path / "odd"
    src.mkdir()
    (src / "bin.cu").write_bytes(b"\x00\x01binary")
    name = b"caf\xe9.cu".decode("utf-8", "surrogateescape")
    (src / name).write_bytes(b'__global__ void k(int* o) { asm("membar.gl;"); } // \xe9\n')
    out = tmp_path / "r.html"
    assert report(str(src), "-o", str(out)).exit_code == 0
    page = out.read_bytes().decode("utf-8")  # valid UTF-8 throughout
    assert "caf\ufffd.cu" in page
    human = page[page.index('id="human"') : page.index('id="verify"')]
    assert re.findall(r'href="#rule=([\w-]+)"', human) == ["failed", "HZ310"]
    md = tmp_path / "r.md"
    assert report(str(src), "--format", "markdown", "-o", str(md)).exit_code == 0
    assert "<code>" + str(src / "caf\ufffd.cu") + "</code> — 1 error" in md.read_bytes().decode()
    assert "not converted: binary file" in md.read_text()


BROKEN = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
"""
# an error far from every line the conversion changes: the diff must show it anyway
BROKEN_TAIL = (
    "".join(f"int filler_{i} = {i};\n" for i in range(20)) + "int broken = missing_name;\n"
)


def test_verify_compiles_the_conversion_in_a_temporary_tree(
    tmp_path: Path, rocm7: Path, clang19: str
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.cu").write_text(BROKEN)
    (src / "bad.cu").write_text(BROKEN + BROKEN_TAIL)
    out = tmp_path / "r.html"
    result = report(str(src), "--verify", "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "From <code>this run</code>" in page and "hipify-report-" not in page
    human = page[page.index('id="human"') : page.index('id="verify"')]
    assert re.findall(r'href="#rule=([\w-]+)"', human)[0] == "verify-failed"
    rows = re.findall(r'<details class="file"[^>]*data-path="([^"]+)"', page)
    data = dict(zip(rows, _data(page), strict=True))
    bad, good = data[str(src / "bad.cu")], data[str(src / "good.cu")]
    assert good["v"]["status"] == "passed" and bad["v"]["status"] == "failed"
    (line, _, message, cuda_line), *_ = bad["v"]["errors"]
    assert "missing_name" in message and cuda_line == 23
    shown = {r[2]: r[3] for r in bad["r"] if r[0] in (" ", "+")}
    assert shown[line] == "int broken = missing_name;"
    both = report(str(src), "--verify", "--verify-json", str(out), "-o", str(out))
    assert both.exit_code == 2 and "cannot be combined" in both.output


def test_offload_arch_reaches_the_build_files_and_the_header(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    args = ["--offload-arch", "gfx90a", "--offload-arch", "gfx942", "--format", "markdown"]
    assert report(str(EXAMPLES / "cmake_project"), *args, "-o", str(out)).exit_code == 0
    assert "`+ set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942)`" in out.read_text()
    page = tmp_path / "r.html"
    assert report(str(EXAMPLES / "cmake_project"), *args[:4], "-o", str(page)).exit_code == 0
    assert "options: <code>--offload-arch gfx90a --offload-arch gfx942</code>" in page.read_text()
