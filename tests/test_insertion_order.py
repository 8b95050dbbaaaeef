"""Whole lines inserted at one point by different passes go in their passes' order: a new
pass that inserts lines declares where it goes by its ``order``, with no edit elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from _convert import result
from hipify_py import rules
from hipify_py.context import Context
from hipify_py.edits import Edit, EditConflict, apply_edits
from hipify_py.frontend.unit import Unit

SRC = "__global__ void k(float* p) { p[0] = 1.f; }\nvoid f(float* p) { k<<<1, 1>>>(p); }\n"
PROBE = "// probe line\n"
INCLUDE = "#include <hip/hip_runtime.h>"


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Register a pass that inserts one line at the start of the file, at a given order."""
    rules.load_rules()
    monkeypatch.setattr(rules, "PASSES", list(rules.PASSES))

    def probe(unit: Unit, ctx: Context) -> Iterator[Edit]:
        yield Edit(0, 0, PROBE, "probe")

    return lambda order: rules.rewrite_pass("probe", order=order)(probe) and None


@pytest.mark.parametrize(("order", "probe_first"), [(1, True), (60, False)])
def test_a_new_passs_order_places_its_lines_around_the_include(register, order, probe_first):
    register(order)
    text = result(SRC).text
    assert text.count(PROBE) == 1 and text.count(INCLUDE) == 1  # the header pass inserts at 0
    assert (text.index(PROBE) < text.index(INCLUDE)) is probe_first


def test_lines_of_two_passes_of_one_rank_at_one_point_conflict():
    """Their order is not defined: a conflict, as any two edits of the same bytes."""
    with pytest.raises(EditConflict):
        apply_edits("x\n", [Edit(0, 0, "a\n", "one", 5), Edit(0, 0, "b\n", "two", 5)])
    assert apply_edits("x\n", [Edit(0, 0, "a\n", "one", 7), Edit(0, 0, "b\n", "two", 5)]).text == (
        "b\na\nx\n"
    )
