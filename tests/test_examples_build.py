"""Proof that a converted example builds as a project with its converted build system.

Each example under examples/ is converted with the real ``hipify-py convert`` and built the way
its build system says: CMake's HIP language (Debian's clang-19 with the ROCm 7.2.4 headers,
device libraries and runtime libraries) for gfx942, ``make`` with hipcc 5.2 for gfx90a, and
the setup.py of the PyTorch example checked against the converted tree. Every example kernel
also compiles to a gfx942 code object. Under CI=true a missing tool fails these tests.
"""

from __future__ import annotations

import ast
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import missing, require_tool
from hipify_py.verify.fetch import cache_root

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROCM7_RUNTIME_CANDIDATES = (
    os.environ.get("HIPIFY_PY_ROCM7_RUNTIME", ""),
    str(cache_root() / "rocm-7.2.4-runtime" / "usr"),
)
TORCH_HIPIFY_CANDIDATES = (  # a directory holding torch/utils/hipify as the package `hipify`
    os.environ.get("HIPIFY_PY_TORCH_HIPIFY", ""),
    str(cache_root() / "torch-hipify"),
)
MULTIARCH = "lib/x86_64-linux-gnu"


def run(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )  # fmt: skip
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout + proc.stderr


def convert(example: str, out: Path, *flags: str) -> Path:
    """``hipify-py convert examples/<example> --out-dir out`` as a user runs it."""
    run([sys.executable, "-m", "hipify_py", "convert", str(EXAMPLES / example),
         "--out-dir", str(out), "-q", *flags])  # fmt: skip
    return out


def code_object_archs(path: Path) -> set[str]:
    """The AMD GPU targets whose code objects an object file or archive carries."""
    data = path.read_bytes()
    return {arch for arch in ("gfx942", "gfx90a") if f"amdhsa--{arch}".encode() in data}


@pytest.fixture(scope="session")
def rocm7_runtime() -> Path:
    """ROCm 7.2.4 runtime libraries (.ci/get-rocm-runtime.sh DEST -> DEST/usr)."""
    for cand in ROCM7_RUNTIME_CANDIDATES:
        if cand and (Path(cand) / MULTIARCH / "libamdhip64.so.7").exists():
            return Path(cand)
    missing(
        "ROCm 7.2.4 runtime libraries not found "
        "(run .ci/get-rocm-runtime.sh ~/.cache/hipify-py/rocm-7.2.4-runtime)"
    )
    raise AssertionError("unreachable")


def device_libs(rocm7: Path) -> Path:
    return rocm7 / "lib/llvm-17/lib/clang/17/amdgcn/bitcode"


@pytest.fixture(scope="session")
def cmake_hip(rocm7, rocm7_runtime, clang19, tmp_path_factory) -> list[str]:
    """``cmake`` configure arguments for CMake's HIP language with clang-19 and ROCm 7.2.4.

    CMake 3.25 looks for ``<ROCm root>/lib/cmake/hip-lang``; Debian keeps the package configs
    in ``lib/x86_64-linux-gnu/cmake``, and the -dev packages lack the runtime libraries the
    imported targets name. So a ROCm root is laid out once per session: symlinks to the
    headers and libraries, the runtime libraries beside them, real copies of the package
    configs (they locate the install from their own real path) and ``lib/lib`` ->
    ``x86_64-linux-gnu`` as the root CMake searches.
    """
    cmake = require_tool("cmake")
    require_tool("make")
    clangxx = require_tool("clang++-19", "/usr/lib/llvm-19/bin/clang++")
    usr = tmp_path_factory.mktemp("rocm") / "usr"
    usr.mkdir()
    run(["cp", "-as", f"{rocm7}/.", f"{usr}/"])
    run(["cp", "-asf", f"{rocm7_runtime}/lib/.", f"{usr}/lib/"])
    shutil.rmtree(usr / MULTIARCH / "cmake")
    shutil.copytree(rocm7 / MULTIARCH / "cmake", usr / MULTIARCH / "cmake", symlinks=False)
    (usr / "bin").mkdir(exist_ok=True)
    (usr / "lib" / "lib").symlink_to("x86_64-linux-gnu")
    return [
        cmake,
        "-G",
        "Unix Makefiles",
        "-Wno-dev",
        f"-DCMAKE_CXX_COMPILER={clangxx}",
        f"-DCMAKE_HIP_COMPILER={clangxx}",
        f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={usr / 'lib'}",
        f"-DCMAKE_PREFIX_PATH={usr};{usr / MULTIARCH / 'cmake'}",
        f"-DCMAKE_HIP_FLAGS=--rocm-path={usr} --rocm-device-lib-path={device_libs(usr)}",
        "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld",  # lld: no need for rocBLAS behind hipBLAS
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",  # for assert_rocm7_headers
    ]


