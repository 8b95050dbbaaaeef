"""Build files through ``convert`` and ``check`` as a user runs them: the rename map of the
run, the dry-run diff, the summary, --offload-arch, findings with locations."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 1; }\n"
CMAKE = """\
project(p LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
add_library(k STATIC src/k.cu vendor/prebuilt.cu)
set(CMAKE_CUDA_HOST_COMPILER g++-12)
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    cmd = [sys.executable, "-m", "hipify_py", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "vendor").mkdir()
    (root / "src" / "k.cu").write_text(KERNEL)
    (root / "vendor" / "prebuilt.cu").write_text(KERNEL)
    (root / "CMakeLists.txt").write_text(CMAKE)
    (root / "README.md").write_text("built with CMake's CUDA language\n")
    return root


def test_convert_rewrites_the_build_file_with_the_runs_renames(project, tmp_path):
    out = tmp_path / "out"
    summary = tmp_path / "s.json"
    proc = cli(
        "convert", str(project), "--out-dir", str(out), "--exclude", "vendor/*",
        "--offload-arch", "gfx90a", "--json", str(summary), "-q",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cmake = (out / "CMakeLists.txt").read_text()
    # vendor/ is excluded: its .cu keeps its name, so the build file must too
    assert "add_library(k STATIC src/k.hip vendor/prebuilt.cu)\n" in cmake
    assert "set_source_files_properties(vendor/prebuilt.cu PROPERTIES LANGUAGE HIP)" in cmake
    assert "project(p LANGUAGES CXX HIP)" in cmake
    assert "set(CMAKE_HIP_ARCHITECTURES gfx90a)" in cmake
    assert (out / "src" / "k.hip").is_file()
    assert (out / "README.md").read_text() == (project / "README.md").read_text()
    data = json.loads(summary.read_text())
    assert data["conversions"]["build_file_edits"] == 5
    assert data["files"]["converted"] == 2 and data["files"]["copied"] == 1
    assert data["findings_by_rule"] == {"HB101": 1}
    # converting the converted tree again changes nothing
    again = tmp_path / "again"
    assert cli("convert", str(out), "--out-dir", str(again), "-q").returncode == 0
    assert (again / "CMakeLists.txt").read_text() == cmake


def test_dry_run_shows_the_build_file_diff(project):
    proc = cli("convert", str(project), "--dry-run", "-q")
    assert proc.returncode == 0, proc.stderr
    assert "--- a/CMakeLists.txt\n+++ b/CMakeLists.txt\n" in proc.stdout
    assert "-add_library(k STATIC src/k.cu vendor/prebuilt.cu)\n" in proc.stdout
    assert "+add_library(k STATIC src/k.hip vendor/prebuilt.hip)\n" in proc.stdout
    assert not (project.parent / "proj-hip").exists()


def test_check_reports_build_findings_with_their_location(project):
    proc = cli("check", str(project), "--format", "json", "--fail-on", "warning")
    assert proc.returncode == 1, proc.stderr
    found = [
        (f["rule"], Path(f["path"]).name, f["line"])
        for f in json.loads(proc.stdout)["findings"]
        if f["rule"].startswith("HB")
    ]
    assert found == [("HB101", "CMakeLists.txt", 4)]


def test_explain_prints_a_build_rule_page():
    proc = cli("explain", "HB102")
    assert proc.returncode == 0, proc.stderr
    assert "-fgpu-rdc" in proc.stdout and "How to fix" in proc.stdout
