"""The tree's include graph resolves each include as a compiler would, so two headers of one
name in two directories are two files: round 38's CUDA_optimazation has `GEMM/include/` and
`GEMMsm110/include/`, each with a `gemm_common.cuh` defining `kWarpSize = 32`; a kernel of
`GEMM/` that votes across the wavefront with it made the `GEMMsm110` copy, which no file of
`GEMM/` includes, draw a false HZ107."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check
from test_hazard_warp_model import GROUP_USER, HEADER_CONSTANT, VOTE_USER


def _hz107_at(root: Path) -> list[tuple[str, int]]:
    """(the finding's path relative to ``root``, its line) of `check --select HZ107`."""
    args = [str(root), "--select", "HZ107", "--format", "json", "--no-cache", "-j1"]
    run = CliRunner().invoke(check, args, catch_exceptions=False)
    return sorted(
        (Path(f["path"]).resolve().relative_to(root.resolve()).as_posix(), f["line"])
        for f in json.loads(run.stdout)["findings"]
    )


def test_a_header_is_decided_by_the_files_that_include_it_not_by_its_name(nvcc, tmp_path):
    used, other = tmp_path / "gemm", tmp_path / "gemm_next"
    for d in (used, other):
        d.mkdir()
        (d / "common.h").write_text(HEADER_CONSTANT)
    (used / "votes.cu").write_text(VOTE_USER)
    (other / "rows.cu").write_text(GROUP_USER)  # consistent 32-lane groups: right on 64 lanes
    assert_nvcc_builds(nvcc, [used / "votes.cu", other / "rows.cu"], [], used)
    assert _hz107_at(tmp_path) == [("gemm/common.h", 3)]


def test_an_include_resolved_nowhere_reaches_every_file_of_its_name(tmp_path):
    # `#include <common.h>` (an -I directory the build names) may mean either copy: both count
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "common.h").write_text(HEADER_CONSTANT)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "votes.cu").write_text(VOTE_USER.replace('"common.h"', "<common.h>"))
    assert _hz107_at(tmp_path) == [("a/common.h", 3), ("b/common.h", 3)]
