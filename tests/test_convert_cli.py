"""``hipify-py convert`` as a user runs it: files, modes, exit codes, safety."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipify_py.output.manifest import MANIFEST_NAME

KERNEL = """#include <cuda_runtime.h>
__global__ void add(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}
void run(float* a, int n) {
  add<<<(n + 255) / 256, 256>>>(a, n);
  cudaDeviceSynchronize();
}
"""


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "hipify_py", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        errors="surrogateescape",  # a diff keeps the bytes of a source that is not UTF-8
        timeout=120,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "kern.cu").write_text(KERNEL)
    (src / "sub" / "helpers.cuh").write_text(
        '#pragma once\n#include "cuda_runtime.h"\n'
        "__device__ inline float twice(float x) { return 2 * x; }\n"
    )
    (src / "main.cpp").write_text('#include "kern.cu"\nint main() { return 0; }\n')
    (src / "notes.txt").write_text("cudaMalloc stays here\n")
    (src / "blob.bin").write_bytes(bytes(range(256)))
    (src / "latin1.cu").write_bytes("// caf\xe9\ncudaFree(p);\n".encode("latin-1"))
    return src


def snapshot(root: Path) -> dict[str, bytes]:
    """The files of a tree (not the manifest convert keeps about it)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != MANIFEST_NAME
    }


def test_plain_convert_writes_a_sibling_tree_and_never_touches_input(tree: Path) -> None:
    before = snapshot(tree)
    proc = cli("convert", str(tree))
    assert proc.returncode == 0, proc.stderr
    assert snapshot(tree) == before
    out = tree.with_name("src-hip")
    assert "src-hip" in proc.stderr
    kern = (out / "kern.hip").read_text()
    assert "hipLaunchKernelGGL(add, dim3((n + 255) / 256), dim3(256), 0, 0, a, n);" in kern
    assert "#include <hip/hip_runtime.h>" in kern
    assert (out / "sub" / "helpers.cuh").read_text().count("hip/hip_runtime.h") == 1
    assert '#include "kern.hip"' in (out / "main.cpp").read_text()
    # non-CUDA and binary files are copied byte for byte
    assert (out / "notes.txt").read_bytes() == before["notes.txt"]
    assert (out / "blob.bin").read_bytes() == before["blob.bin"]
    # a CUDA source that is not UTF-8 is converted; its other bytes pass through unchanged
    latin1 = (out / "latin1.hip").read_bytes()
    assert latin1 == b"// caf\xe9\n#include <hip/hip_runtime.h>\nhipFree(p);\n"


