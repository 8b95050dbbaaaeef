"""verify on a converted project as a user runs it: include directories found without -I,
third-party headers NOT CHECKABLE (not failed), gfx942 code objects from the ROCm 7.2.4 set."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import missing
from hipify_py.verify import VerifyOptions, torch_ext, verify_paths
from hipify_py.verify.includes import ProjectIncludes, missing_header_kind

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _hipify(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hipify_py", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
        timeout=1800,
    )


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# --------------------------------------------------------------------------- finding includes


def test_include_dirs_from_cmake_and_makefile(tmp_path):
    root = _tree(
        tmp_path,
        {
            "CMakeLists.txt": "add_library(l src/a.hip)\n"
            "target_include_directories(l PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include "
            "${SOME_VAR}/x)  # comment (\ninclude_directories(SYSTEM third)\n",
            "include/a.h": "",
            "third/t.h": "",
            "src/a.hip": "#include <a.h>\n",
            "tool/Makefile": "CXXFLAGS += -I../shared -I $(ROCM_PATH)/include\n",
            "tool/b.hip": "",
            "shared/s.h": "",
        },
    )
    proj = ProjectIncludes(root)
    flags, notes = proj.flags_for(root / "src" / "a.hip")
    assert flags.include_dirs == (str(root / "include"), str(root / "third"))
    assert "build files" in notes[0]
    flags, _ = proj.flags_for(root / "tool" / "b.hip")
    assert str(root / "shared") in flags.include_dirs


def test_quoted_includes_resolved_inside_the_tree(tmp_path):
    root = _tree(
        tmp_path,
        {
            "src/k.hip": '#include "saxpy.cuh"\n#include "detail/util.h"\n#include "dup.h"\n',
            "include/saxpy.cuh": '#include "inner.h"\n',
            "include/inner.h": "",
            "lib/detail/util.h": "",
            "a/dup.h": "",
            "b/dup.h": "",
        },
    )
    flags, notes = ProjectIncludes(root).flags_for(root / "src" / "k.hip")
    # the directory that makes the written path resolve; an ambiguous name adds nothing
    assert flags.include_dirs == (str(root / "include"), str(root / "lib"))
    assert "found in the tree" in notes[0]


def test_missing_header_kinds():
    assert missing_header_kind("torch/extension.h") == "third-party"
    assert missing_header_kind("Eigen/Dense") == "third-party"
    assert missing_header_kind("cuda_runtime.h") == "cuda"
    assert missing_header_kind("cub/cub.cuh") == "cuda"
    assert missing_header_kind("kernels.cuh") == "cuda"
    assert missing_header_kind("hipblaslt/hipblaslt.h") == "rocm"


def test_missing_cuda_headers_are_the_ones_the_mapping_tables_know():
    """'Is a CUDA header' comes from the mapping index and the header pass: every header the
    tables list is one, also those an ad-hoc list missed; a CUDA Samples helper or a
    thrust header (rocThrust keeps the name) is not the toolkit's."""
    from hipify_py.mappings.load import load_index

    listed = sorted(load_index().headers)
    assert len(listed) > 50
    for name in ("curand_kernel.h", "nvToolsExt.h", "cooperative_groups/reduce.h", "mma.h"):
        assert missing_header_kind(name) == "cuda", name
    assert [n for n in listed if missing_header_kind(n) != "cuda"] == []
    assert missing_header_kind("helper_cuda.h") == "third-party"
    assert missing_header_kind("thrust/sort.h") == "third-party"


def test_includes_in_comments_and_inactive_text_are_not_followed(tmp_path):
    root = _tree(
        tmp_path,
        {
            "src/k.hip": '// #include "old/gone.h"\n/* #include "x/y.h" */\n#include "real.h"\n',
            "include/real.h": "",
            "old/gone.h": "",
            "x/y.h": "",
        },
    )
    flags, _ = ProjectIncludes(root).flags_for(root / "src" / "k.hip")
    assert flags.include_dirs == (str(root / "include"),)


def test_commented_out_build_flags_are_not_include_dirs(tmp_path):
    root = _tree(
        tmp_path,
        {
            "Makefile": "# CXXFLAGS += -Iold\nCXXFLAGS += -Inew\n",
            "CMakeLists.txt": '# include_directories(gone)\ninclude_directories("with space")\n',
            "old/o.h": "",
            "new/n.h": "",
            "gone/g.h": "",
            "with space/w.h": "",
            "k.hip": "",
        },
    )
    flags, _ = ProjectIncludes(root).flags_for(root / "k.hip")
    assert set(flags.include_dirs) == {str(root / "with space"), str(root / "new")}


# ----------------------------------------------------------------- failed vs not checkable

BINDING = """#include <torch/extension.h>
#include <hip/hip_runtime.h>
torch::Tensor f(torch::Tensor x) { return x; }
"""
LEFT_CUDA = """#include <cuda_runtime.h>
__global__ void k(float* x) { x[0] = 1.0f; }
"""


