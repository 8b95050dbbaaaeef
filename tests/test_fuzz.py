"""Fuzz the conversion and the check on mutated real sources, and the CLI on a mutated tree.

Mutations (``tests/_mutations.py``): truncation, splices of two sources, unbalanced brackets,
quotes and ``<<<``/``>>>``, unterminated comments and raw strings, deep nesting, NUL bytes,
invalid UTF-8, CR-only line endings and BOMs.  CI runs a small fixed number of examples (well
under a minute); maintainers run more with ``HIPIFY_PY_FUZZ_EXAMPLES=5000`` or the isolated
campaign ``python benchmarks/fuzz_campaign.py`` (which also survives crashes and hangs).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _convert import ctx
from _mutations import MUTATIONS, mutate, seeds
from hipify_py.output.manifest import MANIFEST_NAME
from hipify_py.pipeline import check_result, convert_text

EXAMPLES = int(os.environ.get("HIPIFY_PY_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # speed is measured by benchmarks/, not asserted here
    derandomize=os.environ.get("CI") == "true",  # the same examples on every CI run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@st.composite
def mutated(draw) -> bytes:
    data = draw(st.sampled_from(seeds()))
    rng = random.Random(draw(st.integers(0, 2**32)))
    for step in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4)):
        data = step(rng, data)
    return data


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


@FUZZ
@given(mutated())
def test_convert_never_raises_conflicts_or_loses_a_rule_and_is_idempotent(data):
    text = _text(data)
    out = convert_text(text, "m.cu", ctx())
    assert out.error is None, out.error  # no two rules edit the same bytes
    assert out.rule_errors == []
    out.data  # noqa: B018 - the bytes to write can always be produced
    if out.changed:
        again = convert_text(out.text, "m.cu", ctx())
        assert again.error is None and again.rule_errors == []
        assert again.text == out.text, "converting twice differs from converting once"


@FUZZ
@given(mutated())
def test_check_never_raises_or_loses_a_rule(data):
    assert check_result(_text(data), "m.cu", ctx()).rule_errors == []


def test_cli_survives_a_tree_of_mutated_sources(tmp_path):
    """Whole runs of convert and check (process pool included) over a mutated tree: one-line
    failures at most, never a traceback, and a second convert of the output changes nothing."""
    src = tmp_path / "src"
    src.mkdir()
    for n in range(24):
        (src / f"m{n}.cu").write_bytes(mutate(n)[0])
    env = {**os.environ, "COLUMNS": "120"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "hipify_py", *args],
            capture_output=True,
            env=env,
            timeout=300,
        )

    first = run("convert", str(src), "--out-dir", str(tmp_path / "one"), "-q", "--jobs", "2")
    check = run("check", str(src), "--jobs", "2")
    for proc in (first, check):
        assert b"Traceback" not in proc.stderr + proc.stdout
        assert proc.returncode in (0, 1)
    second = run("convert", str(tmp_path / "one"), "--out-dir", str(tmp_path / "two"), "-q")
    assert b"Traceback" not in second.stderr
    for out in (tmp_path / "one").iterdir():
        if out.name == MANIFEST_NAME:  # describes its own tree (sources, hashes)
            continue
        assert (tmp_path / "two" / out.name).read_bytes() == out.read_bytes(), out.name
