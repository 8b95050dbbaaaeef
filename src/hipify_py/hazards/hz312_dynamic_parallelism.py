"""HZ312 dynamic-parallelism

## What it detects
Dynamic parallelism: a kernel launch (`<<<...>>>`, `hipLaunchKernelGGL`, `cudaLaunchKernel`)
inside a `__global__` or `__device__` function, and the runtime calls CUDA's device runtime
offers kernels (`cudaDeviceSynchronize`, `cudaMalloc`/`cudaFree`, `cudaMemcpyAsync`,
`cudaGetLastError`, ...) made from device code: simple-cuda-voxel-engine's `cudaMalloc` in a
kernel (compile round 43, a silent TU).

## Why it breaks on AMD
HIP does **not** support dynamic parallelism (the `hasDynamicParallelism` device property is 0
on every AMD GPU): device-side launches do not compile.

## Example
```cuda
__global__ void parent(int* d) {
  child<<<1, 64>>>(d);            // HZ312
  cudaDeviceSynchronize();        // HZ312
}
```

## How to fix
Allocate on the host before the launch (or with `malloc`/`new` in device code, which HIP has),
check errors on the host, and launch the child work from the host (after the parent finishes,
or in the same stream), fold it into the parent kernel, or restructure as a persistent kernel
with a device-side work queue.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import functions
from ..analysis.tokens import inside, occurrences
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_LAUNCH = frozenset(
    {
        "hipLaunchKernelGGL",
        "cudaLaunchKernel",
        "hipLaunchKernel",
        "cudaLaunchKernelEx",
        "hipLaunchKernelEx",
    }
)
# CUDA's device runtime (the calls a kernel may make with dynamic parallelism), in both spellings:
# HIP declares them for the host only ("no matching function" in device code)
_DEVICE_RUNTIME = (
    "DeviceSynchronize StreamCreate StreamCreateWithFlags StreamDestroy Malloc Free "
    "MemcpyAsync Memcpy2DAsync Memcpy3DAsync MemsetAsync Memset2DAsync Memset3DAsync "
    "GetLastError PeekAtLastError GetErrorString GetErrorName GetDevice GetDeviceCount "
    "DeviceGetAttribute EventCreateWithFlags EventRecord EventDestroy StreamWaitEvent "
    "FuncGetAttributes RuntimeGetVersion"
).split()
_SYNC = frozenset(f"{api}{name}" for api in ("cuda", "hip") for name in _DEVICE_RUNTIME)


@hazard_rule(
    "HZ312",
    "dynamic-parallelism",
    Severity.ERROR,
    "kernel launch or runtime sync from device code (no dynamic parallelism in HIP)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    if "<<<" not in unit.text and not ((_LAUNCH | _SYNC) & unit.identifiers):
        return
    sites = sorted(unit.launch_openers + occurrences(unit, _LAUNCH | _SYNC))
    if not sites:
        return
    for f in functions(unit):
        if not f.is_device or "__host__" in f.specifiers:
            continue
        for i in inside(sites, f.open, f.close):
            t = toks[i]
            if t.text == "<<<":
                name = toks[i - 1].text if toks[i - 1].kind is Kind.IDENT else "kernel"
                yield report(
                    t.start,
                    t.end,
                    f"kernel launch `{name}<<<...>>>` inside device function "
                    f"`{f.name}`: HIP has no dynamic parallelism",
                )
            elif i + 1 < len(toks) and toks[i + 1].text == "(":
                what = "kernel launch" if t.text in _LAUNCH else "runtime call"
                yield report(
                    t.start,
                    t.end,
                    f"{what} `{t.text}` inside device function `{f.name}`: HIP has "
                    f"no dynamic parallelism",
                )
