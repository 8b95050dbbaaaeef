"""The device and host allocation and free calls of the CUDA and HIP runtimes, and the pointer
an allocation call fills in: what the memory rules (HZ404 leaks, HZ405 tensor memory freed by
hand, HZ406 frees after an asynchronous allocation) share."""

from __future__ import annotations

from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from .calls import Call

ALLOCS = frozenset(
    {
        "cudaMalloc",
        "hipMalloc",
        "cudaMallocAsync",
        "hipMallocAsync",
        "cudaMallocHost",
        "hipHostMalloc",
        "hipMallocHost",
        "cudaHostAlloc",
        "cudaMallocPitch",
        "hipMallocPitch",
        "cudaMallocManaged",
        "hipMallocManaged",
        "cudaMallocFromPoolAsync",
        "hipMallocFromPoolAsync",
        "hipExtMallocWithFlags",
    }
)
FREES = frozenset(
    {
        "cudaFree",
        "hipFree",
        "cudaFreeAsync",
        "hipFreeAsync",
        "cudaFreeHost",
        "hipHostFree",
        "hipFreeHost",
    }
)


def pointer_target(toks: Sequence[Token], call: Call) -> str | None:
    """Name of the local pointer in `&p` / `(void**)&p` / `reinterpret_cast<void**>(&p)`."""
    a, b = call.args[0]
    arg = toks[a:b]
    for k, t in enumerate(arg):
        if t.text == "&" and k + 1 < len(arg) and arg[k + 1].kind is Kind.IDENT:
            rest = arg[k + 2 :]
            if rest and rest[0].text in (".", "->", "["):
                return None  # member or element: owned elsewhere
            if k > 0 and arg[k - 1].text in (".", "->"):
                return None
            return arg[k + 1].text
    return None
