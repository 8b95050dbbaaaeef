"""verify against the real AMD toolchains: clang-19 + ROCm 7.2.4 headers (gfx942), hipcc 5.2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hipify_py.cli.verify import verify
from hipify_py.verify import VerifyOptions, clang_hip, discovery, verify_paths
from hipify_py.verify import hipcc as hipcc_mod

SRC = str(Path(__file__).resolve().parents[1] / "src")

GOOD = """\
#include <hip/hip_runtime.h>
__global__ void k(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef SCALE
  if (i < n) x[i] *= SCALE;
#endif
}
int main() {
  float* d = nullptr;
  (void)hipMalloc(&d, 4 * sizeof(float));
  hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d, 4);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""
MASK32 = """\
#include <hip/hip_runtime.h>
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[threadIdx.x] = v;
}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _run_cli(args, env=None):
    result = CliRunner().invoke(
        verify, [*args, "--format", "json"], env=env, catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else None


def _headers_only(tmp_path: Path, rocm7: Path) -> str:
    """An include directory with the 7.2.4 HIP headers but no ROCm prefix around it (no
    device libraries, no hipBLAS/hipSPARSE...), like a bare header download."""
    inc = tmp_path / "bare" / "include"
    inc.mkdir(parents=True)
    os.symlink(rocm7 / "include" / "hip", inc / "hip")
    return str(inc)


def test_clang19_rocm7_gfx942_pass_and_fail(tmp_path, clang19, rocm7):
    _write(tmp_path, "good.hip", GOOD)
    _write(tmp_path, "mask32.hip", MASK32)
    code, data = _run_cli(
        [str(tmp_path), "--toolchain", "clang", "--rocm-path", str(rocm7), "-DSCALE=2.0f"]
    )
    assert code == 1
    tc = data["toolchain"]
    assert (tc["kind"], tc["arch"], tc["hip_version"]) == ("clang", "gfx942", "7.2")
    assert tc["rocm_path"] == str(rocm7)
    files = {Path(f["path"]).name: f for f in data["files"]}
    assert files["good.hip"]["status"] == "passed"
    bad = files["mask32.hip"]
    assert bad["status"] == "failed"
    (err,) = bad["errors"]
    assert "The mask must be a 64-bit integer" in err["message"]
    assert err["anchor"] == [4, 8]  # the call in our file, not the header's static_assert
    assert "--rocm-path=" + str(rocm7) in bad["command"]


def test_rocm_path_accepts_the_get_hip_headers_dest(tmp_path, clang19, rocm7):
    """`--rocm-path DEST` (what `toolchain fetch --dest` was given) finds DEST/usr/include."""
    tc = discovery.discover("gfx942", "clang", env=dict(os.environ), rocm_path=str(rocm7.parent))
    assert tc.hip_include == str(rocm7 / "include") and tc.hip_version >= (7, 2)


def test_auto_finds_rocm_path_and_device_libraries(tmp_path, clang19, rocm7):
    env = {**os.environ, "ROCM_PATH": str(rocm7), "HOME": str(tmp_path)}
    tc = discovery.discover("gfx942", env=env)
    assert (tc.kind, tc.arch, tc.hip_version) == ("clang", "gfx942", (7, 2))
    assert tc.rocm_path == str(rocm7)
    # clang 19 reads the LLVM 17 device libraries, not the LLVM 22 ones of ROCm 7.2.4
    assert tc.device_libs and "llvm-17" in tc.device_libs


def test_auto_finds_the_cached_rocm_set_newest_first(tmp_path, clang19, rocm7):
    """No ROCm installed: the sets in ~/.cache/hipify-py are used, ROCm 7.2.4 before 7.1."""
    cache = tmp_path / ".cache" / "hipify-py"
    (cache / "rocm-7.2.4").mkdir(parents=True)
    os.symlink(rocm7, cache / "rocm-7.2.4" / "usr")
    old = cache / "hip-7.1" / "include" / "hip"
    old.mkdir(parents=True)
    (old / "hip_runtime.h").write_text("")
    (old / "hip_version.h").write_text("#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 1\n")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "ROCM_PATH": str(tmp_path / "none"),
        "HIP_PATH": str(tmp_path / "none"),
    }
    tc = discovery.discover("gfx942", env=env)
    assert tc.kind == "clang" and tc.hip_version == (7, 2)
    assert tc.hip_include == str(cache / "rocm-7.2.4" / "usr" / "include")


def test_device_libraries_must_be_readable_by_the_clang(tmp_path):
    for llvm in (17, 22):
        bc = tmp_path / f"lib/llvm-{llvm}/lib/clang/{llvm}/amdgcn/bitcode"
        bc.mkdir(parents=True)
        (bc / "ockl.bc").write_bytes(b"")
        (bc / "oclc_isa_version_942.bc").write_bytes(b"")
    found = clang_hip.find_device_libs(str(tmp_path), "clang 19.1.7", "gfx942")
    assert found and "llvm-17" in found
    assert "llvm-22" in clang_hip.find_device_libs(str(tmp_path), "clang 22.1.0", "gfx942:xnack-")
    assert clang_hip.find_device_libs(str(tmp_path), "clang 16.0.0", "gfx942") is None
    assert clang_hip.find_device_libs(str(tmp_path), "clang 19.1.7", "gfx1100") is None
    rocm = tmp_path / "opt-rocm"
    bc = rocm / "lib/llvm/lib/clang/20/lib/amdgcn/bitcode"  # ROCm's own layout
    bc.mkdir(parents=True)
    (bc / "ockl.bc").write_bytes(b"")
    (bc / "oclc_isa_version_942.bc").write_bytes(b"")
    assert clang_hip.find_device_libs(str(rocm), "clang 20.0.0", "gfx942") == str(bc)
    assert clang_hip.find_device_libs(str(rocm), "clang 19.1.7", "gfx942") is None


def test_codegen_clang_gfx942_builds_a_code_object(tmp_path, clang19, rocm7):
    _write(tmp_path, "good.hip", GOOD)
    report = verify_paths(
        [tmp_path], VerifyOptions(toolchain="clang", mode="codegen", rocm_path=str(rocm7))
    )
    assert report.ok, report.to_json()
    (f,) = report.files
    assert f.code_object == "gfx942"
    assert any(a.startswith("--rocm-device-lib-path=") for a in f.command)


def test_codegen_without_device_libraries_stops_at_isa(tmp_path, clang19, rocm7):
    _write(tmp_path, "good.hip", GOOD)
    bare = _headers_only(tmp_path, rocm7)
    report = verify_paths(
        [tmp_path / "good.hip"],
        VerifyOptions(toolchain="clang", mode="codegen", hip_include=bare),
    )
    assert report.ok, report.to_json()
    assert report.toolchain.device_libs is None
    assert "--cuda-device-only" in report.files[0].command and not report.files[0].code_object


def test_hipcc_52_cannot_check_a_gfx942_rocm7_tree(tmp_path, hipcc):
    """Debian's hipcc 5.2 knows gfx940, not gfx942, and predates ROCm 7: verify says so and
    exits 2 instead of checking for another GPU with other headers (issue 25)."""
    _write(tmp_path, "mask32.hip", MASK32)
    result = CliRunner().invoke(verify, [str(tmp_path), "--toolchain", "hipcc"])
    assert result.exit_code == 2, result.output
    assert "hipcc (HIP 5.2) does not know gfx942" in result.stderr
    assert "older than the ROCm 7.2 the tree targets" in result.stderr
    assert "hipify-py toolchain fetch" in result.stderr and "FAIL" not in result.output
    # what it can check, asked for explicitly: gfx90a for a tree converted for ROCm 5.2
    _write(tmp_path, "mask32.hip", GOOD)
    code, data = _run_cli([str(tmp_path), "--toolchain", "hipcc", "--arch", "gfx90a",
                           "--target-rocm", "5.2"])  # fmt: skip
    assert code == 0 and data["toolchain"]["arch"] == "gfx90a" and data["summary"]["passed"] == 1


def test_hipcc_gfx90a_codegen_and_sync_intrinsics_missing(tmp_path, hipcc):
    _write(tmp_path, "good.hip", GOOD)
    _write(tmp_path, "mask32.hip", MASK32)
    report = verify_paths(
        [tmp_path], VerifyOptions(toolchain="hipcc", arch="gfx90a", mode="codegen")
    )
    status = {Path(f.path).name: f for f in report.files}
    assert report.toolchain.arch == "gfx90a" and not report.toolchain.warnings
    assert status["good.hip"].status == "passed"
    (err,) = status["mask32.hip"].errors  # HIP 5.2 has no _sync warp intrinsics
    assert "__shfl_down_sync" in err.message and err.anchor == (4, 8)


def test_no_hipcc_on_path_uses_clang(tmp_path, clang19, rocm7):
    """hipcc hidden (PATH without it, ROCM_PATH/HIP_PATH elsewhere): clang + headers is used."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(clang19, bindir / "clang-19")
    env = {
        "PATH": str(bindir),
        "ROCM_PATH": str(tmp_path),
        "HIP_PATH": str(tmp_path),
        "HOME": str(tmp_path),
        "HIPIFY_PY_HIP_INCLUDE": str(rocm7 / "include"),
    }
    assert hipcc_mod.find_hipcc(env) is None
    tc = discovery.discover("gfx942", env=env)
    assert tc.kind == "clang" and tc.arch == "gfx942"
    _write(tmp_path, "good.hip", GOOD)
    report = verify_paths([tmp_path / "good.hip"], VerifyOptions(env=env))
    assert report.ok