def test_third_party_header_is_not_checkable_and_cuda_header_fails(
    tmp_path, clang19, rocm7, monkeypatch
):
    from hipify_py.verify import file_flags, torch_ext

    for module in (file_flags, torch_ext):  # a Python without PyTorch
        monkeypatch.setattr(module, "find_torch", lambda: None)
    _tree(tmp_path, {"bind.cpp": BINDING})
    opts = VerifyOptions(toolchain="clang", rocm_path=str(rocm7))
    report = verify_paths([tmp_path], opts)
    (f,) = report.files
    assert f.status == "not-checkable" and f.missing == ["torch/extension.h"]
    assert any("has no PyTorch" in n and "-D USE_ROCM=1" in n for n in f.notes), f.notes
    # nothing failed, but nothing was checked either: that run does not pass (issue 25)
    assert report.ok and report.checked_nothing and report.exit_code == 1
    _tree(tmp_path, {"ok.hip": "#include <hip/hip_runtime.h>\n__global__ void k() {}\n"})
    report = verify_paths([tmp_path], opts)
    assert report.exit_code == 0 and report.counts()["not-checkable"] == 1
    (tmp_path / "ok.hip").unlink()
    _tree(tmp_path, {"left.hip": LEFT_CUDA})
    report = verify_paths([tmp_path], opts)
    status = {Path(f.path).name: f.status for f in report.files}
    assert status == {"bind.cpp": "not-checkable", "left.hip": "failed"}
    assert report.exit_code == 1


# ----------------------------------------------------------------- the examples, end to end


def test_converted_examples_verify_for_gfx942_with_only_the_hip_headers_named(
    tmp_path, clang19, rocm7
):
    """`hipify-py convert examples/ && hipify-py verify examples-hip --arch gfx942`: exit 0
    with nothing but the ROCm header set named, and every kernel built into a gfx942 code
    object (--codegen compiles host and device code with the 7.2.4 device libraries)."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    conv = _hipify("convert", "examples/", "-q", cwd=tmp_path)
    assert conv.returncode == 0, conv.stdout + conv.stderr
    proc = _hipify(
        "verify",
        "examples-hip",
        "--arch",
        "gfx942",
        "--rocm-path",
        str(rocm7),
        "--codegen",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr
    data = json.loads(proc.stdout)
    assert data["toolchain"]["hip_version"] == "7.2" and data["toolchain"]["arch"] == "gfx942"
    files = {f["path"]: f for f in data["files"]}
    assert files, data
    for path, f in files.items():
        if f["status"] == "not-checkable":  # only a binding that needs PyTorch's headers
            assert f["missing_headers"] == ["torch/extension.h"], f
            continue
        assert f["status"] == "passed", f
        text = (tmp_path / path).read_text()
        if "__global__" in text:
            assert f["code_object"] == "gfx942", path
    kernels = [p for p in files if "__global__" in (tmp_path / p).read_text()]
    cuda_kernels = [p for p in EXAMPLES.rglob("*.cu") if "__global__" in p.read_text()]
    assert len(kernels) == len(cuda_kernels) >= 3
    assert data["summary"]["failed"] == 0


SETUP_PY = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="pkg", ext_modules=[
    CUDAExtension(name="pkg.fused_ops", sources=["ops.hip", "bind.cpp"]),
    CUDAExtension("other", sources=['x.hip'])], cmdclass={"build_ext": BuildExtension})
"""


def test_extension_names_come_from_setup_py(tmp_path):
    _tree(tmp_path, {"setup.py": SETUP_PY})
    names = torch_ext.extension_names(tmp_path)
    assert names == {
        (tmp_path / "ops.hip").resolve(): "fused_ops",
        (tmp_path / "bind.cpp").resolve(): "fused_ops",
        (tmp_path / "x.hip").resolve(): "other",
    }
    assert torch_ext.uses_torch("#include <ATen/ATen.h>\n")
    assert torch_ext.uses_torch('  # include "c10/util/Half.h"\n')
    assert not torch_ext.uses_torch('#include "mytorch/x.h"\n// #include <torch/x.h>\n')


TORCH_KERNEL = """#include <hip/hip_runtime.h>
#include <c10/util/Half.h>
#if !defined(USE_ROCM) || !defined(TORCH_EXTENSION_NAME)
#error "not compiled as a ROCm CUDAExtension"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)
static_assert(sizeof(STR(TORCH_EXTENSION_NAME)) == sizeof("fused_ops"), "extension name");
__global__ void k(c10::Half* x) { x[threadIdx.x] = c10::Half(1.0f); }
"""


def test_torch_extension_sources_get_torch_and_its_rocm_defines(tmp_path, clang19, rocm7):
    """A file of a CUDAExtension is compiled as PyTorch's ROCm build compiles it: torch's
    include directories, -DUSE_ROCM=1 and the rest, the extension's name from setup.py; a
    header only a ROCm build of PyTorch has is named as such (issue 25)."""
    torch = torch_ext.find_torch()
    if torch is None:
        missing("PyTorch not installed in this Python (pip install torch==2.13.0)")
    _tree(tmp_path, {"setup.py": SETUP_PY, "ops.hip": TORCH_KERNEL})
    opts = VerifyOptions(toolchain="clang", rocm_path=str(rocm7), jobs=1)
    (f,) = verify_paths([tmp_path / "ops.hip"], opts).files
    assert f.status == "passed", f.to_json()
    assert "-DUSE_ROCM=1" in f.command and "-DTORCH_EXTENSION_NAME=fused_ops" in f.command
    assert torch.include_dirs[0] in f.command
    if torch.hip is None:  # a CPU build: ATen/hip is not there, and the note says why
        _tree(tmp_path, {"ops.hip": "#include <ATen/hip/HIPContext.h>\n"})
        (f,) = verify_paths([tmp_path / "ops.hip"], opts).files
        assert f.status == "not-checkable" and f.missing == ["ATen/hip/HIPContext.h"]
        assert any("a ROCm build of PyTorch is needed" in n for n in f.notes), f.notes