def cmake_build(cmake_hip: list[str], source: Path, build: Path) -> str:
    run([*cmake_hip, "-S", str(source), "-B", str(build)])
    log = run([cmake_hip[0], "--build", str(build), "--", "VERBOSE=1"])
    assert_rocm7_headers(build)
    return log


def assert_rocm7_headers(build: Path) -> None:
    """Every HIP header the build's compile commands read is a ROCm 7 one: were clang to search
    its ROCm include dir after /usr/include, Debian's HIP 5.2 there would win silently. The
    commands of compile_commands.json are re-run with -M (CMake's own dependency scan leaves
    system headers out)."""
    used: set[Path] = set()
    for entry in json.loads((build / "compile_commands.json").read_text()):
        args = shlex.split(entry["command"])
        if "-o" in args:
            del args[args.index("-o") : args.index("-o") + 2]
        host_only = ["--cuda-host-only"] if entry["file"].endswith((".hip", ".cu")) else []
        deps = run([*args, "-M", *host_only], cwd=Path(entry["directory"]))
        words = deps.replace("\\\n", " ").split()
        used |= {Path(w) for w in words if "/hip/" in w and w.endswith(".h")}
    assert used, "no HIP header in the compile commands' dependencies"
    versions = {p.resolve().parent / "hip_version.h" for p in used if p.parent.name == "hip"}
    majors = {
        line.split()[2]
        for v in versions
        for line in v.read_text().splitlines()
        if line.startswith("#define HIP_VERSION_MAJOR ")
    }
    assert majors == {"7"}, f"HIP headers of version {majors} used: {sorted(versions)}"


# ---------------------------------------------------------------------------------------------
# CMake's HIP language, gfx942


@pytest.mark.parametrize("flags", [(), ("--keep-names",)], ids=["renamed", "keep-names"])
def test_cmake_project_builds_with_the_hip_language(flags, cmake_hip, tmp_path):
    src = convert("cmake_project", tmp_path / "src", *flags)
    log = cmake_build(cmake_hip, src, tmp_path / "build")
    source = "src/saxpy.cu" if flags else "src/saxpy.hip"  # kept names get LANGUAGE HIP
    assert "--offload-arch=gfx942" in log and f"-c {src / source}" in log
    assert (tmp_path / "build" / "saxpy_demo").is_file()
    assert code_object_archs(tmp_path / "build" / "libsaxpy.a") == {"gfx942"}


def test_multi_directory_cublas_project_builds_and_links_hipblas(cmake_hip, tmp_path):
    src = convert("cmake_cublas", tmp_path / "src")
    assert "find_package(hipblas REQUIRED)" in (src / "blas" / "CMakeLists.txt").read_text()
    log = cmake_build(cmake_hip, src, tmp_path / "build")
    assert "libhipblas.so" in log  # roc::hipblas reached the link line
    assert (tmp_path / "build" / "app" / "gemm_demo").is_file()
    assert code_object_archs(tmp_path / "build" / "blas" / "libblas_ops.a") == {"gfx942"}


KERNEL = """\
#include <cuda_runtime.h>
__global__ void fill(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f;
}
void launch(float* x, int n) { fill<<<(n + 255) / 256, 256>>>(x, n); }
"""
HOST = """\
#include <cuda_runtime.h>
void launch(float* x, int n);
int main() {
  float* x = nullptr;
  if (cudaMalloc(&x, 256 * sizeof(float)) != cudaSuccess) return 1;
  launch(x, 256);
  return cudaDeviceSynchronize() == cudaSuccess ? cudaFree(x) : 1;
}
"""


