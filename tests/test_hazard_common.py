"""Shared helpers for the hazard tests, and checks that hold for every hazard rule."""

from __future__ import annotations

import collections
import re
from functools import lru_cache
from pathlib import Path

import pytest

from hipify_py.context import Context, Options
from hipify_py.findings import Severity
from hipify_py.frontend.unit import Unit
from hipify_py.mappings import load_index
from hipify_py.pipeline import check_result, convert_text
from hipify_py.rules import RULES, RuleInfo, declare_rule, load_rules, passes

FIXTURES = Path(__file__).parent / "fixtures" / "hazards"
EXPECT = re.compile(r"//\s*expect:\s*([A-Z0-9 ]+)$")


@lru_cache(maxsize=1)
def index():
    return load_index()


def ctx(**options) -> Context:
    """Every rule reports, the opt-in ones too (unless ``enable`` says otherwise): these tests
    are about what each rule finds; test_policy's about which rules a run reports."""
    return Context(Options(**{"enable": ("ALL",), **options}), index())


def findings(src: str, path: str = "t.cu", **options):
    return [f for f in check_result(src, path, ctx(**options)).findings if f.rule.startswith("HZ")]


def rules_of(src: str, path: str = "t.cu", **options) -> list[str]:
    return [f.rule for f in findings(src, path, **options)]


def only(rule: str, src: str, path: str = "t.cu", **options):
    return [f for f in findings(src, path, **options) if f.rule == rule]


def fixed(src: str, path: str = "t.cu", **options) -> str:
    """The converted text with hazard fixes applied (safe ones, or all with unsafe_fixes)."""
    result = convert_text(src, path, ctx(fix=True, **options))
    assert result.error is None, result.error
    return result.text


def run_pass(rule: str, src: str) -> Unit:
    """A unit of ``src`` after the hazard pass of ``rule`` looked at it: what the pass cached
    stays on the unit (``"ast"`` when it parsed, ``"_hz_functions"`` when it listed functions)."""
    unit = Unit("t.cu", src, ctx().mappings)
    (rule_pass,) = [p for p in passes("hazard") if p.name == rule]
    list(rule_pass.check(unit, ctx()))
    return unit


def expected(path: Path) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            for rule in m.group(1).split():
                out[(n, rule)] += 1
    return out


def test_every_rule_has_a_page_with_the_four_sections():
    load_rules()
    hz = [r for r in RULES.values() if r.id.startswith("HZ")]
    assert len(hz) >= 25
    for r in hz:
        assert re.fullmatch(r"HZ\d{3}", r.id)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name
        for section in (
            "## What it detects",
            "## Why it breaks on AMD",
            "## Example",
            "## How to fix",
        ):
            assert section in r.doc, (r.id, section)
        assert r.doc.startswith(f"{r.id} {r.name}"), r.id


def test_a_rule_id_is_declared_once_and_reports_itself():
    load_rules()
    with pytest.raises(ValueError, match="HZ101 registered twice"):
        declare_rule("HZ101", "again", Severity.INFO, "a second declaration", "")
    assert all(p.name in RULES for p in passes("hazard"))  # each hazard pass is a declared rule
    report = RuleInfo("HZ999", "example", Severity.WARNING, "summary", "page").report
    edit = report.edit(4, 6, "64")
    finding = report(1, 9, "why", fix=None, severity=Severity.ERROR)
    assert (finding.rule, finding.severity, finding.start, finding.end) == (
        "HZ999",
        Severity.ERROR,
        1,
        9,
    )
    assert report(1, 9, "why").severity is Severity.WARNING
    assert (edit.rule, edit.text) == ("fix:HZ999", "64")  # applied with --fix only


def test_rule_ids_are_grouped_by_theme():
    load_rules()
    themes = {
        "HZ0": "meta",
        "HZ1": "warp",
        "HZ2": "sync",
        "HZ3": "unsupported",
        "HZ4": "memory",
        "HZ5": "capability",
    }
    for rid in RULES:
        if rid.startswith("HZ"):
            assert rid[:3] in themes


@pytest.mark.parametrize(
    "fixture", sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".cu", ".hip"))
)
def test_fixture_findings_match_the_expect_comments(fixture):
    """Every expected finding is reported (recall) and nothing else is (precision)."""
    path = FIXTURES / fixture
    got = collections.Counter(
        (f.line, f.rule) for f in findings(path.read_text(), str(path)) if f.rule not in ("HZ302",)
    )
    want = expected(path)
    assert got - want == collections.Counter(), "false positives"
    assert want - got == collections.Counter(), "missed findings"


def test_hazards_fire_on_both_sides_cuda_and_hip():
    cuda = (
        "__global__ void k(int* o){ int lane = threadIdx.x & 31; o[lane] = warpSize; }\n"
        "void h(int* d){ cudaMalloc(&d, 4); k<<<1,64>>>(d); cudaFree(d); }\n"
    )
    hip = (
        "#include <hip/hip_runtime.h>\n"
        "__global__ void k(int* o){ int lane = hipThreadIdx_x & 31; o[lane] = warpSize; }\n"
        "void h(int* d){ hipMalloc(&d, 4); hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d);"
        " hipFree(d); }\n"
    )
    assert "HZ101" in rules_of(cuda)
    assert "HZ101" in rules_of(hip, "t.hip")
