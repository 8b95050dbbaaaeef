"""Helpers for directories of reproducers (``fixtures/units``, ``fixtures/sample_units``):
each file is real CUDA that nvcc builds, and the command line converts the directory once."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from _convert import hip


def assert_nvcc_builds(nvcc: str, files: Iterable[Path], flags: list[str], tmp: Path) -> None:
    """Each file compiles for sm_90 with ``flags`` (library include directories)."""
    for src in files:
        cmd = [nvcc, "-arch=sm_90", "-std=c++17", *flags, "-c", str(src), "-o", str(tmp / "a.o")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, src.name + proc.stdout + proc.stderr


def convert_directory(src: Path, out: Path) -> Path:
    """``hipify-py convert src --out-dir out`` as a user runs it; the output directory."""
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(src), "--out-dir", str(out)]
    proc = subprocess.run(
        [*cmd, "--no-cache", "-j1", "-q"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def converted_tree(nvcc: str, tmp: Path, name: str, files: dict[str, str], source: str) -> Path:
    """Write ``files`` (file name -> text) as the project ``tmp/name``, check that nvcc builds
    its ``source``, and convert the tree as a user does (into ``tmp/out``): the output."""
    tree = tmp / name
    tree.mkdir()
    for file, text in files.items():
        (tree / file).write_text(text)
    assert_nvcc_builds(nvcc, [tree / source], [], tmp)
    return convert_directory(tree, tmp / "out")


def assert_converted_compiles(converted: Path, name: str, gfx942_check: Callable) -> None:
    """The conversion of fixture ``name`` (in the converted directory) compiles for gfx942."""
    src = converted / name.replace(".cu", ".hip")
    proc = gfx942_check(src)
    assert proc.returncode == 0, src.read_text() + proc.stderr[-3000:]


def assert_ported_builds(nvcc: str, gfx942_check: Callable, tmp: Path, name: str, src: str) -> None:
    """``src`` compiles with nvcc for sm_90, and its conversion for gfx942."""
    cu = tmp / f"{name}.cu"
    cu.write_text(src)
    cmd = [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp / f"{name}.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    converted = tmp / f"{name}.hip"
    converted.write_text(hip(src))
    proc = gfx942_check(converted)
    assert proc.returncode == 0, proc.stderr[-2000:]
