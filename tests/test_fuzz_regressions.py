"""Inputs the 100,000-input fuzz campaign (benchmarks/fuzz_campaign.py, 16 workers) found.

Each was a failure of the guarantees in the README's safety section: converting twice must
equal converting once; a parse must stay within its memory and time.
"""

from __future__ import annotations

from _convert import ctx, hip
from hipify_py.frontend.unit import Unit


def test_include_goes_after_a_continued_pragma_once():
    # input 5802: the #include went after `#pragma once\`, so it continued the pragma
    src = "#pragma once\\\n__global__ void k(float* out) { out[threadIdx.x] = 1.f; }\n"
    out = hip(src)  # asserts that a second conversion changes nothing
    assert out.startswith(src.split("\n")[0] + "\n" + src.split("\n")[1] + "\n#include")


def test_a_launch_inside_a_kernel_name_is_no_launch_of_that_name():
    # input 25276: the outer launch's edits covered the inner one, converted by the next run
    hip("void f() { k<fk<<<g, b>>>(x, 4><<<g, b, 0, s>>>(p); }\n")


def test_a_launch_inside_another_launchs_name_or_arguments_is_left_alike_by_every_run():
    # input 86269 (fourth run): the inner launch took the outer one's `<<<` into its arguments
    # and was rewritten; the next run then rewrote the outer launch around hipLaunchKernelGGL
    hip("void f() { k<fk<<<g, b>>>(x, 4><<<g, b, 0, s>>>(p); , v > 0.0f);\n}\n")
    nested_name = hip("void f() { k<fk<<<g, b>>>(x)><<<g, b>>>(p); }\n")
    assert "k<hipLaunchKernelGGL(fk, dim3(g), dim3(b), 0, 0, x)><<<g, b>>>(p)" in nested_name
    nested_argument = hip("void f() { k<<<g, b>>>(fk<<<g, b>>>(x)); }\n")
    assert "k<<<g, b>>>(hipLaunchKernelGGL(fk," in nested_argument
    # input 5544 (fifth run): a launch in another's configuration
    nested_config = hip("void h() { a<<<b<<<1, 1>>>(), c(d<<<2, 3>>>())>>>(x); }\n")
    assert "a<<<hipLaunchKernelGGL(b, dim3(1), dim3(1), 0, 0), c(" in nested_config


def test_a_version_macro_in_a_header_name_is_left_to_the_headers_pass():
    # input 78444 (fifth run): `#include <cub/... CUDA_VERSION ...>`: the header's edit and the
    # version macro's overlapped, and the file was not converted
    out = hip("#include <cub/x CUDA_VERSION y>\nint v = CUDA_VERSION;\n")
    assert "#include <hipcub/hipcub.hpp>" in out and "int v = 12000 /* CUDA_VERSION */;" in out


def test_a_macro_bomb_within_the_old_budget_is_not_parsed():
    # input 16200: 2**19 expansions of `x,` passed the 2-million-token budget; the parse took
    # 178 MB for a 478-byte file (over its 64 MiB)
    lines = ["#define A0 x,"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 20)]
    src = "\n".join(lines) + "\nint v[] = {A19};\n"
    unit = Unit("t.cu", src, ctx().mappings)
    assert unit.ast is None and "not parsed" in (unit._ast_error or "")


def test_a_large_file_is_parsed_in_the_capped_child():
    # input 7500: 97 KB of `cudaMalloc(&p, i);` at file scope took libclang 13 s in-process
    # (each redeclaration is checked against the ones before); only the child has a CPU limit
    src = " ".join(f"cudaMalloc(&p, {i});" for i in range(3000)) + "\n"
    assert len(src) > 32 * 1024
    assert Unit("t.cu", src, ctx().mappings).risky


def test_include_is_not_put_where_an_unterminated_literal_swallows_it():
    # inputs 16732 and 24038: `#pragma once\` continued into a raw string / char literal that
    # runs to the end of the file: a line put after the directive is inside that literal
    for tail in ('out[0] =R"( 1.f; }\n', "out[0] ='\\\n\\\n\\"):
        hip("\ufeff#pragma once\\\n__global__ void k(float* out) { " + tail)
        hip("#pragma once\\\n__global__ void k(float* out) { " + tail)


def test_include_is_not_put_where_the_line_before_continues_or_a_comment_runs_on():
    # inputs 5371 and 14055 (third run): `#pragma once\` + `__g\` + `\`, and an unterminated
    # `/*\` after the continued pragma: the line after the directive was not a line of its own
    hip("\ufeff#pragma once\\\n__g\\\n\\\n")
    hip("#pragma once\\\n__global__ void k(float* out) { /*\\\n\\\n\\\n")


def test_a_kernel_name_never_spans_a_statement():
    # input 23893: matching `<...>` backwards took `k<d f() { k<A<B>` as one launch's name
    hip("void f() { k<d f() { k<A<B>><<<g, b>>>(p); }\nA<B>><<<g, b>>>(p); }\n")


def test_a_shim_never_goes_into_a_comment_an_include_line_opens():
    # input 736 (sixth run): `#include <cuda_runtime.h> /* a` + ` b */ ...`: the bf16 shim went
    # after that line, inside the comment, so the next run added it again
    src = (
        "#include <cuda_runtime.h>\n#include <cuda_bf16.h> /* a\n b */\n"
        "__global__ void k(nv_bfloat162* b, float* f) { b[0] = __float2bfloat162_rn(f[0]); }\n"
    )
    out = hip(src)
    assert out.index("HIPIFY_PY_SHIM_BF16") < out.index("/* a")
