"""Inline suppression (`// hipify-py: ignore[ID]`) and `convert --annotate` for hazards."""

from __future__ import annotations

import re

from hipify_py.frontend.conditions import hip_inactive
from hipify_py.frontend.lexer import lex
from hipify_py.pipeline import convert_text
from test_hazard_common import ctx, rules_of

KERNEL = "__global__ void k(int* o) {{\n  o[threadIdx.x & 31] = warpSize;{}\n}}\n"


def test_ignore_on_the_same_line():
    assert rules_of(KERNEL.format("")) == ["HZ101"]
    assert rules_of(KERNEL.format("  // hipify-py: ignore[HZ101]")) == []


def test_ignore_on_the_line_before():
    src = (
        "__global__ void k(int* o) {\n  // hipify-py: ignore[HZ101]\n"
        "  o[threadIdx.x & 31] = warpSize;\n}\n__global__ void k2(int* o) {\n"
        "  o[threadIdx.x & 31] = warpSize;\n}\n"
    )
    assert [f for f in rules_of(src)] == ["HZ101"]  # only the second line still reports


def test_ignore_other_rule_or_list_or_bare():
    assert rules_of(KERNEL.format("  // hipify-py: ignore[HZ106]")) == ["HZ101"]
    assert rules_of(KERNEL.format("  // hipify-py: ignore[HZ106, HZ101]")) == []
    assert rules_of(KERNEL.format("  // hipify-py: ignore")) == []
    assert rules_of(KERNEL.format("  /* hipify-py: ignore[HZ101] */")) == []


def test_ignore_does_not_leak_two_lines_down():
    src = (
        "// hipify-py: ignore[HZ101]\n\n"
        "__global__ void k(int* o) { o[threadIdx.x & 31] = warpSize; }\n"
    )
    assert rules_of(src) == ["HZ101"]


def test_annotate_writes_a_comment_above_each_finding():
    src = "__global__ void k(float* o) {\n  o[0] = __shfl_down_sync(0x0000ffff, o[0], 1);\n}\n"
    result = convert_text(src, "t.cu", ctx(annotate=True))
    assert result.error is None
    lines = result.text.splitlines()
    i = next(n for n, line in enumerate(lines) if "__shfl_down_sync(" in line)
    assert lines[i - 1].strip().startswith("// hipify-py[HZ106] warning: partial mask")
    assert lines[i - 1].startswith("  //")  # keeps the indentation


def test_annotate_and_fix_together_describe_only_what_is_left():
    src = "__global__ void k(float* o) {\n  o[0] = __shfl_down_sync(0xffffffffULL, o[0], 1);\n}\n"
    assert "hipify-py[HZ106]" in convert_text(src, "t.cu", ctx(annotate=True)).text
    result = convert_text(src, "t.cu", ctx(annotate=True, fix=True))
    assert "0xffffffffffffffffULL" in result.text and "hipify-py[HZ106]" not in result.text
    assert [f.fixed for f in result.findings if f.rule == "HZ106"] == [True]


def test_fixes_and_annotations_never_conflict_with_rewrites_on_the_fixtures():
    from test_hazard_common import FIXTURES

    for path in sorted(FIXTURES.iterdir()):
        src = path.read_text()
        for opts in (
            {"fix": True},
            {"fix": True, "unsafe_fixes": True},
            {"fix": True, "unsafe_fixes": True, "annotate": True},
            {"fix": True, "target_rocm": (6, 1)},
        ):
            result = convert_text(src, str(path), ctx(**opts))
            assert result.error is None, (path.name, opts, result.error)
        fixed_text = convert_text(src, str(path), ctx(fix=True)).text
        # every 32-bit mask is fixed, except in branches the HIP build never compiles
        lexed = lex(fixed_text)
        inactive = hip_inactive(lexed.tokens, lexed.directives)
        left = [m.start() for m in re.finditer(r"0xffffffff[,)]", fixed_text)]
        assert all(at in inactive for at in left), path.name


def test_trailing_ignore_comment_covers_only_its_own_line():
    src = (
        "__global__ void k(int* o) {\n"
        "  o[threadIdx.x & 31] = warpSize;  // hipify-py: ignore[HZ101]\n"
        "}\n__global__ void k2(int* o) {\n"
        "  o[threadIdx.x & 31] = warpSize;\n}\n"
    )
    assert rules_of(src) == ["HZ101"]


def test_ignore_ids_are_case_insensitive_prefixes_like_check_ignore():
    assert rules_of(KERNEL.format("  // hipify-py: ignore[hz101]")) == []
    assert rules_of(KERNEL.format("  // hipify-py: ignore[HZ1]")) == []
    assert rules_of(KERNEL.format("  // hipify-py: ignore[hz]")) == []
    assert rules_of(KERNEL.format("  // hipify-py: ignore[all]")) == []
    assert rules_of(KERNEL.format("  // hipify-py: ignore[HZ2]")) == ["HZ101"]
