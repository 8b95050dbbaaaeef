"""Kernel launches: every form in which CUDA code writes them."""

import subprocess
from pathlib import Path

import pytest

from _convert import body, hip


@pytest.mark.parametrize(
    ("cuda", "expected"),
    [
        ("k<<<g, b>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x);"),
        ("k<<<g, b, 64>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 64, 0, x);"),
        ("k<<<g, b, shm, s>>>(x, y);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, s, x, y);"),
        ("k<<<g, b>>>();", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0);"),
        (
            "k<<<1,n,n*sizeof(int)>>>(d, n);",
            "hipLaunchKernelGGL(k, dim3(1), dim3(n), n*sizeof(int), 0, d, n);",
        ),
    ],
)
def test_launch_argument_counts(cuda: str, expected: str) -> None:
    assert body(f"void f() {{ {cuda} }}\n") == f"void f() {{ {expected} }}\n"


def test_existing_dim3_is_not_wrapped_twice() -> None:
    out = body("void f() { k<<<dim3(g, 2), dim3{4, 4}>>>(p); }\n")
    assert "hipLaunchKernelGGL(k, dim3(g, 2), dim3{4, 4}, 0, 0, p);" in out


def test_template_kernel_gets_hip_kernel_name() -> None:
    out = body("void f() { k<float, 4><<<g, b, 0, s>>>(p); }\n")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float, 4>), dim3(g), dim3(b), 0, s, p);" in out


def test_template_kernel_declared_in_file_without_explicit_arguments() -> None:
    src = "template <typename T> __global__ void k(T* p) {}\nvoid f(float* p) { k<<<1, 2>>>(p); }\n"
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k), dim3(1), dim3(2), 0, 0, p);" in body(src)


def test_nested_template_closing_angles() -> None:
    out = body("void f() { k<A<B>><<<g, b>>>(p); }\n")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<A<B>>), dim3(g), dim3(b), 0, 0, p);" in out


@pytest.mark.parametrize("name", ["ns::k", "::ns::inner::k", "Outer::k"])
def test_qualified_kernel_names(name: str) -> None:
    out = body(f"void f() {{ {name}<<<g, b>>>(p); }}\n")
    assert f"hipLaunchKernelGGL({name}, dim3(g), dim3(b), 0, 0, p);" in out


def test_commas_inside_brackets_braces_templates_and_casts() -> None:
    src = (
        "void f() { k<<<dim3(a, b), std::min<int>(n, 256), sizeof(T) * 2, s>>>"
        "(f(x, y), A<int, 2>::v, {1, 2}, (float*)p, static_cast<int>(q)); }\n"
    )
    out = body(src)
    assert (
        "hipLaunchKernelGGL(k, dim3(a, b), dim3(std::min<int>(n, 256)), sizeof(T) * 2, s, "
        "f(x, y), A<int, 2>::v, {1, 2}, (float*)p, static_cast<int>(q));"
    ) in out


def test_multi_line_launch_keeps_its_layout() -> None:
    src = "void f() {\n  k<<<\n      grid,\n      block>>>(\n      a,\n      b);\n}\n"
    out = body(src)
    assert out == (
        "void f() {\n  hipLaunchKernelGGL(k, dim3(grid),\n      dim3(block), 0, 0,\n"
        "      a,\n      b);\n}\n"
    )


def test_launch_inside_macro_definition() -> None:
    src = "#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)\n"
    assert body(src) == (
        "#define LAUNCH(k, g, b, ...) hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, __VA_ARGS__)\n"
    )


def test_launch_in_multi_line_macro_with_continuations() -> None:
    src = "#define RUN(k) \\\n  k<<<1, \\\n     32>>>(p)\n"
    out = body(src)
    assert "hipLaunchKernelGGL(k, dim3(1), \\\n     dim3(32), 0, 0, p)" in out


def test_launch_in_inactive_branch_is_converted() -> None:
    src = "void f() {\n#if 0\n  k<<<1, 1>>>(p);\n#else\n  k<<<2, 2>>>(p);\n#endif\n}\n"
    out = body(src)
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, p);" in out
    assert "hipLaunchKernelGGL(k, dim3(2), dim3(2), 0, 0, p);" in out


def test_skip_inactive_leaves_dead_branch_alone() -> None:
    src = "void f() {\n#if 0\n  k<<<1, 1>>>(p);\n#endif\n  k<<<2, 2>>>(p);\n}\n"
    out = body(src, skip_inactive=True)
    assert "  k<<<1, 1>>>(p);" in out
    assert "hipLaunchKernelGGL(k, dim3(2), dim3(2), 0, 0, p);" in out


def test_launch_in_comment_or_string_is_untouched() -> None:
    src = 'void f() {\n  // k<<<1, 1>>>(p);\n  puts("k<<<1, 1>>>(p)");\n}\n'
    assert body(src) == src


def test_shift_operators_are_not_launches() -> None:
    src = "int f(int a, int b) { return (a << 3) >> b; }\nint g(int a) { return a <<= 2; }\n"
    assert body(src) == src


def test_function_pointer_kernel() -> None:
    assert "hipLaunchKernelGGL((*fp), dim3(1), dim3(1), 0, 0, x);" in body(
        "void f() { (*fp)<<<1, 1>>>(x); }\n"
    )


def test_cuda_launch_syntax_option_keeps_chevrons() -> None:
    src = "void f() { k<<<g, b>>>(x); }\n"
    assert body(src, launch_syntax="cuda") == src