def test_out_dir_keep_names_and_json_summary(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "hip"
    proc = cli("convert", str(tree), "--out-dir", str(out), "--keep-names", "--json", "-", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (out / "kern.cu").exists() and not (out / "kern.hip").exists()
    summary = json.loads(proc.stdout)
    assert summary["files"]["converted"] == 3  # kern.cu, helpers.cuh, latin1.cu
    assert summary["files"]["unchanged"] == 1  # main.cpp: its include keeps the .cu name
    assert summary["conversions"]["launches_rewritten"] == 1
    assert summary["conversions_by_family"]["runtime"] >= 1


def test_second_conversion_of_the_output_changes_nothing(tree: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    assert cli("convert", str(tree), "--out-dir", str(first), "-q").returncode == 0
    assert cli("convert", str(first), "--out-dir", str(second), "-q").returncode == 0
    assert snapshot(first) == snapshot(second)


def test_dry_run_writes_nothing_and_prints_a_plain_diff(tree: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    proc = cli("convert", str(tree), "--dry-run", "-q")
    assert proc.returncode == 0, proc.stderr
    assert snapshot(tmp_path) == before
    assert "--- a/kern.cu" in proc.stdout and "+++ b/kern.hip" in proc.stdout
    assert "-  cudaDeviceSynchronize();" in proc.stdout
    assert "+  hipDeviceSynchronize();" in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colour codes when piped


def test_dry_run_diff_file(tree: Path, tmp_path: Path) -> None:
    diff = tmp_path / "changes.diff"
    assert cli("convert", str(tree), "--dry-run", "--diff-file", str(diff), "-q").returncode == 0
    assert "+  hipDeviceSynchronize();" in diff.read_text("utf-8", "surrogateescape")


def test_in_place_rewrites_atomically_with_a_backup(tree: Path) -> None:
    original = (tree / "kern.cu").read_bytes()
    proc = cli("convert", str(tree), "--in-place", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tree / "kern.cu.prehip").read_bytes() == original
    assert "hipLaunchKernelGGL" in (tree / "kern.cu").read_text()
    assert not list(tree.glob(".*.tmp"))
    # a second run keeps the first (original) backup
    assert cli("convert", str(tree), "--in-place", "-q").returncode == 0
    assert (tree / "kern.cu.prehip").read_bytes() == original


def test_single_file_to_stdout_and_hipify_clang_spellings(tree: Path, tmp_path: Path) -> None:
    proc = cli("convert", str(tree / "kern.cu"), "--stdout", "-q")
    assert proc.returncode == 0 and "hipLaunchKernelGGL(add," in proc.stdout
    target = tmp_path / "out.hip"
    proc = cli(
        "convert",
        "--cuda-kernel-execution-syntax",
        f"-o={target}",
        str(tree / "kern.cu"),
        "--",
        "-DFOO=1",
    )
    assert proc.returncode == 0, proc.stderr
    assert "add<<<(n + 255) / 256, 256>>>(a, n);" in target.read_text()


def test_single_file_default_output_is_beside_it(tree: Path) -> None:
    assert cli("convert", str(tree / "kern.cu"), "-q").returncode == 0
    assert (tree / "kern.hip").exists()


def test_usage_errors_exit_2_with_one_line(tree: Path) -> None:
    for args in (
        ["convert", str(tree), "--no-such-option"],
        ["convert", str(tree / "missing")],
        ["convert", str(tree), "--stdout"],
        ["convert", str(tree), "--target-rocm", "seven"],
    ):
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_broken_user_mapping_is_a_clear_error(tree: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("family: mine\nentries:\n  - {cuda: myMalloc, kind: function}\n")
    proc = cli("convert", str(tree), "--mapping", str(rules), "--dry-run")
    assert proc.returncode == 2
    assert "rules.yaml" in proc.stderr and "Traceback" not in proc.stderr


def test_user_mapping_renames_team_wrappers(tree: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "family: mine\ntitle: team wrappers\nsource: ours\nentries:\n"
        "  - {cuda: CUDA_SAFE, hip: HIP_SAFE, kind: macro, status: supported}\n"
    )
    (tree / "kern.cu").write_text("void f() { CUDA_SAFE(cudaFree(0)); }\n")
    proc = cli("convert", str(tree / "kern.cu"), "--stdout", "-q", "--mapping", str(rules))
    assert "HIP_SAFE(hipFree(0));" in proc.stdout


def test_unreadable_and_huge_files_fail_with_exit_1(tree: Path, tmp_path: Path) -> None:
    huge = tree / "huge.cu"
    huge.write_bytes(b"// x\n" * (4 * 1024 * 1024))
    proc = cli("convert", str(tree), "--out-dir", str(tmp_path / "o"))
    assert proc.returncode == 1
    assert "too large" in proc.stderr and "Traceback" not in proc.stderr


def test_file_that_does_not_parse_is_still_translated(tmp_path: Path) -> None:
    broken = tmp_path / "broken.cu"
    broken.write_text("void f( {\n  cudaMalloc(&p, 4);\n  k<<<1, 2>>>(p);\n")
    proc = cli("convert", str(broken), "--stdout")
    assert proc.returncode == 0
    assert "hipMalloc(&p, 4);" in proc.stdout
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, p);" in proc.stdout
    assert "parse problem" in proc.stderr


BRANCH_BRACES = Path(__file__).parent / "fixtures" / "parse" / "branch_braces.cu"


def test_branch_braces_fixture_is_real_cuda(nvcc: str, tmp_path: Path) -> None:
    cmd = [nvcc, "-arch=sm_90", "-c", str(BRANCH_BRACES), "-o", str(tmp_path / "k.o")]
    assert subprocess.run(cmd, capture_output=True).returncode == 0


@pytest.mark.parametrize("options", [(), ("--skip-inactive",)])
def test_well_formed_file_reports_no_parse_problem(options: tuple[str, ...]) -> None:
    """A block opened in both arms of `#ifdef` / `#else` and types from a header the hermetic
    parse does not open: nvcc compiles it, so a "parse problem" would be noise."""
    proc = cli("convert", str(BRANCH_BRACES), "--stdout", *options)
    assert proc.returncode == 0, proc.stderr
    assert "hipLaunchKernelGGL(blur" in proc.stdout
    assert "parse problem" not in proc.stderr


def test_strict_fails_on_unsupported_apis(tmp_path: Path) -> None:
    f = tmp_path / "u.cu"
    f.write_text("void f() { cudaDeviceGetNvSciSyncAttributes(0, 0, 0); }\n")
    assert cli("convert", str(f), "--stdout", "-q").returncode == 0
    assert cli("convert", str(f), "--stdout", "-q", "--strict").returncode == 1


def test_parallel_and_serial_runs_agree(tree: Path, tmp_path: Path) -> None:
    for i in range(8):
        (tree / f"k{i}.cu").write_text(KERNEL.replace("add", f"add{i}"))
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("convert", str(tree), "--out-dir", str(a), "-j", "1", "-q").returncode == 0
    assert cli("convert", str(tree), "--out-dir", str(b), "-j", "2", "-q").returncode == 0
    assert snapshot(a) == snapshot(b)


def test_output_inside_input_is_not_rescanned(tree: Path) -> None:
    out = tree / "hip-out"
    assert cli("convert", str(tree), "--out-dir", str(out), "-q").returncode == 0
    assert not (out / "hip-out").exists()
    assert cli("convert", str(tree), "--out-dir", str(tree)).returncode == 2


def test_output_file_that_is_the_input_is_refused(tree: Path) -> None:
    before = (tree / "kern.cu").read_bytes()
    proc = cli("convert", str(tree / "kern.cu"), "-o", str(tree / "kern.cu"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert (tree / "kern.cu").read_bytes() == before


def test_fifo_in_the_tree_is_skipped_not_read(tree: Path, tmp_path: Path) -> None:
    os.mkfifo(tree / "pipe.cu")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hipify_py",
            "convert",
            str(tree),
            "--out-dir",
            str(tmp_path / "o"),
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "kern.hip").exists() and not (tmp_path / "o" / "pipe.hip").exists()
    assert cli("convert", str(tree / "pipe.cu"), "--stdout").returncode == 2


def test_byte_order_mark_and_crlf_are_kept(tmp_path: Path) -> None:
    src = tmp_path / "bom.cu"
    src.write_bytes(b"\xef\xbb\xbf#include <cuda_runtime.h>\r\n__global__ void k() {}\r\n")
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(src), "--stdout", "-q"],
        capture_output=True,
        timeout=60,
    )
    assert proc.stdout == b"\xef\xbb\xbf#include <hip/hip_runtime.h>\r\n__global__ void k() {}\r\n"
    src.write_bytes(b"\xef\xbb\xbf__global__ void k() {}\r\n")
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(src), "--stdout", "-q"],
        capture_output=True,
        timeout=60,
    )
    assert proc.stdout == b"\xef\xbb\xbf#include <hip/hip_runtime.h>\r\n__global__ void k() {}\r\n"


def test_strict_sees_error_findings_in_parallel_runs(tree: Path, tmp_path: Path) -> None:
    for i in range(6):
        (tree / f"w{i}.cu").write_text(
            '__global__ void k(float* p) { asm volatile("membar.gl;"); p[0] = 1.f; }\n'
        )
    args = ["convert", str(tree), "--out-dir", str(tmp_path / "o"), "-j", "2"]
    assert cli(*args, "-q").returncode == 0
    proc = cli(*args, "--strict")
    assert proc.returncode == 1
    assert "inline-ptx" in proc.stderr  # rule names resolve in the parent process


def test_name_collision_is_reported_not_silently_lost(tree: Path, tmp_path: Path) -> None:
    (tree / "kern.hip").write_text("// hand-written\n")
    out = tmp_path / "o"
    proc = cli("convert", str(tree), "--out-dir", str(out), "-q")
    assert proc.returncode == 1 and "name collision" in proc.stderr
    assert "hipLaunchKernelGGL" in (out / "kern.hip").read_text()
    # an empty placeholder of that name (cuSZ, rw27) holds nothing to lose: no collision
    (tree / "kern.hip").write_text("")
    proc = cli("convert", str(tree), "--out-dir", str(tmp_path / "o2"), "-q")
    assert proc.returncode == 0, proc.stderr
    assert "hipLaunchKernelGGL" in (tmp_path / "o2" / "kern.hip").read_text()


def test_converted_files_keep_the_source_permissions(tree: Path, tmp_path: Path) -> None:
    (tree / "kern.cu").chmod(0o640)
    assert cli("convert", str(tree), "--out-dir", str(tmp_path / "o"), "-q").returncode == 0
    assert (tmp_path / "o" / "kern.hip").stat().st_mode & 0o777 == 0o640


def test_stdout_keeps_non_utf8_bytes(tree: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(tree / "latin1.cu"), "--stdout", "-q"],
        capture_output=True,
        timeout=60,
    )
    assert proc.stdout == b"// caf\xe9\n#include <hip/hip_runtime.h>\nhipFree(p);\n"