def test_a_cuda_only_project_configures_with_find_package_hip(cmake_hip, tmp_path):
    """project(p LANGUAGES CUDA) enables no C++; find_package(hip) needs it (FindThreads)."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CUDA)\n"
        "set(CMAKE_CUDA_ARCHITECTURES 90)\n"
        "find_package(CUDAToolkit REQUIRED)\nadd_library(k STATIC k.cu)\n"
    )
    (tmp_path / "p" / "k.cu").write_text(KERNEL)
    run([sys.executable, "-m", "hipify_py", "convert", str(tmp_path / "p"), "-q"])
    cmake_build(cmake_hip, tmp_path / "p-hip", tmp_path / "build")
    assert code_object_archs(tmp_path / "build" / "libk.a") == {"gfx942"}


def test_a_findcuda_project_builds_with_the_hip_language(cmake_hip, tmp_path):
    """find_package(CUDA) + cuda_add_executable + a CUDA_NVCC_FLAGS string (CMake's deprecated
    FindCUDA): converted to enable_language(HIP), add_executable and CMAKE_HIP_FLAGS."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p CXX)\nfind_package(CUDA REQUIRED)\n"
        'set(CUDA_NVCC_FLAGS "${CUDA_NVCC_FLAGS} -O2")\n'
        "list(APPEND CUDA_NVCC_FLAGS -DFILL_VALUE=1)\n"
        "cuda_add_executable(app main.cu k.cu)\n"
    )
    (tmp_path / "p" / "k.cu").write_text(KERNEL)
    (tmp_path / "p" / "main.cu").write_text(HOST)
    run([sys.executable, "-m", "hipify_py", "convert", str(tmp_path / "p"), "-q"])
    log = cmake_build(cmake_hip, tmp_path / "p-hip", tmp_path / "build")
    assert "-O2" in log and "-DFILL_VALUE=1" in log
    assert code_object_archs(tmp_path / "build" / "app") == {"gfx942"}


def test_cpp_sources_beside_kernels_compile_with_the_hip_runtime(cmake_hip, tmp_path):
    """nvcc linked the runtime into the target and the .cpp found cuda_runtime.h; converted,
    the .cpp includes hip_runtime.h and needs hip::host (else `#error Must define exactly one
    of __HIP_PLATFORM_AMD__...`)."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX CUDA)\n"
        "find_package(CUDAToolkit REQUIRED)\nadd_executable(app main.cpp k.cu)\n"
        "target_include_directories(app PRIVATE ${CUDAToolkit_INCLUDE_DIRS})\n"
    )
    (tmp_path / "p" / "k.cu").write_text(KERNEL)
    (tmp_path / "p" / "main.cpp").write_text(HOST)
    run([sys.executable, "-m", "hipify_py", "convert", str(tmp_path / "p"), "-q"])
    log = cmake_build(cmake_hip, tmp_path / "p-hip", tmp_path / "build")
    assert "-D__HIP_PLATFORM_AMD__" in log or "__HIP_PLATFORM_AMD__=1" in log
    assert (tmp_path / "build" / "app").is_file()


DRIVER_KERNEL = 'extern "C" __global__ void scale(float *x, float s) { x[threadIdx.x] *= s; }\n'
DRIVER_LOADER = """#include <cuda.h>
int main() {
    CUmodule m;
    CUfunction f;
    if (cuInit(0) != CUDA_SUCCESS || cuModuleLoad(&m, "k.fatbin") != CUDA_SUCCESS) return 1;
    return cuModuleGetFunction(&f, m, "scale") == CUDA_SUCCESS ? 0 : 1;
}
"""
DRIVER_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(p LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
include_directories(${CMAKE_CURRENT_SOURCE_DIR})
set(CMAKE_CUDA_ARCHITECTURES 90)
add_executable(loader main.cpp)
target_link_libraries(loader PRIVATE CUDA::cuda_driver)
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/k.fatbin
    COMMAND ${CMAKE_CUDA_COMPILER} -gencode=arch=compute_90,code=sm_90
        -o ${CMAKE_CURRENT_BINARY_DIR}/k.fatbin -fatbin ${CMAKE_CURRENT_SOURCE_DIR}/k.cu
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/k.cu)
add_custom_target(fatbin ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/k.fatbin)
add_dependencies(loader fatbin)
"""


