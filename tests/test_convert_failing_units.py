"""Reproducers of the translation units that failed on public projects (issue 23).

Each fixture under ``fixtures/units/`` is real CUDA (nvcc builds it for sm_90) and its
conversion must compile for gfx942 with clang-19 and the ROCm 7.2.4 headers: the cache-hinted
loads/stores on vector types, bf16 constructors, cg::reduce, directed-rounding and byte
intrinsics, CubDebugExit, __grid_constant__/CUDART_CB/register/thrust::cuda, and CUDA 13's
4-argument cudaMemPrefetchAsync.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from _convert import hip, result
from _units import assert_converted_compiles, assert_nvcc_builds, convert_directory
from hipify_py.frontend.lexer import lex
from hipify_py.project_declarations import template_declarations

UNITS = Path(__file__).parent / "fixtures" / "units"
SOURCES = sorted(p.name for p in UNITS.glob("*.cu"))
# rocWMMA's headers need more than the ROCm 7.2.4 set has (conftest.rocwmma_check)
WMMA = [name for name in SOURCES if name.startswith("wmma_")]


def test_fixtures_are_cuda(nvcc, nvidia_include, tmp_path):
    assert len(SOURCES) >= 7
    libs = [f for lib in ("cublas", "cusolver") for f in ("-I", nvidia_include(lib))]
    assert_nvcc_builds(nvcc, (UNITS / name for name in SOURCES), libs, tmp_path)


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> Path:
    return convert_directory(UNITS, tmp_path_factory.mktemp("units") / "out")


@pytest.mark.parametrize("name", [name for name in SOURCES if name not in WMMA])
def test_conversion_compiles_for_gfx942(name, converted, gfx942_check):
    assert_converted_compiles(converted, name, gfx942_check)


@pytest.mark.parametrize("name", WMMA)
def test_wmma_conversion_compiles_for_gfx942(name, converted, rocwmma_check):
    assert_converted_compiles(converted, name, rocwmma_check)


def test_shimmed_names_are_not_reported():
    src = (UNITS / "intr.cu").read_text()
    found = {f.rule for f in result(src).findings}
    assert "HZ300" not in found
    out = hip(src)
    assert out.count("#define HIPIFY_PY_SHIM_BYTES") == 1
    assert "__dp4a(i[t], i[t+1], 0)" in out


def test_bf16_names_are_the_hip_bf16_types():
    out = hip((UNITS / "bf16.cu").read_text())
    assert "__hip_bfloat16* a, __hip_bfloat162* b" in out
    assert "a[i] = __float2bfloat16(f[i]);" in out
    assert "hip_bfloat16*" not in out.replace("__hip_bfloat16*", "")


def test_prefetch_with_a_location_and_no_stream_gets_v2_and_stream():
    out = hip((UNITS / "prefetch.cu").read_text())
    assert "hipMemPrefetchAsync_v2(p, n, loc, 0, 0);" in out
    assert "hipMemPrefetchAsync_v2(p, n, loc, 0, s);" in out
    legacy = hip(
        "void f(float* p, size_t n, int dev, cudaStream_t s) {\n"
        "  cudaMemPrefetchAsync(p, n, dev, s);\n}\n"
    )
    assert "hipMemPrefetchAsync(p, n, dev, s);" in legacy


def test_cublas_half_and_legacy_compute_type():
    out = hip((UNITS / "hgemm.cu").read_text())
    assert out.index("#define HIPBLAS_USE_HIP_HALF") < out.index("#include <hipblas/hipblas.h>")
    assert "n, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);" in out
    assert "c, HIP_R_16F, n, HIPBLAS_COMPUTE_32F" in out  # data types stay data types


def test_qualifiers_register_and_thrust_backend():
    out = hip((UNITS / "qualifiers.cu").read_text())
    assert "register" not in out
    assert "thrust::hip::par.on(s)" in out
    assert "#define __grid_constant__" in out
    assert "#define __device_builtin__\n" in out and "#define __builtin_align__(n)" in out
    assert "/* HIP declares it: extern const dim3 blockDim; */" in out
    assert hip(out).count("HIP declares it") == 2  # converting twice changes nothing more
    assert hip("int f(Reg& r) { return r.register(1); }").count("register") == 1
    assert "thrust::system::hip::par" in hip("auto& p = thrust::system::cuda::par;")


def test_cusparselt_converts_for_rocm_7_2():
    out = hip("#include <cusparseLt.h>\nvoid f() { cusparseLtHandle_t h; cusparseLtInit(&h); }\n")
    assert "#include <hipsparselt/hipsparselt.h>" in out
    assert "hipsparseLtHandle_t h; hipsparseLtInit(&h);" in out


def test_folded_version_gate_leaves_valid_elif(tmp_path, gfx942_check):
    src = (
        "#if CUDA_VERSION >= 12080\n#define API 1\n#elif __HIPCC__\n#define API 2\n"
        "#elif __HIP_PLATFORM_AMD__ && defined(__HIPCC__)\n#define API 3\n#else\n#define API 0\n"
        "#endif\nint api = API;\n"
    )
    out = hip(src)
    assert "#elif defined(__HIPCC__)\n" in out
    assert "#elif defined(__HIP_PLATFORM_AMD__) && defined(__HIPCC__)\n" in out
    # hip_common.h defines __HIPCC__ with no value on NVIDIA: the folded file must still parse
    f = tmp_path / "gate.hip"
    f.write_text("#define __HIPCC__\n#define __HIP_PLATFORM_AMD__\n" + out)
    proc = gfx942_check(f)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_headers_with_only_type_signs_and_late_cuda_calls_convert(tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "types.h").write_text(
        "#pragma once\n#include <vector_types.h>\nstruct S { float4 a; };\n"
    )
    (tree / "bf.h").write_text("#pragma once\ninline float cvt(__nv_bfloat16 x);\n")
    # cuda_pspin's disorder.h (compile round 44: 7 silent TUs)
    (tree / "cplx.h").write_text(
        "#pragma once\n#include <cuComplex.h>\nvoid gen(cuDoubleComplex* g, int n);\n"
    )
    comment = "/*" + "licence text\n" * 6000 + "*/\n"  # 78 KB before the first CUDA call
    (tree / "late.cpp").write_text(
        comment + "#include <cuda_runtime.h>\nvoid f(void* p) { cudaFree(p); }\n"
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", str(tree), "--out-dir", str(out)]
        + ["--no-cache", "-j1", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "#include <hip/hip_vector_types.h>" in (out / "types.h").read_text()
    assert "__hip_bfloat16 x" in (out / "bf.h").read_text()
    cplx = (out / "cplx.h").read_text()
    assert "#include <hip/hip_complex.h>" in cplx and "hipDoubleComplex* g" in cplx
    assert "hipFree(p);" in (out / "late.cpp").read_text()


def test_half_atomic_add_shim_only_where_half_types_are_named():
    out = hip((UNITS / "half_atomic.cu").read_text())
    assert out.count("#define HIPIFY_PY_SHIM_HALF_ATOMIC_ADD") == 1
    assert "atomicAdd(f, 1.f);" in out  # HIP's own float atomicAdd is still called
    plain = hip("__global__ void k(float* f, int* i) { atomicAdd(f, 1.f); atomicAdd(i, 1); }")
    assert "HIPIFY_PY_SHIM" not in plain
    own = hip(
        "#include <cuda_fp16.h>\n"
        "__device__ __half atomicAdd(__half* p, __half v) { return v; }\n"
        "__global__ void k(__half* h) { atomicAdd(h, __float2half(1.f)); }\n"
    )
    assert "HIPIFY_PY_SHIM_HALF_ATOMIC_ADD" not in own  # the file's own overload stays alone


def test_bf16_ldg_shim_only_where_bf16_types_are_named():
    out = hip((UNITS / "bf16_ldg.cu").read_text())
    assert out.count("#define HIPIFY_PY_SHIM_BF16_LDG") == 1
    plain = hip("__global__ void k(const float* f, float* g) { g[0] = __ldg(f); }")
    assert "HIPIFY_PY_SHIM" not in plain


def test_cg_memcpy_async_shim_only_where_the_group_copy_is_named():
    """CUDASW4's `cuda_helpers.cuh` (compile round 31) includes
    `<cooperative_groups/memcpy_async.h>` and never calls it: its include becomes HIP's
    cooperative groups, with no shim and no finding."""
    out = hip((UNITS / "cg_memcpy_async.cu").read_text())
    assert out.count("#define HIPIFY_PY_SHIM_CG_MEMCPY_ASYNC") == 1
    unused = "#include <cooperative_groups/memcpy_async.h>\n__global__ void k() {}\n"
    assert "HIPIFY_PY_SHIM" not in hip(unused)
    assert "#include <hip/hip_cooperative_groups.h>" in hip(unused)
    assert result(unused).findings == []


def test_half_tanh_and_make_bfloat162_are_shimmed_not_reported():
    src = (UNITS / "half_tanh.cu").read_text()
    assert not {"HZ300"} & {f.rule for f in result(src).findings}
    out = hip(src)
    assert "#define HIPIFY_PY_SHIM_HALF_TANH" in out
    assert "make_bfloat162(__hip_bfloat16 x" in out


HALF_BF16 = """\
#include <cuda_bf16.h>
#include <cuda_fp16.h>
template <typename To, typename From>
__global__ void cvt(To* d, const From* s) { d[0] = static_cast<To>(s[0]); }
__global__ void k(__half* d, const __nv_bfloat16* s, __nv_bfloat16* e, const __half* h) {
  d[0] = __half(s[0]);
  e[0] = static_cast<__nv_bfloat16>(h[0]);
  e[1] = __float2bfloat16(__half2float(h[1]));
}
void run(__half* d, const __nv_bfloat16* s, float* f) {
  cvt<__half, __nv_bfloat16><<<1, 1>>>(d, s);
  cvt<float, __nv_bfloat16><<<1, 1>>>(f, s);
}
__device__ __half raw(__half_raw r, bool b) {
  if (b) { __nv_bfloat16 s = __float2bfloat16(1.f); return __float2half(__bfloat162float(s)); }
  __half_raw s = r;
  return __half(s);
}
"""


def test_half_bf16_conversions_are_reported_where_they_fail(nvcc, tmp_path, gfx942_check):
    cu = tmp_path / "hb.cu"
    cu.write_text(HALF_BF16)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-std=c++17", "-c", str(cu), "-o", str(tmp_path / "hb.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    found = [f for f in result(HALF_BF16).findings if f.rule == "HZ340"]
    assert [(f.line, f.severity.value) for f in found] == [
        (6, "error"),
        (7, "error"),
        (11, "error"),
    ]
    assert "`s` cast to half" in found[0].message and "`cvt` instantiated" in found[2].message
    # the cause is real: each reported line fails for gfx942 after conversion, nothing else does
    f = tmp_path / "hb.hip"
    f.write_text(hip(HALF_BF16))
    proc = gfx942_check(f)
    assert "ambiguous" in proc.stderr
    assert "__half2float(h[1])" not in proc.stderr  # the conversion through float compiles
    assert "return __half(s);" not in proc.stderr  # a __half_raw there (ColossalAI's fp8 casts)


def test_address_space_conversions_are_reported(nvcc, tmp_path):
    src = "__device__ unsigned f(int* p) { return (unsigned)__cvta_generic_to_shared(p); }\n"
    cu = tmp_path / "cvta.cu"
    cu.write_text(src)
    proc = subprocess.run(
        [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "cvta.o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (f,) = [f for f in result(src).findings if f.rule == "HZ300"]
    assert (f.line, f.column, f.severity.value) == (1, 50, "error")
    assert "`__cvta_generic_to_shared`" in f.message


def test_template_keyword_only_for_dependent_member_templates():
    out = hip((UNITS / "dependent_template.cu").read_text())
    assert out.count("vec_cast<To, From>::template cast<N>(dst, src);") == 2
    assert "::template template" not in out
    plain = (
        "template <int N> struct A { static const int value = N; };\n"
        "struct B { template <int N> static int cast(int x) { return x + N; } };\n"
        "template <typename T> bool f(T x) { return A<3>::value < 2 && B::cast<1>(x) > 0; }\n"
        "template <typename T> int g(T x) { return A<sizeof(T)>::value; }\n"
    )
    assert "template cast" not in hip(plain)  # no dependent qualifier before it: unchanged


def test_data_only_enums_are_defined_and_reported_as_warnings():
    """cusolverPrecType_t/cusolverIRSRefinement_t/cudaEmulationMantissaControl as data (the
    library samples' utils headers): defined once with CUDA's values, HZ300 warns; a call of an
    IRS API that takes them stays an HZ300 error."""
    src = (UNITS / "enum_data.cu").read_text()
    out = hip(src)
    assert out.count("#define HIPIFY_PY_SHIM_CUSOLVER_IRS_ENUMS") == 1
    assert out.count("#define HIPIFY_PY_SHIM_CUDA_EMULATION_ENUMS") == 1
    assert "CUSOLVER_R_32F = 1204," in out
    assert "CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC = 0," in out
    hz300 = [f for f in result(src).findings if f.rule == "HZ300"]
    assert {f.extra["api"] for f in hz300} >= {"cusolverPrecType_t", "cudaEmulationMantissaControl"}
    assert {f.severity.value for f in hz300} == {"warning"}
    call = src.replace(
        "  cudaFree(d);\n",
        "  cudaFree(d);\n  cusolverDnIRSParams_t params;\n  cusolverDnIRSParamsCreate(&params);\n",
    )
    # one error for the IRS API family (its names are one root cause), naming the call
    errors = [f for f in result(call).findings if f.severity.value == "error"]
    assert [f.rule for f in errors] == ["HZ300"]
    assert "cusolverDnIRSParamsCreate" in errors[0].message
    assert "#define HIPIFY_PY_SHIM" not in hip("cudaDataType t = CUDA_R_32F;\n")


def test_mma_include_unused_by_the_file_is_kept_for_nvidia_only():
    """cuda_hgemm's common.h includes "mma.h" for its WMMA kernels: in the header (no WMMA
    name) the include goes under __HIP_PLATFORM_NVIDIA__ with an HP001 warning; an includer that
    uses WMMA is translated to rocWMMA and includes <rocwmma/rocwmma.hpp> itself; a file that
    uses WMMA has its own include mapped."""
    header = (UNITS / "mma_common.cuh").read_text()
    out = hip(header, "mma_common.cuh")
    assert (
        "#if defined(__HIP_PLATFORM_NVIDIA__)  // hipify-py: ROCm has no mma.h\n"
        '#include "mma.h"\n#else\n#include <hip/hip_fp16.h>' in out
    )
    [hp001] = [f for f in result(header, "mma_common.cuh").findings if f.rule == "HP001"]
    assert hp001.severity.value == "warning" and hp001.line == 5
    assert not [f for f in result(header, "mma_common.cuh").findings if f.rule == "HZ313"]
    user = (
        '#include "mma_common.cuh"\nusing namespace nvcuda;\n__global__ void k(half* a) {\n'
        "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;\n}\n"
    )
    [wmma] = [f for f in result(user).findings if f.rule == "HZ313"]
    assert wmma.severity.value == "warning" and wmma.line == 4
    assert hip(user).count("#include <rocwmma/rocwmma.hpp>") == 1
    direct = "#include <mma.h>\n" + user.split("\n", 1)[1]
    out = hip(direct)
    assert "#if defined(__HIP_PLATFORM_NVIDIA__)" not in out
    assert out.count("#include <rocwmma/rocwmma.hpp>") == 1 and "<mma.h>" not in out
    assert [f.line for f in result(direct).findings if f.rule == "HZ313"] == [4]
    assert not [f for f in result(direct).findings if f.rule == "HP001"]


def test_cublas_cudart_version_in_a_macro_gets_the_shim():
    src = (UNITS / "cudart_version.cu").read_text()
    out = hip(src)
    assert out.count("static inline size_t cublasGetCudartVersion()") == 1
    assert "HZ300" not in {f.rule for f in result(src).findings}


def test_a_file_testing_use_rocm_defines_it_for_amd_once():
    """HeCBench attention-paged (vLLM's cuda_compat.h): the rules skip the #ifndef USE_ROCM
    variant, so the AMD build must take the #else one; converting again adds nothing."""
    src = (UNITS / "rocm_switch.cu").read_text()
    out = hip(src)
    assert out.count("#define USE_ROCM 1") == 1
    assert out.index("#define USE_ROCM 1") < out.index("\n#ifndef USE_ROCM")
    assert "uint32_t(-1)" in out  # the CUDA variant is left as written
    assert "#define USE_ROCM" not in hip("#ifdef USE_ROCM_X\n#endif\nint x;\n")
    own = "#define USE_ROCM\n#ifndef USE_ROCM\nint x;\n#endif\n"
    assert hip(own).count("#define USE_ROCM") == 1
    assert "#define USE_ROCM 1" not in hip(src, portable=True)


def test_a_project_switch_is_defined_and_its_compat_typedefs_kept():
    """ggml (held out, 0/20 TUs before): `#if defined(GGML_USE_HIP)` chose the CUDA side in a
    build that defined nothing, and its vendors/hip.h typedef was renamed into a redeclaration
    of HIP's type (``hip`` also converts the output again: nothing changes)."""
    out = hip((UNITS / "project_switch.cu").read_text())
    assert out.count("#define MYPROJ_USE_HIP 1") == 1
    assert "typedef __hip_fp8_e4m3 __nv_fp8_e4m3;" in out
    # a switch's lookalikes are not defined: a feature toggle, a negation, the compiler's
    decoys = "#if defined(MYPROJ_HIP_FP8) || defined(NO_HIP) || defined(__HIP__)\n#endif\n"
    assert "#define" not in hip(decoys)


def test_use_rocm_define_and_runtime_include_at_the_same_point():
    """exllamav2's layer_norm.cu: nothing above the first test, so the define and the
    runtime include go to the same offset (was an edit conflict: the file failed)."""
    src = (
        "#ifndef USE_ROCM\n#define FULL 0xffffffff\n#endif\n__global__ void k(int* p) { *p = 1; }\n"
    )
    out = hip(src)
    assert out.index("#define USE_ROCM 1") < out.index("#include <hip/hip_runtime.h>")


def test_device_printf_drops_std_in_device_code_only():
    out = hip((UNITS / "device_printf.cu").read_text())
    assert 'if (!(c)) printf("failed' in out  # a macro body may expand in a kernel
    assert '{ printf("v=%d\\n", v); }' in out
    assert '::printf("block %d\\n"' in out and "::std::printf" not in out
    assert 'std::printf("done\\n");' in out  # host code keeps its spelling


def test_nvtx_ranges_become_no_ops_once():
    out = hip((UNITS / "nvtx.cu").read_text())
    assert "nvtx3" not in out and "#include <stdint.h>" in out
    assert out.count("#define HIPIFY_PY_SHIM_NVTX") == 1
    assert "nvtxRangePushEx(&eventAttrib);" in out  # the project's calls stay as written
    assert hip(out) == out  # converting twice equals converting once


def test_short_vector_brace_lists_get_their_zeros_once():
    """`int4{a, a}` is (a, a, 0, 0) in CUDA and no constructor in HIP: the zeros are written
    out, once.  `{v}` (perhaps a copy of another int4), `{}` and an array's nested lists stay."""
    src = (
        "__device__ int4 f(int4 v, int a) {\n  int4 c{v};\n  int4 e{};\n"
        "  int4 arr[2] = {{1, 2}, {3, 4}};\n  return int4{a, a};\n}\n"
    )
    out = hip(src)
    assert "int4{a, a, 0, 0}" in out
    assert "int4 c{v};" in out and "int4 e{};" in out and "{{1, 2}, {3, 4}}" in out
    assert hip(out) == out
    member = (
        "struct S {\n  int4 shape_;\n  __device__ S(int a) : shape_{a, a, a} {}\n"
        "  __device__ void set(int b) { shape_ = {b, b}; }\n};\n"
    )
    assert "shape_{a, a, a, 0}" in hip(member) and "shape_ = {b, b, 0, 0};" in hip(member)


# deepmd-kit's device.h and neighbor_list.cu (rw27): the CUDA build's switch, tested right before
# the project's HIP switch, and a namespace alias of the project's HIP branch
CUDA_SWITCH = """#if GOOGLE_CUDA
#include <cub/cub.cuh>
#elif TENSORFLOW_USE_ROCM
#include <hipcub/hipcub.hpp>
namespace cub = hipcub;
#else
#error "no GPU backend"
#endif
#if GOOGLE_CUDA
inline int warp_lanes() { return 32; }
#endif
#if TENSORFLOW_USE_ROCM
inline int warp_lanes() { return 64; }
#endif
__global__ void sum(const int* in, int* out) {
  typedef cub::WarpReduce<int> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  int v = Reduce(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = v;
}
void run(const int* in, int* out) { sum<<<1, warp_lanes()>>>(in, out); }
"""


def test_the_cuda_switch_is_off_where_hip_compiles(nvcc, gfx942_check, tmp_path):
    """A build that still passes the CUDA build's `-DGOOGLE_CUDA` (here: defined above the
    file) compiles only the HIP side, as the rules assumed; the alias keeps its name."""
    (tmp_path / "sw.cu").write_text(CUDA_SWITCH)
    assert_nvcc_builds(nvcc, [tmp_path / "sw.cu"], ["-DGOOGLE_CUDA"], tmp_path)
    out = hip(CUDA_SWITCH)
    assert "namespace cub = hipcub;" in out and hip(out) == out
    built = tmp_path / "sw.hip"
    built.write_text("#define GOOGLE_CUDA 1\n" + out)
    proc = gfx942_check(built)
    assert proc.returncode == 0, proc.stderr[-3000:]
    undef = "#undef GOOGLE_CUDA\n"
    assert undef in out
    built.write_text("#define GOOGLE_CUDA 1\n" + out.replace(undef, ""))
    assert "redefinition of 'warp_lanes'" in gfx942_check(built).stderr


def test_a_static_template_its_header_declares_loses_static(converted):
    """stylegan3's `copy_filters` (round 29): the header's declaration gives the linkage; a
    `static` template nothing else declares keeps its `static`."""
    out = (converted / "static_template.hip").read_text()
    assert "template <bool scaled> hipError_t copy_scale(float* dst" in out
    assert "template <typename T> static T twice(T v)" in out


def test_the_tree_s_non_static_template_declarations():
    text = b"""template <bool a, bool b> cudaError_t copy_filters(cudaStream_t stream);
template <class T> static T helper(T v);
struct S { template <class U> friend void swap(U&, U&); };
template <class T> T defined_here(T v) { return v; }
"""
    assert template_declarations("ops/filtered_lrelu.h", text) == {
        ("filtered_lrelu.h", "copy_filters")
    }
    assert template_declarations("ops/filtered_lrelu.cu", text) == set()


def test_a_definition_repeating_its_template_parameters_drops_them():
    """The fixture compiles for gfx942 (above); here, what changed: the repeated parameters
    after the defined name, and nothing else (no `template` keyword in a declarator)."""
    out = hip((UNITS / "template_definition_args.cu").read_text())
    assert "void Manager<V, U>::insert(E* out, int n) {" in out
    assert "void Manager<V, U>::insert_blocked(E* out, int n) {" in out
    # decoys: an explicit specialization and explicit instantiations keep their arguments
    assert "int twice<int>(int x)" in out
    assert "template void Manager<int, int>::insert_blocked<float, 128>(float*, int);" in out


def test_a_pragma_in_an_object_like_macro_becomes_the_pragma_operator():
    out = hip((UNITS / "macro_pragma.cu").read_text())
    assert '#define CONDITIONAL_UNROLL _Pragma("unroll")\n' in out
    assert hip(out) == out  # converting twice changes nothing more
    # a function-like macro's `#` stringizes; a string or a continued body is left as written
    kept = '#define S(x) #x\n#define M #pragma message("hi")\n'
    assert hip(kept).endswith(kept)


def test_static_member_of_a_template_parameter_type_becomes_constexpr():
    out = hip((UNITS / "static_float_member.cu").read_text())
    assert "static constexpr T identity = static_cast<T>(0);" in out
    kept = (
        "struct Scale { static const int count = 4; };\n"
        "template <typename T> __device__ T f() { static const T local = 1; return local; }\n"
    )
    assert hip(kept).endswith(kept)


def test_designated_vector_lists_lose_their_designators(converted):
    out = (converted / "vector_designators.hip").read_text()
    assert "point_t init{.coordinates{FLT_MAX, FLT_MAX, FLT_MAX}};" in out
    assert "float3 d = {dx, 0.f, 0.f};" in out
    assert "Pt p{.x = dx, .y = 1.f};" in out  # a struct of the project's keeps them
    # out of order, or a component left out: the positional list would mean something else
    kept = "__device__ float3 f(float a) { float3 v{.y = a, .x = a, .z = a}; return v; }\n"
    assert hip(kept).endswith(kept)
    short = "__device__ float3 f(float a) { float3 v{.x = a, .y = a}; return v; }\n"
    assert hip(short).endswith(short)


def test_a_template_local_assigned_again_loses_its_const(converted):
    out = (converted / "template_const_reassigned.hip").read_text()
    assert "  int global_row = blockIdx.y * BSZ + thread_row;" in out
    assert "  const int thread_row = threadIdx.x / nthreads_col;" in out  # never assigned
    assert "  const int i = blockIdx.x" in out  # not a template


def test_an_include_without_a_space_is_renamed_and_a_literal_suffix_is_one_name():
    """`#include"cuda_runtime.h"` and `"%"PRIu64` lex as an include of a path and a name (the
    lexer read both as single letters), so the header is renamed and the suffix spaced."""
    out = hip((UNITS / "include_without_space.cu").read_text())
    assert '#include"hip/hip_runtime.h"' in out and '#include"hip/hip_fp16.h"' in out
    tokens = [t.text for t in lex('#include"a.h"\nprintf("%"PRIu64, v); operator""_w;').tokens]
    assert tokens[:3] == ["#", "include", '"a.h"']
    assert tokens[5:7] == ['"%"', "PRIu64"] and tokens[-3:-1] == ['""', "_w"]


def test_group_members_hip_lacks_become_the_built_in_indices():
    out = hip((UNITS / "cg_group_members.cu").read_text())
    rank = "(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))"
    assert f"out[{rank}] = m.block_rank() + (gridDim.x * gridDim.y * gridDim.z);" in out
    assert "dim3 b = dim3(blockIdx.x, blockIdx.y, blockIdx.z), g = dim3(gridDim.x," in out
    assert "dim3 t = dim3(blockDim.x, blockDim.y, blockDim.z);" in out
    assert f"  return {rank};" in out


def test_an_array_of_vectors_zeroed_with_a_scalar_is_zeroed_with_empty_braces():
    out = hip((UNITS / "vector_array_zero.cu").read_text())
    assert "float4 tile[N] = {};" in out and "int2 pairs[2] = {};" in out
    assert "double2 z[3] = {};" in out
    assert "float4 keep[2] = {make_float4(1.f, 2.f, 3.f, 4.f)};" in out


def test_a_host_call_in_a_macro_body_gets_the_header_nvcc_gave_it():
    out = hip((UNITS / "macro_memset.cu").read_text())
    assert "#include <string.h>\n" in out
    # decoy: a macro named like the call is no call of it
    named = "#define memset(p, v, n) my_set(p, v, n)\n__global__ void k(float* x) { x[0] = 0; }\n"
    assert "hip_runtime.h" in hip(named) and "<string.h>" not in hip(named)
