"""Every parse is bounded (issue 24): a macro bomb is not handed to libclang, a parse that would
outgrow its memory or time ends in a child, and a file that could not be analysed fails check."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from hipify_py.cli import root
from hipify_py.frontend.clang import crash_of, parse_memory
from hipify_py.frontend.lexer import lex
from hipify_py.frontend.macros import expansion_estimate

# 500 bytes that expand to 8**12 tokens: each macro uses the one before eight times
BOMB = "#define A0 x x x x x x x x\n" + "".join(
    f"#define A{i} {' '.join([f'A{i - 1}'] * 8)}\n" for i in range(1, 12)
)
# a mask held in a variable: HZ106/mask64 ask libclang for the variable's declaration
MASKED = (
    "__global__ void k(float* p) {\n  unsigned mask = 0xffffffffu;\n"
    "  p[0] = __shfl_sync(mask, p[0], 0);\n}\n"
)


def _estimate(src: str, budget: int = 10**9) -> int:
    lexed = lex(src)
    return expansion_estimate(lexed.tokens, lexed.directives, budget)


def test_the_estimate_follows_object_and_function_like_macros() -> None:
    assert _estimate(BOMB + "int v[] = { A11 };\n", budget=10**6) > 10**6
    assert _estimate(BOMB) < 100  # defined, never used: nothing expands
    twice = "#define F(x) x x\n"
    assert _estimate(twice + "int a = F(F(F(F(1))));\n") >= 16
    assert _estimate(twice + "int a = F(1) + F(2);\n") < 20
    assert _estimate(MASKED) <= len(lex(MASKED).tokens)  # plain code: its own tokens


def test_a_macro_bomb_is_not_parsed_and_check_says_it_was_not_analysed(tmp_path: Path) -> None:
    (tmp_path / "bomb.cu").write_text(BOMB + MASKED + "int v[] = { A11 };\n")
    result = CliRunner().invoke(root, ["check", str(tmp_path / "bomb.cu")])
    assert result.exit_code == 1, result.output
    assert "not analysed" in result.output and "not parsed" in result.output
    (tmp_path / "fine.cu").write_text(MASKED)
    fine = CliRunner().invoke(root, ["check", str(tmp_path / "fine.cu")])
    assert "not analysed" not in fine.output


def test_a_bomb_converts_from_tokens_with_skip_inactive(tmp_path: Path) -> None:
    (tmp_path / "bomb.cu").write_text(BOMB + MASKED + "int v[] = { A11 };\n")
    out = tmp_path / "bomb.hip"
    result = CliRunner().invoke(
        root, ["convert", str(tmp_path / "bomb.cu"), "-o", str(out), "--skip-inactive"]
    )
    assert "not parsed" in result.output
    assert "__shfl_sync" in out.read_text()


def test_a_parse_past_its_memory_ends_in_the_child() -> None:
    def greedy() -> object:
        return bytearray(2 * parse_memory(10))  # more than the child may take

    assert crash_of(greedy, 10) == f"libclang needed over {parse_memory(10) >> 20:,} MiB"
