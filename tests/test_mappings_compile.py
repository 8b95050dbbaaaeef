"""Compile check: a deterministic sample of HIP runtime names from the tables exists in HIP 5.2.

Uses Debian's hipcc (HIP 5.2).  Skipped when hipcc is missing, except under CI=true, where a
missing hipcc is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from hipify_py.mappings import load_index

SAMPLE = 100


def _ver(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _sample():
    index = load_index()
    pool = sorted(
        {
            (e.hip, e.kind)
            for e in index.entries.values()  # the names conversion emits (overrides applied)
            if e.family == "runtime"
            and e.status == "supported"
            and e.kind in ("function", "type", "enum")
            and e.hip_added
            and _ver(e.hip_added) <= (5, 2, 0)
        }
    )
    step = max(1, len(pool) // SAMPLE)
    return pool[::step][:SAMPLE]


def _source(sample) -> str:
    lines = ["#include <hip/hip_runtime.h>", ""]
    body = []
    for n, (name, kind) in enumerate(sample):
        if kind == "function":
            # using-declarations accept overloaded and template functions alike.
            lines += [f"#ifndef {name}", f"namespace chk_{n} {{ using ::{name}; }}", "#endif"]
        elif kind == "type":
            body.append(f"  (void)sizeof({name}*);")
        else:
            body.append(f"  (void)(int){name};")
    lines += ["", "void hipify_py_check() {", *body, "}", ""]
    return "\n".join(lines)


def test_sample_names_compile(tmp_path):
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required when CI=true)")
        pytest.skip("hipcc not found")
    sample = _sample()
    assert len(sample) >= 90
    kinds = {k for _, k in sample}
    assert kinds == {"function", "type", "enum"}
    src = tmp_path / "f.hip"
    src.write_text(_source(sample))
    env = dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run(
        [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", str(src)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    print(f"checked {len(sample)} names: {sorted(kinds)}")
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert proc.returncode == 0, "\n".join(errors[:20]) or proc.stderr[-2000:]
