"""A file too dense in tokens for the token pipeline (issue 24: 20 times its size in memory,
10 s) is converted by name only and reported "not analysed": never silently clean, never
without output.  The estimate that decides it is never below the lexer's count."""

from __future__ import annotations

import sys
from pathlib import Path

from click.testing import CliRunner

from _convert import result
from hipify_py.cli import root
from hipify_py.frontend.density import token_budget, token_estimate, too_dense
from hipify_py.frontend.lexer import lex
from hipify_py.frontend.unit import Unit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from adversarial import BY_NAME, sized  # noqa: E402

HEAD = (
    "#include <cuda_runtime.h>\n#define cudaCheck(cudaCall) cudaCall\n"
    '// cudaFree in a comment\nconst char* s = "cudaMalloc";\n'
    "void f(float* p) { cudaMalloc(&p, 4); cudaCheck(cudaFree(p)); k<<<1, 2>>>(p); }\n"
)
DENSE = HEAD + ";" * token_budget(400_000) + "\n"


def test_the_estimate_is_never_below_the_lexers_count() -> None:
    files = sorted((ROOT / "tests").rglob("*.cu")) + sorted((ROOT / "examples").rglob("*.cu"))
    texts = [f.read_text(errors="surrogateescape") for f in files]
    texts += [sized(name, 20_000, seed).decode() for name in BY_NAME for seed in range(3)]
    for text in texts:
        if text.isascii():
            assert token_estimate(text) >= len(lex(text).tokens), text[:80]


def test_real_code_is_not_too_dense_and_a_run_of_semicolons_is() -> None:
    assert too_dense(sized("many_launches", 400_000).decode()) is None
    assert too_dense(sized("backslash_run", 2_000_000).decode()) is None
    assert too_dense(HEAD * 1000) is None
    why = too_dense(DENSE)
    assert why is not None and why.startswith("not analysed")


def test_a_dense_file_gets_its_names_renamed_and_nothing_else() -> None:
    out = result(DENSE)
    assert out.rule_errors and "not analysed" in out.rule_errors[0]
    head = out.text[: out.text.index(";;;")]
    assert "hipMalloc(&p, 4); cudaCheck(hipFree(p));" in head
    assert "#include <cuda_runtime.h>" in head  # headers are not converted
    assert "#define cudaCheck(cudaCall) cudaCall" in head  # a macro's own name and parameter
    assert '// cudaFree in a comment\nconst char* s = "cudaMalloc";' in head
    assert "k<<<1, 2>>>(p)" in head  # HIP accepts the launch as it is
    assert out.text.endswith(";" * 100 + "\n") and len(out.text) == len(DENSE) - 2
    assert sum(out.conversions.values()) == 2


def test_convert_writes_it_and_check_fails_on_it(tmp_path: Path) -> None:
    (tmp_path / "d.cu").write_text(DENSE)
    conv = CliRunner().invoke(
        root, ["convert", str(tmp_path / "d.cu"), "-o", str(tmp_path / "d.hip")]
    )
    assert "hipMalloc" in (tmp_path / "d.hip").read_text()
    assert "not analysed" in conv.output
    check = CliRunner().invoke(root, ["check", str(tmp_path / "d.cu")])
    assert check.exit_code == 1 and "not analysed" in check.output


def test_a_long_run_of_continuations_is_parsed_in_the_child(tmp_path: Path) -> None:
    """libclang's lexer overflowed its stack on 60,000 continued lines: the process died."""
    text = sized("backslash_run", 200_000).decode()
    assert Unit("k.cu", text, None).risky  # type: ignore[arg-type]
    (tmp_path / "k.cu").write_text(text)
    check = CliRunner().invoke(root, ["check", str(tmp_path / "k.cu")])
    assert check.exit_code == 1 and "libclang crashed" in check.output


def test_a_file_too_large_for_libclang_within_20x_is_not_parsed(tmp_path: Path) -> None:
    """libclang's tree takes 40-80 bytes a character: a 1.2 MB file is analysed from tokens,
    and the rule that needed the tree (a mask held in a variable) says so."""
    comment = ("// " + "x" * 100 + "\n") * 12_000
    (tmp_path / "k.cu").write_text(
        comment + "__global__ void k(float* p) {\n"
        "  unsigned m = 0xffffffff;\n  p[0] = __shfl_xor_sync(m, 1.f, 1);\n}\n"
    )
    check = CliRunner().invoke(root, ["check", str(tmp_path / "k.cu")])
    assert check.exit_code == 1 and "past 20 times the file's size" in check.output


def test_a_dense_file_stays_as_it_is_under_portable() -> None:
    out = result(DENSE, portable=True)
    assert out.text == DENSE and "not analysed" in out.rule_errors[0]