def test_a_fatbin_custom_command_writes_an_offload_bundle(nvcc, cmake_hip, tmp_path):
    """A driver-API program loads kernels from a file nvcc -fatbin writes in a custom command
    (cuda-samples' matrixMulDrv): converted, clang writes an offload bundle with a gfx942 code
    object, which hipModuleLoad accepts, although custom commands get no CMAKE_HIP_FLAGS."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "CMakeLists.txt").write_text(DRIVER_CMAKE)
    (tmp_path / "p" / "k.cu").write_text(DRIVER_KERNEL)
    (tmp_path / "p" / "main.cpp").write_text(DRIVER_LOADER)
    fatbin = ["-fatbin", "-o", str(tmp_path / "k.fatbin"), str(tmp_path / "p" / "k.cu")]
    run([nvcc, "-arch=sm_90", *fatbin])  # the input is real CUDA
    run([sys.executable, "-m", "hipify_py", "convert", str(tmp_path / "p"), "-q"])
    cmake_build(cmake_hip, tmp_path / "p-hip", tmp_path / "build")
    bundle = (tmp_path / "build" / "k.fatbin").read_bytes()
    assert bundle.startswith(b"__CLANG_OFFLOAD_BUNDLE__")
    assert code_object_archs(tmp_path / "build" / "k.fatbin") == {"gfx942"}
    assert (tmp_path / "build" / "loader").is_file()


# ---------------------------------------------------------------------------------------------
# Makefile: nvcc builds the original, hipcc 5.2 the conversion (gfx90a)


def test_make_project_cuda_original_builds_with_nvcc(nvcc, tmp_path):
    require_tool("make")
    shutil.copytree(EXAMPLES / "make_project", tmp_path / "p")
    cuda_home = Path(nvcc).resolve().parents[1]
    run(["make", f"CUDA_HOME={cuda_home}"], cwd=tmp_path / "p")
    assert (tmp_path / "p" / "vecops").is_file()


def test_make_project_builds_and_links_with_hipcc(hipcc, tmp_path):
    require_tool("make")
    src = convert("make_project", tmp_path / "src", "--offload-arch", "gfx90a")
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    rocm_path = Path(hipcc).resolve().parents[1]  # Debian: /usr/bin/hipcc -> ROCM_PATH=/usr
    log = run(["make", f"ROCM_PATH={rocm_path}"], cwd=src, env=env)
    assert "hipcc" in log and "--offload-arch=gfx90a" in log and "nvcc" not in log
    assert (src / "vecops").is_file()
    assert code_object_archs(src / "build" / "vecops.o") == {"gfx90a"}


# ---------------------------------------------------------------------------------------------
# setup.py: the converted extension names the converted sources


def _extension_sources(setup_py: Path) -> list[str]:
    tree = ast.parse(setup_py.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "sources":
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError("no sources= in setup.py")


def _nvcc_args(setup_py: Path) -> list[str]:
    tree = ast.parse(setup_py.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "extra_compile_args":
            return ast.literal_eval(node.value)["nvcc"]
    return []


def test_masked_add_setup_py_matches_the_converted_tree(rocm7, clang19, tmp_path):
    src = convert("masked_add", tmp_path / "src")
    sources = _extension_sources(src / "setup.py")
    assert sources == ["masked_add.cpp", "masked_add_kernel.hip"]
    assert all((src / s).is_file() for s in sources)
    # PyTorch's own hipify runs over these on ROCm: nothing CUDA-only may be left for it
    assert all("<<<" not in (src / s).read_text() for s in sources)
    assert _nvcc_args(src / "setup.py") == ["-O3", "-ffast-math", "-fno-finite-math-only"]
    obj = tmp_path / "kernel.o"
    run([clang19, "-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-O2", "-c",
         f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
         f"--rocm-device-lib-path={device_libs(rocm7)}", *_nvcc_args(src / "setup.py"),
         str(src / "masked_add_kernel.hip"), "-o", str(obj)])  # fmt: skip
    assert code_object_archs(obj) == {"gfx942"}


@pytest.fixture(scope="session")
def torch_hipify() -> Path:
    """PyTorch's own hipify (``torch/utils/hipify`` from the torch wheel, see .ci/run)."""
    for cand in TORCH_HIPIFY_CANDIDATES:
        if cand and (Path(cand) / "hipify" / "hipify_python.py").is_file():
            return Path(cand)
    missing("torch.utils.hipify not found (set HIPIFY_PY_TORCH_HIPIFY or run .ci/run)")
    raise AssertionError("unreachable")


