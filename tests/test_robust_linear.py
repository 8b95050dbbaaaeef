"""Inputs that used to cost quadratic time: each now costs a bounded number of steps per byte.

Steps are counted (token reads, regex line starts), not timed; times are in
benchmarks/fuzz_campaign.py and docs/robustness.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from _convert import result
from hipify_py.frontend import hermetic
from hipify_py.rewrite import launches


class _Counting(Sequence):
    """A token list that counts how often a token is read."""

    def __init__(self, tokens: Sequence, counter: list[int]) -> None:
        self.tokens, self.counter = tokens, counter

    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, i):  # noqa: ANN001, ANN204 - int or slice, as a list
        self.counter[0] += 1
        return self.tokens[i]


def test_unclosed_launch_openers_are_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [0]
    real = launches._find_config_end

    def counted(tokens, *rest):  # noqa: ANN001, ANN202
        return real(_Counting(tokens, reads), *rest)

    monkeypatch.setattr(launches, "_find_config_end", counted)
    n = 2000
    out = result("k<<<" * n + "\n")
    assert out.text.endswith("k<<<" * n + "\n")  # nothing is a launch: left as written
    assert reads[0] < 20 * n  # was about n * n / 2 reads (two million)


def test_launch_inside_a_configuration_is_still_found() -> None:
    out = result("void f() { k<<<g(h<<<1, 2>>>(x)), 1>>>(y); }\n").text
    assert "hipLaunchKernelGGL(h, dim3(1), dim3(2), 0, 0, x)" in out
    assert out.count("hipLaunchKernelGGL") == 2


def test_continued_line_is_no_line_start_for_the_leftover_scan() -> None:
    # each line of a run of backslash-newlines was a new start that scanned the rest of the run
    text = "\\\n" * 3 + "\0#include <x>\n"
    assert hermetic._LEFTOVER.match(text, 2) is None  # a continued line: not a line start
    assert hermetic._LEFTOVER.match(text, 0) is not None  # the run is read once, from its start
    assert "#include" not in hermetic.blank_file_access(text)
