"""One discovery policy (issue 27): convert, check, report and verify work on the same files; a
build system is one module that declares its own file names; each file is classified once."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py import cache as cache_mod
from hipify_py import rules, runner
from hipify_py.buildfiles import registry
from hipify_py.cli import root
from hipify_py.discover import FileKind, classify
from hipify_py.verify.compile import collect_sources

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* p) {
#if __CUDA_ARCH__ >= 800
  p[threadIdx.x] = 0.f;
#endif
}
int main() { float* p; cudaMalloc(&p, 64); k<<<1, 16>>>(p); return 0; }
"""
# every CUDA file and build file reports a finding, so check's report names each one it read
FILES = {
    "src/k.cu": KERNEL,
    "include/k.cuh": "#include <cuda_runtime.h>\n#if __CUDA_ARCH__ >= 800\n#endif\n",
    ".hidden/h.cpp": "void g() { cudaDeviceSynchronize(); }\n#if __CUDA_ARCH__ >= 800\n#endif\n",
    "src/host.cpp": "int plain() { return 1; }\n",
    "CMakeLists.txt": "project(p LANGUAGES CXX CUDA)\nset(CUDA_SEPARABLE_COMPILATION ON)\n",
    "cmake/cuda.cmake": "set(CUDA_SEPARABLE_COMPILATION ON)\n",
    "Makefile": "k: src/k.cu\n\tnvcc -arch=sm_80 --use_fast_math -o k src/k.cu\n",
    ".config/notes.txt": "cudaMalloc mentioned in prose\n",
    "tools/x.py": "print(1)\n",
    "README.md": "# a project\n",
    # never looked at: tool directories and a CMake build tree
    "venv/lib/v.cu": KERNEL,
    ".git/objects/o.cu": KERNEL,
    "build-release/CMakeCache.txt": "# a CMake build tree\n",
    "build-release/CMakeFiles/id.cu": KERNEL,
}
WALKED = sorted(
    rel for rel in FILES if not rel.startswith(("venv/", ".git/", "build-release/"))
)  # fmt: skip
CONVERTED = ["src/k.cu", "include/k.cuh", ".hidden/h.cpp", "CMakeLists.txt", "cmake/cuda.cmake",
             "Makefile"]  # fmt: skip


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(root, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tree above under ``proj/``, the working directory, a cache of this test's own."""
    monkeypatch.setattr(cache_mod, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    for rel, text in FILES.items():
        (tmp_path / "proj" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "proj" / rel).write_text(text)
    return tmp_path / "proj"


def _as_source(rel: str) -> str:
    return rel[: -len(".hip")] + ".cu" if rel.endswith(".hip") else rel


def test_convert_check_report_and_verify_see_the_same_files(project: Path) -> None:
    code, _ = cli("convert", "proj", "-j", "1", "-q", "--json", "convert.json")
    assert code == 0
    out = project.with_name("proj-hip")
    written = sorted(
        _as_source(p.relative_to(out).as_posix())
        for p in out.rglob("*")
        if p.is_file() and p.name != ".hipify-py-manifest.json"
    )
    assert written == WALKED
    counts = json.loads(Path("convert.json").read_text())["files"]
    assert (counts["scanned"], counts["copied"]) == (len(CONVERTED), len(WALKED) - len(CONVERTED))

    # check: the same files read (each reports a finding), and the HIP tree is complete and
    # current for them (a file convert wrote but check did not see would be orphaned)
    # (HZ501, which two files draw, is opt-in)
    code, text = cli("check", "proj", "--in-sync", "proj-hip", "--format", "json", "--fail-on",
                     "error", "--enable", "HZ501")  # fmt: skip
    report = json.loads(text)
    assert report["summary"]["files"] == len(CONVERTED)
    found = {Path(f["path"]).relative_to("proj").as_posix() for f in report["findings"]}
    assert found == set(CONVERTED), report["findings"]
    assert not [f for f in report["findings"] if f["rule"] == "HZ001"]

    # report: every file, copied ones included
    code, _ = cli("report", "proj", "-o", "report.html")
    assert code == 0
    listed = set(re.findall(r"proj/[\w./-]+", Path("report.html").read_text()))
    assert {p.removeprefix("proj/") for p in listed} == set(WALKED)
    code, md = cli("report", "proj", "--format", "markdown", "-o", "-")
    assert f"**{len(WALKED)} files**" in md

    # verify: the translation units of exactly what convert wrote, hidden directory included
    units = sorted(_as_source(p.relative_to(out).as_posix()) for p, _ in collect_sources([out]))
    assert units == [".hidden/h.cpp", "src/host.cpp", "src/k.cu"]


PROBE = '''"""A probe build system: Meson's meson.build, its CUDA language -> HIP."""
from hipify_py.buildfiles.registry import build_system
from hipify_py.buildfiles.unit import BUILD_EDITS
from hipify_py.edits import Edit
from hipify_py.rules import build_pass

build_system("meson-probe", names=("meson.build",), patterns=("*.meson",))


@build_pass("meson-probe", "meson-probe", tallies=(BUILD_EDITS,))
def convert(unit, ctx):
    start = unit.text.find("'cuda'")
    if start >= 0:
        yield Edit(start, start + 6, "'hip'", "build/meson-probe")
'''


@pytest.fixture
def probe_build_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe above as one new module, imported (it registers itself), and unregistered
    after the test."""
    registry.build_systems()  # the package's own, loaded first: the copies must hold them
    rules.load_rules()
    monkeypatch.setattr(registry, "_SYSTEMS", dict(registry._SYSTEMS))
    monkeypatch.setattr(rules, "PASSES", list(rules.PASSES))
    path = tmp_path / "meson_probe.py"
    path.write_text(PROBE)
    spec = importlib.util.spec_from_file_location("meson_probe", path)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_a_build_system_declared_in_one_module_is_discovered_and_converted(
    project: Path, probe_build_system: None
) -> None:
    (project / "meson.build").write_text("project('p', 'cpp', 'cuda')\n")
    (project / "sub").mkdir()
    (project / "sub" / "kernels.meson").write_text("add_languages('cuda')\n")
    (project / "sub" / "other.meson").write_text("add_languages('cpp')\n")  # says nothing of CUDA
    assert classify(Path("meson.build"), b"'cuda'") == FileKind(build="meson-probe")
    code, _ = cli("convert", "proj", "-j", "1", "-q", "--json", "convert.json")
    assert code == 0
    out = project.with_name("proj-hip")
    assert (out / "meson.build").read_text() == "project('p', 'cpp', 'hip')\n"
    assert (out / "sub" / "kernels.meson").read_text() == "add_languages('hip')\n"
    assert (out / "sub" / "other.meson").read_text() == "add_languages('cpp')\n"
    summary = json.loads(Path("convert.json").read_text())
    assert summary["files"]["scanned"] == len(CONVERTED) + 2
    assert summary["conversions"]["build_file_edits"] >= 2


def test_each_file_is_classified_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One decision per file and run: the outcome carries it; a file the cache holds is not
    classified again (its record says what it is)."""
    calls: Counter[str] = Counter()

    def counting(path: Path, data: bytes) -> FileKind:
        calls[path.relative_to("proj").as_posix()] += 1
        return classify(path, data)

    monkeypatch.setattr(runner, "classify", counting)
    for command in (["convert", "proj", "--out-dir", "out", "-q"], ["check", "proj"]):
        calls.clear()
        cli(*command, "-j", "1")
        assert calls == Counter(WALKED), command
        calls.clear()
        cli(*command, "-j", "1")
        assert calls == Counter(), command  # every file from the cache


def test_report_lays_out_several_inputs_as_convert_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two inputs with a same-named file: convert writes ``out/a/k.hip`` and ``out/b/k.hip``,
    and the report names those outputs (it named both ``k.hip``, and ``report --verify``
    wrote them over each other)."""
    monkeypatch.setattr(cache_mod, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "k.cu").write_text(KERNEL)
    assert cli("convert", "a", "b", "--out-dir", "out", "-q")[0] == 0
    written = sorted(p.relative_to("out").as_posix() for p in Path("out").rglob("*.hip"))
    assert written == ["a/k.hip", "b/k.hip"]
    assert cli("report", "a", "b", "-o", "report.html")[0] == 0
    named = set(re.findall(r"\b[ab]/k\.hip\b", Path("report.html").read_text()))
    assert sorted(named) == written


def test_a_dot_hu_header_is_cuda(tmp_path: Path) -> None:
    """LightGBM's CUDA headers are `.hu` (`cuda_utils.hu` includes <cuda.h>); copied as not
    CUDA, 11 of its 15 TUs failed with no finding (held out)."""
    header = tmp_path / "cuda_utils.hu"
    header.write_text("#include <cuda.h>\n#include <cuda_runtime.h>\n")
    assert classify(header, header.read_bytes()).cuda
    out = tmp_path / "out"
    result = CliRunner().invoke(root, ["convert", str(tmp_path), "--out-dir", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert (out / "cuda_utils.hu").read_text() == "#include <hip/hip_runtime.h>\n"
