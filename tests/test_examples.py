"""examples/: the CUDA inputs build with nvcc, convert, and verify for AMD GPUs as documented."""

from __future__ import annotations

import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

from hipify_py.context import Context, Options
from hipify_py.mappings import load_index
from hipify_py.pipeline import convert_text
from hipify_py.verify import VerifyOptions, verify_paths

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CUDA_SUFFIXES = (".cu", ".cuh", ".cpp", ".h")


def _torch_available() -> bool:
    try:
        import torch.utils.cpp_extension  # noqa: F401
    except ImportError:
        return False
    return True


def cuda_inputs(name: str) -> list[Path]:
    return sorted(p for p in (EXAMPLES / name).rglob("*") if p.suffix in CUDA_SUFFIXES)


@pytest.fixture(scope="module")
def ctx():
    return Context(Options(), load_index())


def convert_tree(name: str, out: Path, ctx: Context) -> dict:
    """Convert examples/<name> into ``out`` (x.cu -> x.hip, like ``convert``); results by path."""
    results = {}
    for src in cuda_inputs(name):
        rel = src.relative_to(EXAMPLES / name)
        result = convert_text(src.read_text(), str(src), ctx)
        assert result.error is None, result.error
        target = out / (rel.with_suffix(".hip") if src.suffix == ".cu" else rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(result.text)
        results[str(src)] = (result, target)
    return results


# ---------------------------------------------------------------------------------------------
# the CUDA side


NVCC_BUILDS = [
    ("masked_add", "masked_add_kernel.cu", ()),
    ("host_rand_sparse", "spmv_rand.cu", ("curand", "cusparse")),
    ("warp_reduce", "warp_reduce.cu", ()),
    ("cmake_project", "src/saxpy.cu", ()),
    ("cmake_project", "src/main.cpp", ()),
    ("make_project", "src/vecops.cu", ()),
    ("make_project", "src/main.cu", ()),
    ("cmake_cublas", "blas/scale.cu", ()),
    ("cmake_cublas", "blas/gemm.cpp", ("cublas",)),
    ("cmake_cublas", "app/main.cpp", ()),
]


@pytest.mark.parametrize(
    ("example", "rel", "libs"), NVCC_BUILDS, ids=[f"{e}/{r}" for e, r, _ in NVCC_BUILDS]
)
def test_cuda_input_compiles_with_nvcc(example, rel, libs, nvcc, nvidia_include, tmp_path):
    includes = [f"-I{nvidia_include(lib)}" for lib in libs]
    includes += [f"-I{d}" for d in (EXAMPLES / example).rglob("include") if d.is_dir()]
    cmd = [
        nvcc,
        "-arch=sm_90",
        "-std=c++17",
        *includes,
        "-c",
        str(EXAMPLES / example / rel),
        "-o",
        str(tmp_path / "out.o"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def test_torch_binding_compiles_with_nvcc_when_torch_is_installed(nvcc, tmp_path):
    if not _torch_available():
        pytest.skip("torch not installed: the binding needs its headers (the kernel is tested)")
    from torch.utils.cpp_extension import include_paths

    cmd = [
        nvcc,
        "-std=c++17",
        *(f"-I{p}" for p in include_paths()),
        f"-I{sysconfig.get_paths()['include']}",  # Python.h, as CUDAExtension passes it
        "-c",
        str(EXAMPLES / "masked_add" / "masked_add.cpp"),
        "-o",
        str(tmp_path / "b.o"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def test_every_example_has_a_readme():
    for d in EXAMPLES.iterdir():
        if d.is_dir():
            assert (d / "README.md").is_file(), d


# ---------------------------------------------------------------------------------------------
# conversion


def test_masked_add_launch_is_converted(ctx, tmp_path):
    results = convert_tree("masked_add", tmp_path, ctx)
    hip = (tmp_path / "masked_add_kernel.hip").read_text()
    assert (
        "hipLaunchKernelGGL(masked_add_kernel, dim3(blocks), dim3(threads), 0, 0, "
        "input, mask, output, n)"
    ) in hip
    assert "#include <hip/hip_runtime.h>" in hip and "hipDeviceSynchronize();" in hip
    assert all(not r.findings for r, _ in results.values())


def test_warp_reduce_hazards_are_reported(ctx):
    src = EXAMPLES / "warp_reduce" / "warp_reduce.cu"
    result = convert_text(src.read_text(), str(src), ctx)
    rules = {(f.rule, f.line) for f in result.findings}
    # block_sum works in consistent 32-lane groups (lane = & 31, warp = / 32), which is right
    # on 64 lanes too, and so is the scan guarded by `lane >= offset`; the 32-bit masks;
    # warp_scan_count stores a ballot count per 32-lane group: right once each group keeps its
    # own half of the 64-lane ballot, which is HZ105's fix at the ballot (not the 32-lane ids)
    assert not {r for r, _ in rules} & {"HZ101", "HZ102", "HZ103"}
    assert ("HZ106", 42) in rules
    (ballot,) = [f for f in result.findings if f.rule == "HZ105"]
    assert ballot.line == 42 and "keep the group's own half" in ballot.message


# ---------------------------------------------------------------------------------------------
# verify: clang-19 + ROCm 7.2.4 headers for gfx942, Debian hipcc 5.2 for gfx90a


VERIFY_CLANG = ["masked_add", "cmake_project", "host_rand_sparse", "warp_reduce"]
VERIFY_HIPCC = ["masked_add", "cmake_project", "host_rand_sparse"]


def _opts(example: str, out: Path, **kw) -> VerifyOptions:
    return VerifyOptions(
        include_dirs=(str(out / "include"),), cuda_root=str(EXAMPLES / example), **kw
    )


def _kernels_only(example: str, out: Path, binding: bool = True) -> list[Path]:
    # the torch binding needs torch headers: verify it only when torch is installed (and with
    # a HIP that PyTorch 2.13 supports: not hipcc 5.2)
    if example == "masked_add" and not (binding and _torch_available()):
        return [out / "masked_add_kernel.hip"]
    return [out]


@pytest.mark.parametrize("example", VERIFY_CLANG)
def test_verify_gfx942_clang_hip7(example, ctx, tmp_path, clang19, hip7_include):
    convert_tree(example, tmp_path, ctx)
    report = verify_paths(
        _kernels_only(example, tmp_path),
        _opts(example, tmp_path, toolchain="clang", hip_include=hip7_include),
    )
    assert report.toolchain.arch == "gfx942"
    assert report.ok and report.files, report.to_json()


@pytest.mark.parametrize("example", VERIFY_HIPCC)
def test_verify_gfx90a_hipcc52(example, ctx, tmp_path, hipcc):
    convert_tree(example, tmp_path, ctx)
    report = verify_paths(
        _kernels_only(example, tmp_path, binding=False),
        _opts(example, tmp_path, toolchain="hipcc", arch="gfx90a", mode="codegen"),
    )
    assert report.toolchain.arch == "gfx90a"
    assert report.ok and report.files, report.to_json()


def test_masked_add_hipcc_command_from_issue(ctx, tmp_path, hipcc):
    convert_tree("masked_add", tmp_path, ctx)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    proc = subprocess.run(
        [
            hipcc,
            "--offload-arch=gfx90a",
            "-c",
            str(tmp_path / "masked_add_kernel.hip"),
            "-o",
            str(tmp_path / "k.o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr


def test_warp_reduce_conversion_builds_for_gfx942(ctx, tmp_path, clang19, hip7_include):
    """The 32-bit masks ROCm 7 rejects are widened by default: no --fix needed to compile."""
    convert_tree("warp_reduce", tmp_path, ctx)
    report = verify_paths(
        [tmp_path], _opts("warp_reduce", tmp_path, toolchain="clang", hip_include=hip7_include)
    )
    assert report.ok, report.to_json()


def test_broken_conversion_maps_to_cuda_line(ctx, tmp_path, clang19, hip7_include):
    """An API the converter leaves alone fails to compile; the error shows the CUDA line and
    column even though the converted line is laid out differently (launch rewrite)."""
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    src = cuda / "k.cu"
    src.write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int* p) { p[0] = 1; }\n"
        "void run(int* p) {\n"
        "  k<<<1, 1>>>(p); cudaNotARealApi(p);\n"
        "}\n"
    )
    result = convert_text(src.read_text(), str(src), ctx)
    assert "hipLaunchKernelGGL" in result.text and "cudaNotARealApi" in result.text
    # the converted tree on disk, mapped back by `verify --from` (re-converted in memory)
    out = tmp_path / "hip"
    out.mkdir()
    (out / "k.hip").write_text(result.text)
    again = verify_paths(
        [out], VerifyOptions(toolchain="clang", hip_include=hip7_include, cuda_root=str(cuda))
    )
    (f,) = again.files
    (err,) = f.errors
    assert "cudaNotARealApi" in err.message
    assert err.anchor[0] == 4 and err.anchor[1] > 20  # shifted right by hipLaunchKernelGGL
    assert (err.cuda["line"], err.cuda["column"], err.cuda["exact"]) == (4, 19, True)
    assert err.cuda["path"] == str(src)
    assert again.files[0].mapping == "exact"
    assert again.files[0].errors[0].cuda["line"] == 4
    (out / "k.hip").write_text("// edited by hand\n// twice\n" + result.text)
    edited = verify_paths(
        [out], VerifyOptions(toolchain="clang", hip_include=hip7_include, cuda_root=str(cuda))
    )
    f = edited.files[0]
    assert f.mapping == "line" and any("mapped by line only" in n for n in f.notes)
    assert f.errors[0].anchor[0] == 6 and f.errors[0].cuda["line"] == 4


# ---------------------------------------------------------------------------------------------
# integration with `convert` and `--target-rocm`

PORTABLE_SYNC = """\
#include <cuda_runtime.h>
__global__ void k(const float* x, int* out) {
    float v = x[threadIdx.x];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned long long b = __ballot_sync(0xffffffff, v > 0.0f);
    if (__any_sync(0xffffffff, v > 1.0f)) out[threadIdx.x] = __popcll(b);
}
"""


MASK_PARAM = """\
#include <cuda_runtime.h>
__device__ float reduce(float v, unsigned mask) {
    return v + __shfl_down_sync(mask, v, 1);
}
"""


def test_convert_verify_maps_errors_to_cuda(tmp_path, clang19, hip7_include):
    """`hipify-py convert --verify` (the lead's command) checks the written tree; a 32-bit mask
    parameter (not changed by default: callers may pass 32-lane masks) fails at its CUDA line."""
    import sys

    src = tmp_path / "cuda" / "k.cu"
    src.parent.mkdir()
    src.write_text(MASK_PARAM)
    out = tmp_path / "out"
    env = {**os.environ, "HIPIFY_PY_HIP_INCLUDE": hip7_include, "COLUMNS": "200"}
    cmd = [
        sys.executable,
        "-m",
        "hipify_py",
        "convert",
        str(src.parent),
        "--out-dir",
        str(out),
        "--verify",
        "-q",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = proc.stdout + proc.stderr
    assert "The mask must be a 64-bit integer" in text
    assert "k.cu:3:16" in text


def _verify_hipcc52(hip_text: str, tmp_path: Path):
    out = tmp_path / "hip"
    out.mkdir()
    (out / "k.hip").write_text(hip_text)
    report = verify_paths([out], VerifyOptions(toolchain="hipcc", arch="gfx90a"))
    assert report.files, report.to_json()
    return report


def test_target_rocm_52_warp_intrinsics_build_with_hipcc52(tmp_path, hipcc):
    src = tmp_path / "k.cu"
    src.write_text(PORTABLE_SYNC)
    result = convert_text(
        PORTABLE_SYNC, str(src), Context(Options(target_rocm=(5, 2)), load_index())
    )
    assert "__shfl_down(v, offset)" in result.text and "__ballot(v > 0.0f)" in result.text
    assert _verify_hipcc52(result.text, tmp_path).ok


def test_warp_reduce_for_rocm52_builds_with_hipcc52(tmp_path, hipcc):
    """--target-rocm 5.2 drops the masks, so the naive example compiles for HIP 5.2 (the 32-lane
    hazards are still reported: compiling is not the same as being right on 64 lanes)."""
    src = EXAMPLES / "warp_reduce" / "warp_reduce.cu"
    result = convert_text(
        src.read_text(), str(src), Context(Options(target_rocm=(5, 2)), load_index())
    )
    assert "__shfl_down_sync" not in result.text
    assert "HZ105" in {f.rule for f in result.findings}
    assert _verify_hipcc52(result.text, tmp_path).ok


def test_auto_checks_library_users_with_hipcc(ctx, tmp_path, clang19, hip7_include, hipcc):
    """clang + HIP runtime headers alone (no hipRAND/hipSPARSE): auto mode uses hipcc for
    that file."""
    convert_tree("host_rand_sparse", tmp_path, ctx)
    bare = tmp_path / "bare" / "include"
    bare.mkdir(parents=True)
    os.symlink(Path(hip7_include) / "hip", bare / "hip")
    env = {**os.environ, "HIPIFY_PY_HIP_INCLUDE": str(bare)}
    report = verify_paths([tmp_path], VerifyOptions(env=env, arch="gfx90a"))
    assert report.toolchain.kind == "clang"
    (f,) = report.files
    assert f.status == "passed", report.to_json()
    assert f.toolchain and f.toolchain.startswith("hipcc")
    assert any("hipsparse/hipsparse.h" in n for n in f.notes)
    # for gfx942 hipcc 5.2 would check another GPU (gfx940): clang stays, and the note says
    # where the library headers came from
    (f,) = verify_paths([tmp_path], VerifyOptions(env=env)).files
    assert f.toolchain is None and any("mixed HIP versions" in n for n in f.notes), f.to_json()
    forced = verify_paths([tmp_path], VerifyOptions(env=env, toolchain="clang"))
    assert any("mixed HIP versions" in n for n in forced.files[0].notes)