def test_no_amd_toolchain_at_all_cli_subprocess(tmp_path):
    """A machine without hipcc or clang: the CLI says how to get a toolchain (exit 2); a
    libclang syntax check runs only when asked for."""
    _write(tmp_path, "good.hip", GOOD)
    _write(tmp_path, "broken.hip", GOOD.replace("x[i] *= SCALE;", "x[i] *= SCALE"))
    env = {
        "PATH": str(tmp_path / "nothing"),
        "ROCM_PATH": str(tmp_path),
        "HIP_PATH": str(tmp_path),
        "HOME": str(tmp_path),
        "PYTHONPATH": SRC,
    }
    cmd = [
        sys.executable,
        "-c",
        "from hipify_py.cli.verify import verify; verify()",
        str(tmp_path),
        "-DSCALE=2",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr  # no quiet syntax-only fallback
    assert "no AMD toolchain found" in proc.stderr and "toolchain fetch" in proc.stderr
    proc = subprocess.run(
        [*cmd, "--toolchain", "libclang"], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout and "FAIL" in proc.stdout
    assert "broken.hip:5:" in proc.stdout  # "expected ';'" at the statement


def test_compile_commands_defines_are_used(tmp_path, clang19, rocm7):
    src = _write(
        tmp_path,
        "k.hip",
        GOOD.replace("#ifdef SCALE", "#ifndef SCALE\n#error no\n#endif\n#ifdef SCALE"),
    )
    build = tmp_path / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text(
        json.dumps(
            [
                {
                    "directory": str(build),
                    "file": str(src),
                    "arguments": ["nvcc", "-DSCALE=3.0f", "-c", str(src)],
                }
            ]
        )
    )
    opts = dict(toolchain="clang", rocm_path=str(rocm7))
    assert verify_paths([src], VerifyOptions(build_path=str(build), **opts)).ok
    # found without -p too: build/compile_commands.json beside the sources
    assert verify_paths([tmp_path], VerifyOptions(**opts)).ok
    (build / "compile_commands.json").unlink()
    assert not verify_paths([tmp_path], VerifyOptions(**opts)).ok


MASK_PARAM = """\
#include <cuda_runtime.h>
__device__ float red(float v, unsigned mask) {
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(mask, v, o);
  return v;
}
"""


def test_errors_map_to_the_cuda_line_through_the_manifest(tmp_path, clang19, rocm7, monkeypatch):
    """Without --from: the manifest convert wrote says where each file came from, so errors
    print as CUDA `path:line:col:` in text, GitHub and SARIF form (issue 25)."""
    from hipify_py.cli import root

    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "reduce.cu").write_text(MASK_PARAM)
    assert CliRunner().invoke(root, ["convert", "demo", "-q"]).exit_code == 0
    text = CliRunner().invoke(root, ["verify", "demo-hip", "-j", "1"])
    assert text.exit_code == 1
    assert "demo/reduce.cu:4:10: error: static assertion failed" in text.stdout
    assert "converted to demo-hip/reduce.hip:4:10" in text.stdout
    gh = CliRunner().invoke(root, ["verify", "demo-hip", "-j", "1", "--format", "github"])
    assert gh.exit_code == 1
    assert gh.stdout.startswith("::error file=demo/reduce.cu,line=4,col=10,")
    sarif = CliRunner().invoke(root, ["verify", "demo-hip", "-j", "1", "--format", "sarif"])
    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "demo/reduce.cu"
    assert loc["region"] == {"startLine": 4, "startColumn": 10}


def test_a_run_that_checked_nothing_does_not_pass(tmp_path, clang19, rocm7):
    """Every file not checkable (a third-party header missing): exit 1, said in words."""
    _write(tmp_path, "ext.hip", "#include <hip/hip_runtime.h>\n#include <pybind_only.h>\n")
    result = CliRunner().invoke(verify, [str(tmp_path), "-j", "1"])
    assert result.exit_code == 1, result.output
    assert "0 passed, 0 failed, 1 not checkable" in result.stdout
    assert "nothing was checked" in result.stdout
    code, data = _run_cli([str(tmp_path), "-j", "1"])
    assert code == 1 and data["ok"] is False
