"""setup.py passes on strings: sources follow renames, nvcc args become hipcc args."""

from __future__ import annotations

import subprocess
import sys

from _build import converted, rules

SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, CUDA_HOME

setup(
    name="ops",
    ext_modules=[
        CUDAExtension(
            "ops",
            ["ops.cpp", "kernels/ops_kernel.cu"],  # ops_kernel.cu: the kernels
            libraries=["cublas"],
            extra_compile_args={
                "cxx": ["-O3"],
                "nvcc": ["-O3", "--use_fast_math", "-gencode", "arch=compute_80,code=sm_80",
                         "-gencode=arch=compute_90,code=sm_90", "--expt-relaxed-constexpr",
                         "-Xptxas=-v"],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
"""


def test_cuda_extension_follows_the_conversion():
    out = converted("setuptools", SETUP)
    assert "CUDAExtension, ROCM_HOME\n" in out
    assert '["ops.cpp", "kernels/ops_kernel.hip"],  # ops_kernel.cu: the kernels' in out
    assert 'libraries=["hipblas"],' in out
    nvcc = '"nvcc": ["-O3", "-ffast-math", "-fno-finite-math-only",\n                         ],'
    assert nvcc in out
    assert len(out.splitlines()) == len(SETUP.splitlines()) - 1  # the emptied line is gone


def test_dropped_flags_are_reported():
    assert rules("setuptools", SETUP) == [("HB106", 13), ("HB107", 13), ("HB105", 15)]


def test_arch_flags_are_left_to_pytorch():
    """PyTorch's _get_rocm_arch_flags ignores PYTORCH_ROCM_ARCH once any --offload-arch is in
    the arguments: the converted extension carries none."""
    text = 'args = {"nvcc": ["-O3", "-arch=sm_90", "-gencode", "arch=compute_80,code=sm_80"]}\n'
    assert converted("setuptools", text) == 'args = {"nvcc": ["-O3"]}\n'
    assert rules("setuptools", text) == [("HB107", 1)]


def test_only_plain_strings_in_lists_are_rewritten(tmp_path):
    text = 'import os\nsrc = [os.path.join("csrc", "k.cu"), f"{name}.cu", "other.cu"]\n'
    out = converted("setuptools", text, root=tmp_path, renamed=["csrc/k.cu"])
    assert out == 'import os\nsrc = [os.path.join("csrc", "k.hip"), f"{name}.cu", "other.cu"]\n'


def test_python_that_does_not_tokenize_is_left_alone():
    text = 'sources = ["k.cu",\n'
    assert converted("setuptools", text) == text


def test_a_jit_script_follows_the_conversion(tmp_path):
    """``cpp_extension.load(sources=[...])`` in any Python file of the tree: after a tree
    conversion its .cu names are the .hip files the tree holds; Python that builds nothing is
    copied as it is."""
    src = tmp_path / "ext"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n")
    (src / "bench.py").write_text(
        "from torch.utils.cpp_extension import load\n"
        'ext = load(name="k", sources=["k.cu"], extra_cuda_cflags=["--use_fast_math"])\n'
    )
    (src / "plot.py").write_text('import torch\ntorch.cuda.synchronize()  # "k.cu"\n')
    cmd = [sys.executable, "-m", "hipify_py", "convert", str(src), "-q"]
    subprocess.run(cmd, check=True, capture_output=True)
    out = tmp_path / "ext-hip"
    assert (out / "k.hip").is_file()
    assert (out / "bench.py").read_text().splitlines()[1] == (
        'ext = load(name="k", sources=["k.hip"], '
        'extra_cuda_cflags=["-ffast-math", "-fno-finite-math-only"])'
    )
    assert (out / "plot.py").read_text() == (src / "plot.py").read_text()


FLAG_CALLS = """\
from torch.utils.cpp_extension import CUDAExtension
cc_flag = ["-O3"]
if CUDA_NEW:
    cc_flag.append("-gencode")
    cc_flag.append("arch=compute_90,code=sm_90")
cc_flag.append("--use_fast_math")
ext = CUDAExtension("k", ["k.cu"], extra_compile_args={"nvcc": cc_flag})
"""


def test_flags_passed_one_call_at_a_time_stay_valid_python():
    """Removing the only argument of ``append`` would leave ``append()`` (a TypeError when
    setup.py runs, and an empty ``if`` body a SyntaxError): the call becomes ``pass``, and a
    flag that became two words goes through ``extend``."""
    out = converted("setuptools", FLAG_CALLS)
    compile(out, "setup.py", "exec")
    lines = out.splitlines()
    assert lines[3] == '    pass  # cc_flag.append("-gencode"): nvcc only'
    assert lines[4] == '    pass  # cc_flag.append("arch=compute_90,code=sm_90"): nvcc only'
    assert lines[5] == 'cc_flag.extend(["-ffast-math", "-fno-finite-math-only"])'


def test_a_setup_py_that_builds_for_rocm_itself_keeps_its_cuda_branch():
    """It branches on ``torch.version.hip``: the CUDA branch's flags are for nvcc and stay;
    only the source names follow the tree's renames."""
    text = FLAG_CALLS.replace("if CUDA_NEW:", "if torch.version.hip is None:")
    out = converted("setuptools", text)
    assert out == text.replace('["k.cu"]', '["k.hip"]')
    assert rules("setuptools", text) == []
