"""HZ5xx: capability gates and version semantics."""

from __future__ import annotations

from test_hazard_common import only, rules_of


def test_hz501_cuda_arch_gates_and_guards():
    src = """__device__ float f(float x) {
#if __CUDA_ARCH__ >= 800
  return x * 2;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
  return x;
#endif
}
#ifdef __CUDA_ARCH__
#define ON_DEVICE 1
#endif"""
    found = only("HZ501", src)
    assert [f.line for f in found] == [2, 4, 8]
    assert ">= 800" in found[0].message and "__HIP_DEVICE_COMPILE__" in found[1].message
    assert "HZ300" not in rules_of(src)  # the dedicated rule, not the generic one


def test_hz502_compute_capability_checks():
    src = """void f() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major >= 8) {}
  int cc = prop.major * 10 + prop.minor;
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0);
  printf("%s %d\\n", prop.name, cc);
}
struct Version { int major, minor; };
bool newer(Version a) { return a.major > 2; }"""
    found = only("HZ502", src)
    assert [f.line for f in found] == [4, 5, 7]


def test_hz502_pytorch_device_properties():
    src = "bool sm80() { return at::cuda::getCurrentDeviceProperties()->major >= 8; }\n"
    assert len(only("HZ502", src)) == 1


def test_hz503_cuda_version_gates():
    src = "#if CUDART_VERSION >= 11000\nint a;\n#endif\n#ifdef CUDA_VERSION\nint b;\n#endif\n"
    found = only("HZ503", src)
    # both gates are kept on the branch the CUDA build took, and each says what it became
    assert [f.line for f in found] == [1, 4]
    assert all(f.severity.value == "warning" for f in found)
    assert "#if 12000 /* CUDART_VERSION */ >= 11000" in found[0].message
