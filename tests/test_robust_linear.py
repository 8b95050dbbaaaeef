"""Inputs shaped like the quadratic cases of issue 24 are handled in one pass: counted work, not
timed (the timings are the fuzz campaign's, ``benchmarks/fuzz_campaign.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from _convert import hip
from hipify_py.frontend.hermetic import blank_file_access
from hipify_py.frontend.lexer import Token
from hipify_py.frontend.syntax import launch_config_end
from hipify_py.frontend.unit import Unit


class _Counted(list):
    """A token list that counts how often a token is looked at."""

    reads = 0

    def __getitem__(self, index):  # list's own signature
        _Counted.reads += 1
        return super().__getitem__(index)


def _ends(tokens: Sequence[Token], openers: list[int]) -> dict[int, int | None]:
    ends: dict[int, int | None] = {}
    for chevron in reversed(openers):
        ends[chevron] = launch_config_end(tokens, chevron, ends)
    return ends


def test_thousands_of_unclosed_launches_are_read_once_each() -> None:
    for n in (1_000, 4_000):
        unit = Unit("k.cu", "k<<<" * n + "\n", None)  # type: ignore[arg-type]
        tokens = _Counted(unit.tokens)
        _Counted.reads = 0
        ends = _ends(tokens, unit.launch_openers)
        assert set(ends.values()) == {None}
        assert _Counted.reads <= 4 * len(tokens)  # it was n * n / 2 before


def test_nested_and_sibling_launches_still_find_their_ends() -> None:
    src = "void h() { a<<<b<<<1, 1>>>(), c(d<<<2, 3>>>())>>>(x); e<<<4, 5>>>(); f<<<6; }\n"
    unit = Unit("k.cu", src, None)  # type: ignore[arg-type]
    ends = unit.launch_config_ends
    texts = {unit.tokens[i - 1].text: ends[i] for i in unit.launch_openers}
    closing = {k: (unit.tokens[v].text if v is not None else None) for k, v in texts.items()}
    assert closing == {"a": ">>>", "b": ">>>", "d": ">>>", "e": ">>>", "f": None}
    assert texts["a"] > texts["d"] > texts["b"]
    assert "hipLaunchKernelGGL(e, dim3(4), dim3(5), 0, 0)" in hip(src)
    assert "f<<<6;" in hip(src)


def test_a_directive_after_a_run_of_continued_lines_is_still_blanked() -> None:
    run = "\\\n" * 5_000
    src = f'{run}#include "/etc/passwd"\nint x;\n'
    out = blank_file_access(src)
    assert "passwd" not in out and len(out) == len(src) and out.count("\n") == src.count("\n")
    # a spliced line is no directive: `int y = 1; \` + `#include` is one logical line of code
    spliced = 'int y = 1; \\\n#include "x.h"\n'
    assert blank_file_access(spliced) == spliced
