"""HIP_SYMBOL and the calls whose HIP form has another shape."""

import pytest

from _convert import body


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