def test_annotations_stay_out_of_macro_bodies_and_are_not_repeated(tmp_path: Path) -> None:
    src = tmp_path / "m.cu"
    src.write_text(
        "#define RED(v) \\\n  for (int o = 16; o > 0; o /= 2) \\\n"
        "    v += __shfl_down_sync(0xffffffff, v, o);\n"
        "__global__ void k(float* p) { float v = p[0]; RED(v); p[0] = v; }\n"
    )
    first, second = tmp_path / "a.hip", tmp_path / "b.hip"
    made = cli("convert", str(src), "-o", str(first), "--annotate", "--enable", "HZ102", "-q")
    assert made.returncode == 0
    text = first.read_text()
    assert text.index("// hipify-py[HZ102]") < text.index("#define RED(v)")
    assert "\\\n  for" in text  # the macro body is intact
    again = cli("convert", str(first), "-o", str(second), "--annotate", "--enable", "HZ102", "-q")
    assert again.returncode == 0
    assert second.read_text() == text


def test_bad_target_rocm_and_out_dir_are_usage_errors(tree: Path) -> None:
    assert cli("convert", str(tree), "--dry-run", "--target-rocm", "-1").returncode == 2
    assert cli("convert", str(tree), "--out-dir", str(tree / "kern.cu")).returncode == 2
    assert cli("convert", str(tree), "--dry-run", "--cuda-path", "/nonexistent").returncode == 2