def test_launch_arguments_are_renamed_too() -> None:
    out = body("void f() { k<<<g, b, 0, cudaStreamPerThread>>>(cudaMemcpyHostToDevice); }\n")
    assert (
        "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, hipStreamPerThread, hipMemcpyHostToDevice);"
    ) in out


def test_unterminated_launch_is_left_alone() -> None:
    src = "void f() { k<<<g, b>>>(x, y\n"
    assert hip(src).endswith(src)


def test_kernel_name_macro_expanding_to_a_template_gets_hip_kernel_name() -> None:
    src = "#define KNAME axpy<float, 4>\nvoid f() { KNAME<<<1, n>>>(a); plain<<<1, n>>>(a); }\n"
    out = body(src)
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(KNAME), dim3(1), dim3(n), 0, 0, a);" in out
    assert "hipLaunchKernelGGL(plain, dim3(1), dim3(n), 0, 0, a);" in out


def test_skip_inactive_drops_fixes_in_skipped_branches_too() -> None:
    """--skip-inactive --fix: a branch the preprocessor skips stays byte-identical, fixes
    included (the HZ105 fix widening a ballot variable is applied only in live code)."""
    dead = (
        "  unsigned m = __ballot_sync(0xffffffff, v > 0);\n  o[0] = __popc(m) + cudaMalloc(0, 4);\n"
    )
    src = (
        "__global__ void k(int* o, int v) {\n#ifdef SOME_UNDEFINED_SWITCH\n" + dead + "#endif\n"
        "  unsigned n = __ballot_sync(0xffffffff, v > 0);\n  o[1] = __popc(n);\n}\n"
    )
    out = body(src, skip_inactive=True, fix=True, unsafe_fixes=True)
    assert dead in out
    assert "unsigned long long n = __ballot_sync(0xffffffffffffffffULL, v > 0);" in out


# Launches as clang-format leaves them in some projects (issue 23): nvcc accepts `<< <` and
# `>> >`; shifts and a template's `>> >` around them stay as they are.
SPACED = """#include <cstdio>
#include <utility>
#include <vector>
template <typename T> __global__ void k(T* x) { x[threadIdx.x] = T(1); }
__global__ void g(int* x, int n) { x[threadIdx.x] = n; }
int main() {
  int* x = nullptr;
  dim3 grid(1), block(64);
  std::vector<std::vector<std::pair<int, int>> > v;
  int a = 1 << 3, b = a >> 1;
  g << <grid, block >> > (x, a << 2);
  k<int> << <grid, block, 0 >> > (x);
  g << <(a >> 1) > 0 ? 1 : 2, block >> > (x, b >> 1);
  printf("%d %zu\\n", a << b, v.size());
  return 0;
}
"""


def test_spaced_launches_convert_like_unspaced_ones(
    nvcc: str, clang19: str, rocm7: Path, tmp_path: Path
) -> None:
    cuda = tmp_path / "spaced.cu"
    cuda.write_text(SPACED)
    real = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(cuda), "-o", str(tmp_path / "spaced.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert real.returncode == 0, real.stderr[-2000:]
    out = body(SPACED)
    assert "hipLaunchKernelGGL(g, dim3(grid), dim3(block), 0, 0, x, a << 2);" in out
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<int>), dim3(grid), dim3(block), 0, 0, x);" in out
    assert "hipLaunchKernelGGL(g, dim3((a >> 1) > 0 ? 1 : 2), dim3(block), 0, 0, x, b >> 1);" in out
    assert "std::vector<std::vector<std::pair<int, int>> > v;" in out
    assert "int a = 1 << 3, b = a >> 1;" in out and 'printf("%d %zu\\n", a << b' in out
    hip_file = tmp_path / "spaced.hip"
    hip_file.write_text("#include <hip/hip_runtime.h>\n" + out)
    check = subprocess.run(
        [
            clang19,
            "-x",
            "hip",
            "--offload-arch=gfx942",
            "-nogpulib",
            "-fsyntax-only",
            "-std=c++17",
            f"--rocm-path={rocm7}",
            "-isystem",
            str(rocm7 / "include"),
            str(hip_file),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stderr[-2000:]


PASTED = """#define LAUNCH(tag) \\
  void launch_##tag(const float* x, float* y, cudaStream_t s) { \\
    k_##tag##_cuda1<<<1, 64, 0, s>>>(x, y); \\
  }
__global__ void k_f32_cuda1(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }
LAUNCH(f32)
"""


def test_a_kernel_name_pasted_in_a_macro_is_launched_whole(nvcc, gfx942_check, tmp_path):
    """candle's mmvq launches: `k_##tag##_cuda1<<<...>>>` inside a macro body; the launch took
    only `_cuda1` as the kernel, an undeclared name once the macro expanded."""
    (tmp_path / "p.cu").write_text(PASTED)
    cmd = [nvcc, "-arch=sm_90", "-c", str(tmp_path / "p.cu"), "-o", str(tmp_path / "p.o")]
    assert subprocess.run(cmd, capture_output=True, timeout=300).returncode == 0
    out = hip(PASTED)
    assert "hipLaunchKernelGGL(k_##tag##_cuda1, dim3(1), dim3(64), 0, s, x, y);" in out
    (tmp_path / "p.hip").write_text(out)
    proc = gfx942_check(tmp_path / "p.hip")
    assert proc.returncode == 0, proc.stderr[-2000:]
