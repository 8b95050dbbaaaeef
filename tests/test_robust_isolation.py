"""A libclang crash or hang on one file costs that file its AST, not the run."""

from __future__ import annotations

import ctypes
import threading
import time

import pytest

import hipify_py.frontend.clang as clang
from _convert import ctx, result
from hipify_py.frontend.unit import Unit

BROKEN = """#include <cuda_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1; }
int main() { k<<<1, 64>>>(nullptr); cudaDeviceSynchronize(); return 0; }
"""


def _segfault(*args, **kwargs):
    ctypes.string_at(0)  # a read of address 0: SIGSEGV, as libclang crashes


def _hang(*args, **kwargs):
    time.sleep(30)


def _spin(*args, **kwargs):
    while True:  # a parse that computes forever, as libclang's quadratic paths do
        pass


def test_a_crashing_parse_falls_back_to_tokens_and_is_reported(monkeypatch):
    # the child process dies; the parent, told so, never parses at all
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _segfault)
    out = result(BROKEN)
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, nullptr)" in out.text
    assert "hipDeviceSynchronize()" in out.text
    assert any("libclang crashed (SIGSEGV)" in p for p in out.parse_problems)
    assert out.error is None


def test_a_hanging_parse_is_cut_off(monkeypatch):
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _hang)
    monkeypatch.setattr(clang, "PARSE_SECONDS", 1)
    t0 = time.monotonic()
    out = result(BROKEN)
    assert time.monotonic() - t0 < 20
    assert any("libclang hung (asleep for 1 s)" in p for p in out.parse_problems)


def test_a_parse_is_limited_by_cpu_time_not_by_the_clock(monkeypatch):
    """Wall time depends on the machine's load; CPU time much less, so the same file gets the
    same verdict (and the same output) on a busy machine."""
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _spin)
    monkeypatch.setattr(clang, "PARSE_SECONDS", 1)
    out = result(BROKEN)
    assert any("took over 1 s of CPU time" in p for p in out.parse_problems)


def _spin_on_a_thread(*args, **kwargs):
    worker = threading.Thread(target=_spin, daemon=True)  # libclang parses on its own thread
    worker.start()
    worker.join()  # the first thread waits: asleep, while the parse runs


def test_a_parse_on_another_thread_is_running_not_asleep(monkeypatch):
    """The first thread's state alone made every parse over PARSE_SECONDS of wall time a
    "hang" (fuzz input 28640, which then converted differently from run to run)."""
    monkeypatch.setattr("hipify_py.frontend.unit.parse", _spin_on_a_thread)
    monkeypatch.setattr(clang, "PARSE_SECONDS", 1)
    out = result(BROKEN)
    assert any("took over 1 s of CPU time" in p for p in out.parse_problems)


@pytest.mark.parametrize(
    ("src", "risky"),
    [
        (BROKEN, True),
        ("int x = " + "(" * 60 + "1" + ")" * 60 + ";\n", True),
        ("// caf\u00e9\nint x;\n", False),  # UTF-8 is ordinary source
        ("int x = f(1);\n", False),
    ],
)
def test_risky_input_is_parsed_in_a_child_first(monkeypatch, src, risky):
    """Broken, deeply nested or NUL-holding input is probed; the probe's verdict is the AST's."""
    calls = []
    real = clang.crash_of
    monkeypatch.setattr("hipify_py.frontend.unit.crash_of", lambda *a: calls.append(1) or real(*a))
    unit = Unit("t.cu", src, ctx().mappings)
    assert unit.ast is not None
    assert bool(calls) is risky
