"""HIP_SYMBOL and the calls whose HIP form has another shape."""

import pytest

from _convert import body, hip
from _units import assert_ported_builds


@pytest.mark.parametrize(
    ("cuda", "expected"),
    [
        (
            "cudaMemcpyToSymbol(kScale, s, sizeof(s));",
            "hipMemcpyToSymbol(HIP_SYMBOL(kScale), s, sizeof(s));",
        ),
        (
            "cudaMemcpyToSymbolAsync(c, s, 4, 0, cudaMemcpyHostToDevice, st);",
            "hipMemcpyToSymbolAsync(HIP_SYMBOL(c), s, 4, 0, hipMemcpyHostToDevice, st);",
        ),
        (
            "cudaMemcpyFromSymbol(d, ns::table, 16);",
            "hipMemcpyFromSymbol(d, HIP_SYMBOL(ns::table), 16);",
        ),
        (
            "cudaGetSymbolAddress((void**)&p, counter);",
            "hipGetSymbolAddress((void**)&p, HIP_SYMBOL(counter));",
        ),
        ("cudaGetSymbolSize(&n, counter);", "hipGetSymbolSize(&n, HIP_SYMBOL(counter));"),
    ],
)
def test_symbol_apis_get_hip_symbol(cuda: str, expected: str) -> None:
    assert body(f"void f() {{ {cuda} }}\n") == f"void f() {{ {expected} }}\n"


def test_hip_symbol_is_not_added_twice() -> None:
    src = "void f() { hipMemcpyToSymbol(HIP_SYMBOL(c), s, 4); }\n"
    assert body(src) == src


def test_malloc_host_gets_its_flags_argument() -> None:
    assert "hipHostMalloc((void**)&p, n, hipHostMallocDefault);" in body(
        "void f() { cudaMallocHost((void**)&p, n); }\n"
    )


def test_malloc_host_named_as_a_value_keeps_cudas_parameters(nvcc, gfx942_check, tmp_path):
    """nwchem's `morecore(cudaMallocHost, bytes)` takes a two-parameter function pointer
    (compile round 32: "no matching function for call to 'morecore'", with no finding):
    hipHostMalloc takes three, ROCm 7.2.4's deprecated hipMallocHost CUDA's two."""
    src = """#include <cuda_runtime.h>
typedef cudaError_t (*mallocfn_t)(void** ptr, size_t bytes);
static void* more(mallocfn_t fn, size_t n) { void* p = nullptr; fn(&p, n); return p; }
void* host(size_t n) {
  void* q;
  cudaMallocHost(&q, n);
  return more(cudaMallocHost, n);
}
"""
    out = hip(src)
    assert "hipHostMalloc(&q, n, hipHostMallocDefault);" in out
    assert "return more(hipMallocHost, n);" in out
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "value", src)


def test_a_project_function_named_like_the_api_keeps_its_parameters(tmp_path, gfx942_check) -> None:
    """AMGX declares and defines its own `amgx::memory::cudaMallocHost(void**, size_t)`: its
    declaration got `hipHostMallocDefault` appended to the parameter list (the one silent
    failure of AMGX, held out), and a namespaced call an argument it does not take."""
    src = """#include <cuda_runtime.h>
namespace m {
cudaError_t cudaMallocHost(void **ptr, size_t size);
}
cudaError_t m::cudaMallocHost(void **ptr, size_t size) { return ::cudaMallocHost(ptr, size); }
void f(float** p) { cudaMallocHost((void**)p, 4); m::cudaMallocHost((void**)p, 4); }
"""
    out = hip(src)
    assert "hipError_t hipHostMalloc(void **ptr, size_t size);" in out
    assert "return ::hipHostMalloc(ptr, size, hipHostMallocDefault);" in out
    assert (
        "{ hipHostMalloc((void**)p, 4, hipHostMallocDefault); m::hipHostMalloc((void**)p, 4); }"
        in out
    )
    path = tmp_path / "decl.hip"
    path.write_text(out)
    proc = gfx942_check(path)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_event_create_with_flags_overload() -> None:
    out = body("void f() { cudaEventCreate(&a); cudaEventCreate(&b, cudaEventDisableTiming); }\n")
    assert "hipEventCreate(&a); hipEventCreateWithFlags(&b, hipEventDisableTiming);" in out


def test_function_pointer_arguments_are_cast_to_const_void() -> None:
    out = body(
        "void f() { cudaFuncGetAttributes(&attr, kernel); "
        "cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferL1); }\n"
    )
    assert "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel));" in out
    assert (
        "hipFuncSetCacheConfig(reinterpret_cast<const void*>(kernel), hipFuncCachePreferL1);" in out
    )


# kmcuda (issue 23 compile round 35): the templates' defaulted offset and direction
SYMBOL_COPIES = """#include <cstdint>
__constant__ uint32_t d_changed;
__global__ void count(uint32_t* out) { out[0] = d_changed; }
void reset(uint32_t* back, cudaStream_t s) {
  uint32_t zero = 0;
  cudaMemcpyToSymbolAsync(d_changed, &zero, sizeof(zero));
  cudaMemcpyToSymbolAsync(d_changed, &zero, sizeof(zero), 0);
  cudaMemcpyFromSymbolAsync(back, d_changed, sizeof(zero));
  cudaMemcpyFromSymbolAsync(back, d_changed, sizeof(zero), 0, cudaMemcpyDeviceToHost, s);
}
"""


def test_symbol_copies_get_the_arguments_cuda_defaults(nvcc, gfx942_check, tmp_path) -> None:
    assert_ported_builds(nvcc, gfx942_check, tmp_path, "a", SYMBOL_COPIES)
    out = hip(SYMBOL_COPIES)
    assert "sizeof(zero), 0, hipMemcpyHostToDevice);" in out
    assert "sizeof(zero), 0, hipMemcpyDeviceToHost);" in out
    assert "sizeof(zero), 0, hipMemcpyDeviceToHost, s);" in out
