"""Every libclang parse runs under a time and memory limit, and a file it could not analyse
is reported as such: it degrades to the token path in ``convert`` and fails ``check``.

The macro bomb is real: 40 nested object-like macros, each twice the one before, 2**39 tokens
in 830 bytes (without limits libclang ran past 2 minutes and 12 GB on such a file).  The tests
set the limits low so they finish fast; the defaults are measured in docs/robustness.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import hipify_py.frontend.clang as clang
from _convert import result
from hipify_py.cli import root


def macro_bomb(depth: int = 40) -> str:
    lines = ["#define A0 x,"]
    lines += [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, depth)]
    return "\n".join(lines) + f"\nint v[] = {{A{depth - 1}}};\n"


# a mask held in a variable: the warp-mask rule asks libclang for the variable's declaration
NEEDS_AST = """__global__ void k(float* p) {
  unsigned mask = 0xffffffff;
  float v = p[threadIdx.x];
  v += __shfl_xor_sync(mask, v, 1);
  p[threadIdx.x] = v;
}
int main() { k<<<1, 64>>>(nullptr); return 0; }
"""


def test_macro_bomb_stops_at_the_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clang, "PARSE_SECONDS", 60)
    monkeypatch.setattr(clang, "PARSE_MEMORY", 64 << 20)
    out = result(macro_bomb() + NEEDS_AST, skip_inactive=True)
    assert out.error is None
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, nullptr)" in out.text  # from tokens
    (problem,) = [p for p in out.parse_problems if p.startswith("not analysed")]
    assert "memory limit" in problem


def test_macro_bomb_stops_at_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clang, "PARSE_SECONDS", 1)
    monkeypatch.setattr(clang, "PARSE_MEMORY", 2 << 30)  # more than 1 s can fill
    out = result(macro_bomb(), skip_inactive=True)
    # 1 s of CPU, or 3 s of wall time on a loaded machine
    assert any("libclang took over" in p for p in out.parse_problems), out.parse_problems


def test_an_ordinary_file_is_analysed() -> None:
    out = result(NEEDS_AST, skip_inactive=True)
    assert not [p for p in out.parse_problems if p.startswith("not analysed")]
    assert not out.rule_errors


def _raise(*args: object, **kwargs: object) -> None:
    raise clang.ci.TranslationUnitLoadError("Error parsing translation unit.")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_check_fails_on_a_file_libclang_could_not_analyse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _raise)  # libclang gives up
    (tmp_path / "k.cu").write_text(NEEDS_AST)
    run = CliRunner().invoke(
        root, ["check", str(tmp_path / "k.cu"), "--jobs", "1", "--no-cache", "--format", fmt]
    )
    assert run.exit_code == 1, run.output
    assert "not analysed" in run.output
    if fmt == "json":
        report = json.loads(run.output)
        (failure,) = report["failures"]
        assert failure["path"].endswith("k.cu") and "not analysed" in failure["message"]
    if fmt == "sarif":
        notes = json.loads(run.output)["runs"][0]["invocations"][0]
        assert "not analysed" in json.dumps(notes)


def test_check_fails_on_a_macro_bomb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clang, "PARSE_MEMORY", 64 << 20)
    (tmp_path / "bomb.cu").write_text(macro_bomb() + NEEDS_AST)
    run = CliRunner().invoke(root, ["check", str(tmp_path / "bomb.cu"), "--jobs", "1"])
    assert run.exit_code == 1, run.output
    assert "not analysed" in run.output and "memory limit" in run.output