# what CUDAExtension does with `sources` on a ROCm build of PyTorch 2.13 before compiling them
SECOND_HIPIFY = """
import json, os, sys
from hipify import hipify_python
build_dir = os.getcwd()
sources = json.loads(sys.argv[1])
result = hipify_python.hipify(
    project_directory=build_dir, output_directory=build_dir, header_include_dirs=[],
    includes=[os.path.join(build_dir, "*")], extra_files=[os.path.abspath(s) for s in sources],
    show_detailed=True, is_pytorch_extension=True, hipify_extra_files_only=True)
print("HIPIFIED", json.dumps({s: result[os.path.abspath(s)].hipified_path for s in sources}))
"""


def test_pytorch_hipify_leaves_the_converted_extension_alone(torch_hipify, tmp_path):
    """A ROCm CUDAExtension build runs PyTorch's hipify over the sources: on hipify-py's output
    it finds nothing to change, so the files compiled are the reviewed ones."""
    src = convert("masked_add", tmp_path / "src")
    sources = _extension_sources(src / "setup.py")
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    env = {**os.environ, "PYTHONPATH": str(torch_hipify)}
    out = run([sys.executable, "-c", SECOND_HIPIFY, json.dumps(sources)], cwd=src, env=env)
    (line,) = [x for x in out.splitlines() if x.startswith("HIPIFIED ")]
    hipified = json.loads(line.removeprefix("HIPIFIED "))
    assert hipified == {s: str(src / s) for s in sources}  # compiled as written
    assert {p: p.read_bytes() for p in src.rglob("*") if p.is_file()} == before


# ---------------------------------------------------------------------------------------------
# every converted .cu of every example compiles for gfx942; kernels -> gfx942 code objects


def _kernel_files() -> list[tuple[str, str]]:
    return sorted(
        (d.name, p.relative_to(d).with_suffix(".hip").as_posix())
        for d in EXAMPLES.iterdir()
        if d.is_dir()
        for p in d.rglob("*.cu")
    )


def test_every_example_is_covered():
    built = {"cmake_project", "cmake_cublas", "make_project", "masked_add"}
    kernels_only = {e for e, _ in _kernel_files()} - built
    assert kernels_only == {"host_rand_sparse", "warp_reduce"}  # no build system of their own


@pytest.mark.parametrize(("example", "kernel"), _kernel_files())
def test_every_example_kernel_yields_a_gfx942_code_object(
    example, kernel, rocm7, clang19, tmp_path
):
    src = convert(example, tmp_path / "src")
    includes = [f"-I{d}" for d in src.rglob("include") if d.is_dir()]
    obj = tmp_path / "k.o"
    run([clang19, "-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-O2", "-c",
         f"--rocm-path={rocm7}", "-isystem", str(rocm7 / "include"),
         f"--rocm-device-lib-path={device_libs(rocm7)}", *includes,
         str(src / kernel), "-o", str(obj)])  # fmt: skip
    # a host-only file (hipRAND/hipSPARSE calls, a main) compiles but carries no device code
    kernels = "__global__" in (src / kernel).read_text()
    assert code_object_archs(obj) == ({"gfx942"} if kernels else set())