def test_project_config_ignore_applies_to_convert_reports(tree: Path) -> None:
    (tree / "w.cu").write_text('__global__ void k(float* p) { asm("membar.gl;"); p[0] = 1.f; }\n')
    assert "HZ310" in cli("convert", str(tree), "--dry-run").stderr
    (tree / ".hipify-py.yaml").write_text("ignore: [HZ310]\n")
    proc = cli("convert", str(tree), "--dry-run", "--strict")
    assert "HZ310" not in proc.stderr and proc.returncode == 0
    (tree / ".hipify-py.yaml").write_bytes(b"ignore: [\xff]\n")
    proc = cli("convert", str(tree), "--dry-run")
    assert proc.returncode == 2 and "not UTF-8" in proc.stderr and "Traceback" not in proc.stderr


def test_several_inputs_keep_their_own_subdirectories(tmp_path: Path) -> None:
    for name in ("kernels", "third_party"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.cu").write_text(KERNEL.replace("add", f"add_{name}"))
    out = tmp_path / "out"
    proc = cli(
        "convert",
        str(tmp_path / "kernels"),
        str(tmp_path / "third_party"),
        "--out-dir",
        str(out),
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    assert "add_kernels" in (out / "kernels" / "a.hip").read_text()
    assert "add_third_party" in (out / "third_party" / "a.hip").read_text()


def test_two_inputs_writing_one_output_is_a_collision(tmp_path: Path) -> None:
    for name in ("x", "y"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "k.cu").write_text(KERNEL)
    out = tmp_path / "out"
    proc = cli(
        "convert",
        str(tmp_path / "x" / "k.cu"),
        str(tmp_path / "y" / "k.cu"),
        "--out-dir",
        str(out),
        "-q",
    )
    assert proc.returncode == 1 and "name collision" in proc.stderr


def test_unwritable_report_paths_are_one_line_errors(tree: Path) -> None:
    for args in (
        ["--dry-run", "--diff-file", "/nonexistent/dir/x.diff"],
        ["--dry-run", "--json", "/nonexistent/dir/x.json"],
    ):
        proc = cli("convert", str(tree), *args, "-q")
        assert proc.returncode == 1 and "cannot write" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_copied_files_keep_permissions(tree: Path, tmp_path: Path) -> None:
    script = tree / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    assert cli("convert", str(tree), "--out-dir", str(tmp_path / "o"), "-q").returncode == 0
    assert (tmp_path / "o" / "run.sh").stat().st_mode & 0o777 == 0o755


def test_annotated_hazard_fixtures_convert_to_themselves(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "fixtures" / "hazards"
    first, second = tmp_path / "a", tmp_path / "b"
    assert (
        cli("convert", str(fixtures), "--out-dir", str(first), "--annotate", "-q").returncode == 0
    )
    assert cli("convert", str(first), "--out-dir", str(second), "--annotate", "-q").returncode == 0
    assert snapshot(first) == snapshot(second)


def test_strict_quiet_says_why_and_prints_user_text_as_written(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hipify_py.cli.convert import convert

    src = tmp_path / "k[i].cu"
    lines = ["// filler"] * 99 + ['__global__ void k(int* o) { asm("membar.gl;"); o[0] = 1; }']
    src.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(convert, [str(src), "--strict", "-q"])
    assert result.exit_code == 1
    assert f"{src}:100:" in result.output and "HZ310" in result.output
    assert "💯" not in result.output


def test_dry_run_diff_of_a_latin1_source_keeps_its_bytes(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_bytes(b"// caf\xe9\n" + KERNEL.encode())
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(src), "--dry-run", "-q"],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert b" // caf\xe9\n" in proc.stdout and b"+#include <hip/hip_runtime.h>" in proc.stdout
    saved = tmp_path / "k.diff"
    assert cli("convert", str(src), "--dry-run", "--diff-file", str(saved)).returncode == 0
    assert saved.read_bytes() == proc.stdout
