"""A rule that raises never takes the run down, and never lets ``check`` pass in silence."""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner

from _convert import ctx, result
from hipify_py.cli import root
from hipify_py.pipeline import check_result
from hipify_py.rules import PASSES, load_rules

SRC = "__global__ void k(int* p) { __threadfence_system(); }\n"


@pytest.fixture
def broken_rule(monkeypatch):
    """HZ402's pass raising, as a rule bug would."""
    load_rules()

    def boom(unit, ctx):
        raise IndexError("list index out of range")
        yield  # pragma: no cover

    patched = [dataclasses.replace(p, check=boom) if p.name == "HZ402" else p for p in PASSES]
    monkeypatch.setattr("hipify_py.rules.PASSES", patched)


def test_a_rule_error_is_carried_by_the_result(broken_rule):
    out = result(SRC)
    assert out.error is None and out.text  # the conversion still happens
    assert out.rule_errors and "HZ402" in out.rule_errors[0]
    assert check_result(SRC, "t.cu", ctx()).rule_errors


def test_check_fails_on_a_rule_error(broken_rule, tmp_path):
    (tmp_path / "k.cu").write_text(SRC)
    run = CliRunner().invoke(root, ["check", str(tmp_path / "k.cu"), "--jobs", "1"])
    assert run.exit_code == 1, run.output
    assert "HZ402" in run.output and "Traceback" not in run.output


def test_check_passes_when_no_rule_fails(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(int* p) { p[0] = 1; }\n")
    run = CliRunner().invoke(root, ["check", str(tmp_path / "k.cu"), "--jobs", "1"])
    assert run.exit_code == 0, run.output


@pytest.mark.parametrize(
    "src",
    [
        "__shared__ char s[1 << 1000000000];\n__global__ void k() {}\n",
        "__global__ void k() { __shared__ char s[1 << 100000]; }\n",
        "volatile int",
        "volatile",
        "#if CUDA_VERSION >",
        "k<<<",
        "a<<<1,1>>",
        "x<b><<<",
        "cudaMemcpyToSymbol(",
        "const int WARP_SIZE = 32",  # fuzz input 12645: HZ107 (and HZ101 through it)
        "unsigned m = 1u << lane",  # fuzz input 16222: HZ108
        "void f() { g(&o[lane + 2 * warpS",  # fuzz input 116027: HZ101's per-warp strides
        "using namespace nvcuda",  # fuzz input 223735: HZ313 at the end of the file
        "namespace nvcuda;",  # HZ313's report starts before the file's first token
        "unsigned below(int lane) { return 0xffffffffu >>",  # HZ108 at the end of the file
    ],
)
def test_rules_do_not_raise_on_truncated_or_huge_input(src):
    out = result(src)
    assert out.rule_errors == [] and out.error is None
    assert check_result(src, "t.cu", ctx()).rule_errors == []


def test_a_launch_inside_a_header_name_is_not_converted():
    """Fuzz input 17091: `#include <a...x<<<1,1>` is one header name up to the first `>`, so the
    launch pass must not rewrite the `<<<` in it (its edit overlapped the header's)."""
    src = "#include <cub/util_(#define M(x) x<<<1,1>>>(x)\n"
    out = result(src)
    assert out.error is None and out.rule_errors == []
    assert "hipLaunchKernelGGL" not in out.text


def test_a_launch_after_a_version_macro_call_is_converted_the_same_way_twice():
    """Fuzz input 62202: `CUDA_VERSION(*fp)<<<...>>>` was left alone (a call's arguments), but
    once the macro became `12000 /* CUDA_VERSION */` the second conversion rewrote the launch."""
    src = "void f() { CUDA_VERSION(*fp)<<<1, 1>>>(x); }\n"
    once = result(src).text
    assert result(once).text == once


def test_a_comment_opener_inside_an_angled_header_name_is_converted_the_same_way_twice():
    """Fuzz input 344647: in `#include <cub/uti/*l.cuh>` the lexer reads a comment from the `/*`
    on (a `/*` between `<` and `>` is undefined behaviour), but the headers pass rewrote the
    line, so the second conversion saw the rest of the file as code and converted it."""
    for src in (
        "#include <cub/uti/*l.cuh>\n#include <cooperative_groups.h>\n__global__ void k() {}\n",
        "#include <cub/cub.cuh>\r#include <cub/uti/*l.cuh>\r#include <cooperative_groups.h>\r",
    ):
        once = result(src).text
        assert result(once).text == once
        assert "<cub/uti/*l.cuh>" in once  # left as written: not a header name we can read
