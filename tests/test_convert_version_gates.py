"""Meaning-preserving rewrites: CUDA version gates and macro definitions (issue 11)."""

from __future__ import annotations

import pytest

from _convert import body, result
from test_hazard_common import only


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("#if CUDART_VERSION >= 11080\n", "#if 12000 /* CUDART_VERSION */ >= 11080\n"),
        ("#if CUDA_VERSION < 12000\n", "#if 12000 /* CUDA_VERSION */ < 12000\n"),
        (
            "#if defined(CUDA_VERSION) && CUDA_VERSION >= 11000\n",
            "#if 1 /* defined(CUDA_VERSION) */ && 12000 /* CUDA_VERSION */ >= 11000\n",
        ),
        (
            "#if __CUDACC_VER_MAJOR__ > 11 || "
            "(__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 8)\n",
            "#if 12 /* __CUDACC_VER_MAJOR__ */ > 11 || (12 /* __CUDACC_VER_MAJOR__ */ == 11 "
            "&& 0 /* __CUDACC_VER_MINOR__ */ >= 8)\n",
        ),
        ("#ifdef CUDART_VERSION\n", "#if 1 /* ifdef CUDART_VERSION */\n"),
        ("#ifndef CUDA_VERSION\n", "#if 0 /* ifndef CUDA_VERSION */\n"),
        ("#elif defined CUDA_VERSION\n", "#elif 1 /* defined(CUDA_VERSION) */\n"),
    ],
)
def test_version_gates_keep_the_cuda_12_branch(cuda, hip):
    src = cuda + "int a;\n#endif\n"
    out = body(src)
    assert out == hip + "int a;\n#endif\n"
    assert "HIP_VERSION" not in out


def test_code_in_a_branch_the_fold_drops_is_not_reported():
    # cudpp satGL: cudaGLMapBufferObject in the `CUDART_VERSION < 3000` branch, which the
    # converted code (12000) never compiles; the same call in the kept branch is reported
    src = (
        "#if CUDART_VERSION < 3000\nvoid f(void** p) { cudaGLMapBufferObject(p, 1); }\n"
        "#else\nvoid g(void** p) { cudaGLMapBufferObject(p, 2); }\n#endif\n"
    )
    assert [f.line for f in only("HZ300", src)] == [4]


def test_version_gate_branch_is_the_one_cuda_12_takes():
    src = (
        "#if CUDART_VERSION >= 11080\nint newer;\n#else\nint older;\n#endif\n"
        "#if CUDART_VERSION >= 12080\nint blackwell;\n#else\nint hopper_or_older;\n#endif\n"
    )
    out = body(src)
    # evaluate the converted conditions the way the preprocessor does
    ifs = [ln[4:] for ln in out.splitlines() if ln.startswith("#if ")]
    conds = [c.split("/*")[0] + c.split("*/")[1] for c in ifs]
    assert [eval(c) for c in conds] == [True, False]  # integer comparisons only


def test_project_definitions_of_version_macros_stay():
    src = "#ifndef CUDART_VERSION\n#define CUDART_VERSION 0\n#endif\n"
    assert body(src) == src


def test_version_macro_in_code_and_pytorch():
    out = body("#include <ATen/ATen.h>\nint v = CUDA_VERSION;\n")
    assert "int v = 12000 /* CUDA_VERSION */;" in out and "TORCH_HIP_VERSION" not in out
    assert not [f for f in result("int v = CUDA_VERSION;\n").findings if f.rule == "HZ300"]


# --------------------------------------------------------------------------- macro definitions


def test_function_like_shim_keeps_its_head():
    src = (
        "#define cudaMallocHost(ptr, size) hipHostMalloc(ptr, size, hipHostMallocDefault)\n"
        "void f(void** p) { cudaMallocHost(p, 4); }\n"
    )
    out = body(src)
    assert out.splitlines()[0] == src.splitlines()[0]
    assert "hipHostMalloc(p, 4, hipHostMallocDefault);" in out


def test_parameters_named_like_cuda_apis_are_not_renamed():
    src = "#define CALL(cudaMalloc, n) cudaMalloc(n)\nint x = CALL(g, 1);\n"
    assert body(src) == src


def test_object_like_shims_are_not_made_self_referential():
    src = (
        "#define CUBLAS_OP_N HIPBLAS_OP_N\n"
        "#define cudaStream_t hipStream_t\n"
        "#define cudaMemcpyAsync hipMemcpyAsync\n"
        "#define MY_STREAM cudaStream_t\n"
    )
    out = body(src)
    lines = out.splitlines()
    assert lines[:3] == src.splitlines()[:3]
    assert lines[3] == "#define MY_STREAM hipStream_t"  # bodies are still converted
    assert "#define HIPBLAS_OP_N HIPBLAS_OP_N" not in out


def test_skip_inactive_keeps_the_branch_the_converted_gate_selects():
    """--skip-inactive and the version gates read CUDA as the same release (12.0): the branch
    the rewritten gate selects is converted, the one it rules out is left alone.  (The hermetic
    parse used to define CUDA_VERSION as 12.6, converting the #if branch and leaving
    cudaMalloc in the #else branch that the rewritten gate `12000 >= 12040` selects.)"""
    src = (
        "void f(void** p) {\n#if CUDA_VERSION >= 12040\n  cudaMallocAsync(p, 4, 0);\n"
        "#else\n  cudaMalloc(p, 4);\n#endif\n}\n"
    )
    out = body(src, skip_inactive=True)
    assert "#if 12000 /* CUDA_VERSION */ >= 12040" in out
    assert "hipMalloc(p, 4);" in out and "cudaMalloc(" not in out
    assert "cudaMallocAsync(p, 4, 0);" in out  # the branch neither build takes stays as written
