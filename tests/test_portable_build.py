"""``convert --portable`` build files: one converted project builds with nvcc by default and for
ROCm with the switch its build system offers: ``cmake -DUSE_HIP=ON`` (CMake's HIP language,
clang-19 with ROCm 7.2.4, gfx942), ``make HIP=1`` (hipcc 5.2, gfx90a), and setup.py's
``torch.version.hip``.  The toolchains are the ones ``test_examples_build`` uses."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from conftest import require_tool
from test_examples_build import (  # noqa: F401 - fixtures used by name
    SECOND_HIPIFY,
    cmake_build,
    cmake_hip,
    code_object_archs,
    device_libs,
    rocm7_runtime,
    run,
    torch_hipify,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def portable(example: str, out: Path) -> Path:
    run([sys.executable, "-m", "hipify_py", "convert", "--portable", str(EXAMPLES / example),
         "--out-dir", str(out), "-q"])  # fmt: skip
    return out


def test_cmake_project_builds_with_cuda_by_default_and_hip_with_use_hip(
    cmake_hip,  # noqa: F811 - the fixture imported above
    nvcc,
    tmp_path,
):
    src = portable("cmake_project", tmp_path / "src")
    cuda = tmp_path / "cuda"
    run([cmake_hip[0], "-S", str(src), "-B", str(cuda), f"-DCMAKE_CUDA_COMPILER={nvcc}"])
    log = run([cmake_hip[0], "--build", str(cuda), "--", "VERBOSE=1"])
    assert "nvcc" in log and "--offload-arch" not in log
    assert b"sm_90" in (cuda / "libsaxpy.a").read_bytes() and not code_object_archs(
        cuda / "libsaxpy.a"
    )
    hip = tmp_path / "hip"
    log = cmake_build([*cmake_hip, "-DUSE_HIP=ON"], src, hip)
    assert "--offload-arch=gfx942" in log and f"-c {src / 'src/saxpy.cu'}" in log
    assert "nvcc" not in log
    assert code_object_archs(hip / "libsaxpy.a") == {"gfx942"}
    assert (hip / "saxpy_demo").is_file() and (cuda / "saxpy_demo").is_file()


def test_cmake_subdirectories_follow_the_top_level_switch(cmake_hip, tmp_path):  # noqa: F811
    """cmake_cublas: the option lives beside project(); blas/ reads the same cache variable and
    links hipBLAS under USE_HIP."""
    src = portable("cmake_cublas", tmp_path / "src")
    top = (src / "CMakeLists.txt").read_text()
    assert top.count("option(USE_HIP") == 1
    assert "option(" not in (src / "blas" / "CMakeLists.txt").read_text()
    log = cmake_build([*cmake_hip, "-DUSE_HIP=ON"], src, tmp_path / "hip")
    assert "libhipblas.so" in log
    assert code_object_archs(tmp_path / "hip" / "blas" / "libblas_ops.a") == {"gfx942"}


def test_makefile_builds_with_nvcc_by_default_and_hipcc_with_hip_1(nvcc, hipcc, tmp_path):
    require_tool("make")
    src = portable("make_project", tmp_path / "src")
    cuda_home = Path(nvcc).resolve().parents[1]
    log = run(["make", f"CUDA_HOME={cuda_home}"], cwd=src)
    assert "nvcc" in log and "hipcc" not in log and (src / "vecops").is_file()
    run(["make", "clean"], cwd=src)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    rocm_path = Path(hipcc).resolve().parents[1]  # Debian: /usr/bin/hipcc -> ROCM_PATH=/usr
    log = run(["make", "HIP=1", f"ROCM_PATH={rocm_path}", "ARCH=gfx90a"], cwd=src, env=env)
    assert "hipcc" in log and "--offload-arch=gfx90a" in log and "nvcc" not in log
    assert code_object_archs(src / "build" / "vecops.o") == {"gfx90a"}


def _nvcc_args(setup_py: Path, hip: str | None) -> list[str]:
    """extra_compile_args["nvcc"] as setup.py computes it on a torch whose version.hip is
    ``hip`` (None: a CUDA build)."""
    tree = ast.parse(setup_py.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "extra_compile_args":
            code = compile(ast.Expression(node.value), str(setup_py), "eval")
            torch = SimpleNamespace(version=SimpleNamespace(hip=hip))
            return eval(code, {"torch": torch})["nvcc"]  # the expression we wrote
    raise AssertionError("no extra_compile_args")


def test_setup_py_picks_hipcc_flags_on_a_rocm_torch_only(tmp_path):
    src = portable("masked_add", tmp_path / "src")
    setup_py = src / "setup.py"
    original = (EXAMPLES / "masked_add" / "setup.py").read_text()
    assert _nvcc_args(setup_py, None) == ["-O3", "--use_fast_math"]
    assert _nvcc_args(setup_py, "7.2.4") == ["-O3", "-ffast-math", "-fno-finite-math-only"]
    text = setup_py.read_text()
    assert "import torch" in text and '"masked_add_kernel.cu"' in text  # sources unchanged
    assert text.count("\n") == original.count("\n") + 1  # the import is the only new line


def test_pytorch_rocm_build_hipifies_the_portable_extension_into_gfx942_code(
    torch_hipify,  # noqa: F811 - the fixture imported above
    rocm7,
    clang19,
    tmp_path,
):
    """A ROCm CUDAExtension build runs PyTorch's hipify over the kept ``.cu`` sources and
    compiles the result with USE_ROCM defined: that must still compile for gfx942, and the
    portable files themselves must stay as they are (the CUDA build reads them)."""
    src = portable("masked_add", tmp_path / "src")
    sources = ["masked_add.cpp", "masked_add_kernel.cu"]
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    env = {**os.environ, "PYTHONPATH": str(torch_hipify)}
    out = run([sys.executable, "-c", SECOND_HIPIFY, json.dumps(sources)], cwd=src, env=env)
    (line,) = [x for x in out.splitlines() if x.startswith("HIPIFIED ")]
    kernel = Path(json.loads(line.removeprefix("HIPIFIED "))["masked_add_kernel.cu"])
    assert all(p.read_bytes() == b for p, b in before.items())  # hipify wrote new files only
    obj = tmp_path / "kernel.o"
    run([clang19, "-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-O2", "-c", "-DUSE_ROCM",
         f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
         f"--rocm-device-lib-path={device_libs(rocm7)}", *_nvcc_args(src / "setup.py", "7.2"),
         str(kernel), "-o", str(obj)])  # fmt: skip
    assert code_object_archs(obj) == {"gfx942"}


def test_an_edited_cmake_condition_picks_per_switch(tmp_path):
    """``if(DEFINED CMAKE_CUDA_STANDARD)`` cannot sit inside an if(USE_HIP) block (its body
    would be cut in two): the condition itself chooses, and cmake evaluates it both ways."""
    cmake = require_tool("cmake")
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "rules.cmake").write_text(
        "set(CMAKE_CUDA_STANDARD 17)\n"
        'if(DEFINED CMAKE_CUDA_STANDARD)\n  message(STATUS "reached")\nendif()\n'
    )
    (tree / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n")
    out = tmp_path / "out"
    run([sys.executable, "-m", "hipify_py", "convert", "--portable", str(tree),
         "--out-dir", str(out), "-q"])  # fmt: skip
    text = (out / "rules.cmake").read_text()
    assert "if((USE_HIP AND (DEFINED CMAKE_HIP_STANDARD)) OR (NOT USE_HIP AND (DEFINED " in text
    for switch in ([], ["-DUSE_HIP=ON"]):
        assert "-- reached" in run([cmake, *switch, "-P", str(out / "rules.cmake")])
    run([sys.executable, "-m", "hipify_py", "convert", "--portable", str(out), "--in-place",
         "--no-backup", "-q"])  # fmt: skip
    assert (out / "rules.cmake").read_text() == text
