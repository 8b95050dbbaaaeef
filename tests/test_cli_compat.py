"""HIPIFY spellings of ``convert``'s arguments, rewritten to ours (``cli/compat.py``)."""

from __future__ import annotations

import pytest

from hipify_py.cli.compat import normalize_argv


@pytest.mark.parametrize(
    ("hipify", "ours"),
    [
        (["a.cu", "--", "-DX", "-I/i"], ["a.cu", "--clang-arg=-DX", "--clang-arg=-I/i"]),
        (["-o=out.hip", "a.cu"], ["-o", "out.hip", "a.cu"]),
        (["-inplace", "a.cu"], ["--in-place", "a.cu"]),
        (["-roc", "-cuda-path=/c", "a.cu"], ["--roc", "--cuda-path=/c", "a.cu"]),
        (["--inplace=1"], ["--in-place"]),
        (["--o-dir", "out", "a.cu"], ["--out-dir", "out", "a.cu"]),
        (["--o-dir=out"], ["--out-dir=out"]),
        (["--temp-dir", "/t", "a.cu"], ["a.cu"]),  # dropped with its value
        (["--temp-dir=/t", "a.cu"], ["a.cu"]),
        (["--exclude-dirs", "x,y", "a"], ["--exclude=x/*", "--exclude=y/*", "a"]),
        (["--exclude-files=k.cu,", "a"], ["--exclude=k.cu", "a"]),
        (["a", "--exclude-dirs"], ["a"]),  # no value left
        (["--print-stats", "--examine", "a.cu"], ["--dry-run", "a.cu"]),
        (["--default-preprocessor", "a.cu"], ["--skip-inactive", "a.cu"]),
        (["--default-preprocessor", "--amap", "a.cu"], ["a.cu"]),  # --amap wins
        (["--fix", "-j", "2", "a.cu"], ["--fix", "-j", "2", "a.cu"]),  # ours pass as they are
    ],
)
def test_hipify_arguments_become_ours(hipify: list[str], ours: list[str]) -> None:
    assert normalize_argv(hipify) == ours
