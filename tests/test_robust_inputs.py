"""Odd but real inputs: bytes that are not UTF-8, CR-only line endings, BOMs, pathological
literals, and the mutations that once made two rules edit the same bytes."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from _convert import ctx, hip, result
from hipify_py.discover import Candidate
from hipify_py.frontend.lexer import Kind, lex
from hipify_py.result import RunMode
from hipify_py.runner import process

HZ403 = ("HZ403",)  # opt-in: the managed memory these inputs use is their one finding
KERNEL = (
    "#include <cuda_runtime.h>{nl}// caf\xe9 au lait{nl}"
    "__global__ void k(int* p) {{ cudaMallocManaged(0, 1 << 20); }}{nl}"
    "int main() {{{nl}  k<<<1, 1>>>(0);{nl}  cudaDeviceSynchronize();{nl}}}{nl}"
)


def _process(tmp_path: Path, data: bytes, mode: RunMode = RunMode.CONVERT):
    path = tmp_path / "k.cu"
    path.write_bytes(data)
    return process(Candidate(path, Path("k.cu"), tmp_path), ctx(enable=HZ403), mode)


def test_latin1_source_is_converted_byte_for_byte_and_checked(tmp_path):
    data = KERNEL.format(nl="\n").encode("latin-1")
    out = _process(tmp_path, data)
    assert out.status == "converted"
    assert b"// caf\xe9 au lait\n" in out.result.data  # the Latin-1 byte, unchanged
    assert b"hipDeviceSynchronize();" in out.result.data
    assert [f.rule for f in out.result.findings] == ["HZ403"]
    checked = _process(tmp_path, data, RunMode.CHECK)
    assert [f.rule for f in checked.result.findings] == ["HZ403"]


def test_binary_cuda_source_is_a_failure_not_a_copy(tmp_path):
    out = _process(tmp_path, b"cudaMalloc(0, 0);\0\0\n")
    assert out.status == "failed" and "cannot be converted" in out.message


@pytest.mark.parametrize("nl", ["\r", "\r\n", "\n"])
def test_every_line_ending_converts_and_reports_on_the_right_line(nl):
    src = KERNEL.format(nl=nl)
    out = result(src, enable=HZ403)
    assert "hipDeviceSynchronize();" in out.text and "cudaDeviceSynchronize" not in out.text
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, 0);" in out.text
    assert out.text.startswith("#include <hip/hip_runtime.h>" + nl)
    assert [(f.rule, f.line) for f in out.findings] == [("HZ403", 3)]
    assert hip(src, annotate=True, enable=HZ403).count("hipify-py[HZ403]") == 1


def test_bom_does_not_hide_the_pytorch_include():
    src = "\ufeff#include <c10/cuda/CUDAGuard.h>\n"
    assert "c10/hip/HIPGuard.h" in hip(src)


def test_annotate_is_idempotent_for_driver_managed_memory():
    src = "#include <cuda.h>\nvoid f(CUdeviceptr* p) { cuMemAllocManaged(p, 4, 1); }\n"
    out = hip(src, annotate=True, enable=HZ403)
    assert out.count("hipify-py[HZ403]") == 1 and "hipMallocManaged" in out


def test_unterminated_literal_before_continuations_is_one_token():
    # took time doubling every two lines (a 100-byte file never finished)
    src = '"' + "\\\n" * 200 + "\\"
    tokens = lex(src).tokens
    assert [(t.kind, t.start, t.end) for t in tokens] == [(Kind.STRING, 0, len(src))]


@pytest.mark.parametrize(
    "src",
    [
        "k<<<1, 1>>>(p);\n",  # a launch at offset 0, where the runtime include goes
        "#include <x.h>\r<<<g, b>>>(p); }\r",  # no kernel name from the include line
        "// note \\\n\\\n__global__ void k() {}\n",  # no include on a spliced comment line
        "#include <cuda.h>\r#include <cuda.h>\rint x;\rcudaMalloc(0,0);\r",
        "__global__ void k(int* p) {}\nvoid f() { cudaMemcpyToSymbol(k<<<1, 1>>>(p), 0, 0); }\n",
        "a<<<b<<<1, 1>>>(x), 1>>>(y);\n",  # a launch inside a launch configuration
        "a<<<1, 1>>>(x) <<<1, 1>>>(y);\n",  # a call's arguments are no kernel expression
        '#include "x\rcudaMalloc.cu"\r',  # an include path ends at its line (header vs rename)
    ],
)
def test_rules_never_edit_the_same_bytes_and_converting_twice_is_once(src):
    out = result(src)
    assert out.error is None and out.rule_errors == []
    assert result(out.text).text == out.text


def test_bracket_table_answers_what_the_scan_answers():
    """Long token lists use a one-pass bracket table (no quadratic rescans of a broken file);
    it must agree with the bracket-by-bracket search everywhere, whichever direction's table
    is built first (the second is the first one inverted when every bracket matched)."""
    from _mutations import mutate, seeds
    from hipify_py.frontend import syntax

    inverted = 0
    for data in [*seeds()[:20], *(mutate(n)[0] for n in range(200))]:
        lexed = lex(data.decode("utf-8", "surrogateescape")[:4000])
        tokens = lexed.tokens
        n = len(tokens)
        scan = {True: {}, False: {}}
        for i, tok in enumerate(tokens):
            if tok.text in syntax._OPEN:
                found = syntax._match(tokens, i, range(i + 1, n), syntax._OPEN, syntax._CLOSE)
                if found is not None:
                    scan[True][i] = found
            elif tok.text in syntax._CLOSE:
                found = syntax._match(tokens, i, range(i - 1, -1, -1), syntax._CLOSE, syntax._OPEN)
                if found is not None:
                    scan[False][i] = found
        assert lexed.brackets == scan[True]  # the lexer's table (Unit registers it)
        # built first one way or the other, or taken from the lexer
        for first, known in product((True, False), (True, False)):
            syntax._table_cache[:] = [None, None, None]
            if known:
                syntax.know_brackets(tokens, lexed.brackets, lexed.balanced)
            tables = {first: syntax._tables(tokens, forward=first)}
            tables[not first] = syntax._tables(tokens, forward=not first)
            inverted += syntax._table_cache[1 if first else 2].balanced
            assert tables == scan
    assert inverted > 200  # the inverted tables were exercised, not only computed ones


SHIMMED = "__device__ float f(const float* p, float* q) { __stcs(q, 1.0f); return __ldcs(p); }\n"


@pytest.mark.parametrize(
    ("name", "src"),
    [
        ("no include: the runtime include and the shim at one point", SHIMMED),
        ("a BOM: both after it", "\ufeff" + SHIMMED),
        ("an include guard: both inside it", "#ifndef K_H\n#define K_H\n" + SHIMMED + "#endif\n"),
    ],
)
def test_the_runtime_include_goes_before_the_shims_that_need_it(name: str, src: str):
    """Fuzz inputs of the shim pass: the include and a shim block inserted at one point were a
    conflict, and a shim above a BOM or an include guard became the file's first #ifndef, read
    as its guard by the next run (which then converted it differently)."""
    out = result(src)
    assert out.error is None, name
    text = out.text
    assert text.index("#include <hip/hip_runtime.h>") < text.index("HIPIFY_PY_SHIM_LOAD_STORE")
    assert text.startswith(src[: src.index("__device__")])  # the BOM, the guard first
    assert hip(text) == text, name  # converting twice equals converting once


def test_a_cuda_name_opening_the_file_is_no_include_guard():
    """Fuzz input: `#ifndef cudaEventDisableTiming` / `#define cudaEventDisableTiming` read as
    an include guard put the runtime include inside it; the #ifndef's name is renamed and the
    #define's is not, so the next run saw no guard and added a second include."""
    out = hip("#ifndef cudaEventDisableTiming\n#define cudaEventDisableTiming\n#endif\n")
    assert out.startswith("#include <hip/hip_runtime.h>\n#ifndef hipEventDisableTiming\n")
    assert hip(out) == out


def test_a_latin1_byte_before_a_ballot_costs_no_rule(tmp_path):
    """Fuzz input: a non-UTF-8 byte before code the warp-mask pass looks up in the AST (a
    ballot whose mask is a variable) made the byte offset of that code raise
    UnicodeEncodeError, and the pass was lost."""
    data = (
        (
            "\ufeff#include <cuda_runtime.h>\n"
            "__global__ void reduce(const float* in, float* out) { // caf\xe9\n"
            "  float v = in[threadIdx.x];\n"
            "  unsigned long long active = __activemask();\n"
            "  unsigned long long votes = __ballot_sync(active, v > 0.0f);\n"
            "  if (threadIdx.x == 0) out[blockIdx.x] = v + __popcll(votes);\n}\n"
        )
        .encode("utf-8")
        .replace("\xe9".encode(), b"\xe9")
    )
    out = _process(tmp_path, data)
    assert out.result.rule_errors == []
