"""What the isolated parse says is what the file gets: an error in the child under its limits
is never followed by an unbounded parse in this process, and a parse that --skip-inactive
made is reported when it fails."""

from __future__ import annotations

import os

import pytest

from _convert import ctx, result
from hipify_py.frontend import clang
from hipify_py.frontend.unit import Unit

RISKY = "int x = " + "(" * 60 + "1" + ")" * 60 + ";\n"  # deeply nested: probed in a child


def test_an_error_in_the_child_is_not_retried_without_limits(monkeypatch: pytest.MonkeyPatch):
    # libclang's crash recovery turns an allocation over RLIMIT_AS into a plain parse error;
    # the parent must not then parse the same text with no cap at all
    parent = os.getpid()
    real = clang.parse

    def parse_failing_in_the_child(*args, **kwargs):
        if os.getpid() != parent:
            raise clang.ci.TranslationUnitLoadError("Error parsing translation unit.")
        return real(*args, **kwargs)

    monkeypatch.setattr("hipify_py.frontend.unit.parse", parse_failing_in_the_child)
    unit = Unit("t.cu", RISKY, ctx().mappings)
    assert unit.ast is None
    assert "failed under its limits" in str(unit._ast_error)


def _refuse(*args: object, **kwargs: object) -> None:
    raise clang.ci.TranslationUnitLoadError("Error parsing translation unit.")


def test_a_failed_skip_inactive_parse_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _refuse)
    out = result("__global__ void k(float* p) { p[0] = 1; }\n", skip_inactive=True)
    assert out.parse_problems, "the file was converted without its inactive branches known"
