"""Command-line conventions a newcomer trips over (issue 25): a run with nothing to do fails
and writes nothing, stdout is never shared by two outputs, rule pages suggest commands that run,
and every error line starts with `hipify-py: error:`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli import root
from hipify_py.rules import RULES, load_rules

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def _run(*args: str):
    return CliRunner().invoke(root, list(args))


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_convert_with_nothing_to_convert_fails_and_writes_nothing(here):
    (here / "empty").mkdir()
    (here / "docs").mkdir()
    (here / "docs" / "a.c").write_text("int x;\n")  # C, but no CUDA
    (here / "docs" / "notes.txt").write_text("hi\n")
    (here / "tool.py").write_text("print(1)\n")
    for target in ("empty", "docs", "tool.py"):
        result = _run("convert", target)
        assert result.exit_code == 1, (target, result.output)
        assert result.stderr.startswith("hipify-py: error: no CUDA sources or CUDA build files")
    assert sorted(p.name for p in here.iterdir()) == ["docs", "empty", "tool.py"]


def test_a_build_file_alone_is_work(here):
    (here / "proj").mkdir()
    (here / "proj" / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    assert _run("convert", "proj", "-q").exit_code == 0
    assert "HIP" in (here / "proj-hip" / "CMakeLists.txt").read_text()


def test_check_with_nothing_to_check_fails_but_an_empty_shard_passes(here):
    (here / "empty").mkdir()
    result = _run("check", "empty")
    assert result.exit_code == 1 and "nothing checked" in result.stderr
    (here / "src").mkdir()
    (here / "src" / "k.cu").write_text(KERNEL)
    codes = {_run("check", "src", "--shard", f"{i}/2").exit_code for i in (1, 2)}
    assert codes == {0}  # one shard holds k.cu, the other nothing: not an error there


def test_json_to_stdout_never_shares_it_with_the_diff_or_the_file(here):
    (here / "src").mkdir()
    (here / "src" / "k.cu").write_text(KERNEL)
    mixed = _run("convert", "src", "--dry-run", "--json", "-")
    assert mixed.exit_code == 2 and "--diff-file" in mixed.stderr and mixed.stdout == ""
    single = _run("convert", "src/k.cu", "--stdout", "--json", "-")
    assert single.exit_code == 2 and single.stdout == ""
    apart = _run("convert", "src", "--dry-run", "--diff-file", "k.diff", "--json", "-", "-q")
    assert apart.exit_code == 0
    assert json.loads(apart.stdout)["files"]["converted"] == 1
    assert (here / "k.diff").read_text().startswith("--- ")


def test_the_stale_output_page_suggests_a_command_that_runs(here):
    """explain HZ001's fix, run as written, regenerates the tree (it said `-o src-hip/`,
    which exits 2 for a directory)."""
    load_rules()
    doc = RULES["HZ001"].doc
    command = next(s for s in doc.split("`") if s.startswith("hipify-py convert "))
    assert command == "hipify-py convert src/ --out-dir src-hip/"
    (here / "src").mkdir()
    (here / "src" / "k.cu").write_text(KERNEL)
    assert _run(*command.split()[1:], "-q").exit_code == 0
    assert _run("check", "src/", "--in-sync", "src-hip/").exit_code == 0


def test_unknown_rule_is_an_error_line():
    result = _run("explain", "HZ999")
    assert result.exit_code == 2
    assert result.stderr.startswith("hipify-py: error: unknown rule 'HZ999'")


@pytest.fixture
def clean_color_env(monkeypatch):
    """NO_COLOR/FORCE_COLOR unset, and put back as they were whatever --color sets."""
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.setenv(name, "x")
        monkeypatch.delenv(name)


RED = "\x1b[1;31m"


def test_color_follows_force_color_no_color_and_the_flag(here, clean_color_env, monkeypatch):
    (here / "src").mkdir()
    (here / "src" / "k.cu").write_text(
        '__global__ void k(int* o) { asm("membar.gl;"); o[threadIdx.x] = 1; }\n'
    )
    plain = _run("check", "src")
    assert "HZ310" in plain.stdout and "\x1b[" not in plain.stdout  # piped: plain
    assert RED in _run("--color", "always", "check", "src").stdout
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert RED in _run("check", "src").stdout
    assert RED not in _run("--color", "never", "check", "src").stdout


def test_no_color_is_honoured_on_a_terminal(clean_color_env, monkeypatch):
    from hipify_py.findings import Finding, Severity
    from hipify_py.report.findings_common import CheckReport
    from hipify_py.report.formats import Style, render

    finding = Finding("HZ101", Severity.ERROR, 0, 1, "m", path="k.cu", line=1, column=1)
    report = CheckReport(findings=[finding])
    assert RED in render(report, "text", Style(terminal=True, quiet=True))
    monkeypatch.setenv("NO_COLOR", "1")
    shown = render(report, "text", Style(terminal=True, quiet=True))
    assert "HZ101" in shown and RED not in shown


@pytest.mark.parametrize(
    ("name", "keep", "alone", "in_tree"),
    [
        ("k.cu", False, "k.hip", "k.hip"),
        ("k.cuh", False, "k_hip.cuh", "k.cuh"),
        ("k.cpp", False, "k_hip.cpp", "k.cpp"),
        ("k.cu", True, "k_hip.cu", "k.cu"),
    ],
)
def test_single_file_takes_its_tree_name_unless_that_is_itself(here, name, keep, alone, in_tree):
    """One naming rule: a file converted alone gets the name a tree gives it, with `_hip`
    before the suffix only when that name is the input's own (documented in the README)."""
    (here / "src").mkdir()
    (here / "src" / name).write_text("#include <cuda_runtime.h>\n" + KERNEL)
    flags = ["--keep-names"] if keep else []
    assert _run("convert", "src", "-q", *flags).exit_code == 0
    assert (here / "src-hip" / in_tree).is_file()
    assert _run("convert", f"src/{name}", "-q", *flags).exit_code == 0
    assert (here / "src" / alone).is_file() and (here / "src" / name).read_text().startswith(
        "#include <cuda_runtime.h>"
    )


def test_a_retired_rule_id_still_works_in_ignore_and_select(here):
    """HZ206 stopped reporting (its premise no longer holds on ROCm); a CI command line that
    names it must keep working, while an ID that never existed stays an error."""
    (here / "k.cu").write_text(KERNEL)
    assert _run("check", "k.cu", "--ignore", "HZ206").exit_code == 0
    assert _run("check", "k.cu", "--select", "HZ206").exit_code == 0
    assert _run("check", "k.cu", "--select", "HZ503").exit_code == 0  # retired in round 5
    assert _run("check", "k.cu", "--ignore", "HZ2069").exit_code == 2
