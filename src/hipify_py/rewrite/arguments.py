"""Calls whose HIP form differs in shape, not just in name.

These are rules about an API's argument list (which the tables cannot express): a missing
default argument, an overload that is a different function in HIP, a function pointer that HIP
takes as ``const void*``, a callback argument HIP does not have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import Arg, call_args
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass
from ._macro_definitions import definition_roles

RULE = "arguments"

# CUDA API called with N arguments -> the HIP function that has that shape
RENAME_BY_ARITY: dict[str, tuple[int, str]] = {
    "cudaEventCreate": (2, "hipEventCreateWithFlags"),  # C++ overload (event, flags)
    "cudaGraphInstantiate": (3, "hipGraphInstantiateWithFlags"),  # CUDA 12 (exec, graph, flags)
    # CUDA 13 (ptr, count, cudaMemLocation, flags, stream); CUDA 12 had (ptr, count, device, stream)
    "cudaMemPrefetchAsync": (5, "hipMemPrefetchAsync_v2"),
    "cuMemPrefetchAsync": (5, "hipMemPrefetchAsync_v2"),
}
# CUDA API whose argument N has this type -> the HIP function taking that type.  CUDA 13's
# cudaMemAdvise takes a cudaMemLocation where CUDA 12's took a device ordinal (same arity).
RENAME_BY_ARGUMENT_TYPE: dict[str, tuple[int, str, str]] = {
    "cudaMemAdvise": (3, "cudaMemLocation", "hipMemAdvise_v2"),
    "cuMemAdvise": (3, "CUmemLocation", "hipMemAdvise_v2"),
    # CUDA 13 (ptr, count, location, flags) with the stream defaulted: _v2 needs it spelled
    "cudaMemPrefetchAsync": (2, "cudaMemLocation", "hipMemPrefetchAsync_v2"),
    "cuMemPrefetchAsync": (2, "CUmemLocation", "hipMemPrefetchAsync_v2"),
}
# CUDA API named as a value (a function pointer, not called) -> the HIP function with CUDA's
# parameters: the mapped one takes more (nwchem's `morecore(cudaMallocHost, bytes)` with a
# two-parameter pointer type, compile round 32; ROCm 7.2.4 keeps `hipMallocHost`, deprecated)
RENAME_AS_VALUE: dict[str, str] = {"cudaMallocHost": "hipMallocHost"}
# CUDA API whose argument N has this type, called with M arguments -> text appended (the
# argument CUDA defaults and the renamed HIP function does not)
APPEND_BY_ARGUMENT_TYPE: dict[str, tuple[int, str, int, str]] = {
    "cudaMemPrefetchAsync": (2, "cudaMemLocation", 4, "0"),
}
# CUDA API called with N arguments -> text appended as the last arguments
APPEND_ARGUMENT: dict[str, dict[int, str]] = {
    "cudaMallocHost": {2: "hipHostMallocDefault"},  # hipHostMalloc requires its flags
    # CUDA defaults the shared memory and the stream; ROCm 7.2.4's declaration does not
    # (ParRes Kernels' p2p-cuda, issue 23 round 25)
    "cudaLaunchCooperativeKernel": {4: "0, 0", 5: "0"},
    # the other trailing arguments CUDA 13's cuda_runtime_api.h defaults (`__dv`) and ROCm
    # 7.2.4's hip_runtime_api.h does not (`__dparm`): TIGRE's 3-argument cudaMalloc3DArray
    # (issue 23 round 29); the CUDA 12 two-argument cudaGraphInstantiate is HIP's legacy form
    "cudaMalloc3DArray": {3: "0"},
    "cudaMemcpy2DArrayToArray": {8: "hipMemcpyDeviceToDevice"},
    "cudaSignalExternalSemaphoresAsync": {3: "0"},
    "cudaWaitExternalSemaphoresAsync": {3: "0"},
    "cudaGraphInstantiateWithFlags": {2: "0"},
    # cuda_runtime.h's templates default the offset and the direction; HIP's do not (kmcuda's
    # three-argument copies to `__constant__` counters, issue 23 compile round 35)
    "cudaMemcpyToSymbolAsync": {3: "0, hipMemcpyHostToDevice", 4: "hipMemcpyHostToDevice"},
    "cudaMemcpyFromSymbolAsync": {3: "0, hipMemcpyDeviceToHost", 4: "hipMemcpyDeviceToHost"},
    "cudaGraphInstantiate": {2: "nullptr, nullptr, 0"},
}
# API -> index of a kernel/function argument HIP declares as ``const void*``
VOID_POINTER_ARGUMENT: dict[str, int] = {
    "cudaFuncGetAttributes": 1,
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetAttribute": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "cudaLaunchCooperativeKernel": 0,
    "cudaLaunchKernel": 0,
}
# API -> index of a ``T**`` argument CUDA's C++ template accepts and HIP declares as ``void**``
# (the C-style cast through ``void*`` is the template's own, which also takes ``const T**``)
VOID_POINTER_POINTER_ARGUMENT: dict[str, int] = {"cudaHostGetDevicePointer": 0}
# API -> indexes of pointer-array arguments CUDA declares ``const void* const A[]`` and
# hipBLAS (ROCm 7.2.4) ``const void* A[]``: a ``void**`` converts to the first, not the second
CONST_POINTER_ARRAYS: dict[str, tuple[int, ...]] = {"cublasGemmBatchedEx": (7, 10)}
# API -> index of an argument HIP does not have (the block-size-to-shared-memory callback)
DROP_ARGUMENT: dict[str, tuple[int, int]] = {  # name -> (arity, index)
    "cuOccupancyMaxPotentialBlockSize": (6, 3),
    "cuOccupancyMaxPotentialBlockSizeWithFlags": (7, 3),
}


# cuBLAS's C++ overloads of the GEMM-Ex calls accept a cudaDataType as the compute type (the
# CUDA 10 signature); hipblasGemmEx has only the hipblasComputeType_t form (ROCm 7.2.4), so the
# argument (second to last) becomes the compute type of the same precision.
GEMM_EX = frozenset({"cublasGemmEx", "cublasGemmBatchedEx", "cublasGemmStridedBatchedEx"})
COMPUTE_FOR_DATA_TYPE = {
    "CUDA_R_16F": "HIPBLAS_COMPUTE_16F",
    "CUDA_R_32F": "HIPBLAS_COMPUTE_32F",
    "CUDA_C_32F": "HIPBLAS_COMPUTE_32F",
    "CUDA_R_64F": "HIPBLAS_COMPUTE_64F",
    "CUDA_C_64F": "HIPBLAS_COMPUTE_64F",
    "CUDA_R_32I": "HIPBLAS_COMPUTE_32I",
}


def _compute_type(tokens: Sequence[Token], i: int) -> str | None:
    """HIPBLAS_COMPUTE_* when token ``i`` is a data type passed as a GEMM-Ex compute type."""
    if not (0 < i < len(tokens) - 1 and tokens[i - 1].text == "," and tokens[i + 1].text == ","):
        return None
    depth = 0
    for j in range(i - 1, max(i - 400, 0), -1):
        text = tokens[j].text
        if text in (")", "]", "}"):
            depth += 1
        elif text in ("(", "[", "{"):
            if depth == 0:
                if text != "(" or tokens[j - 1].text not in GEMM_EX:
                    return None
                args = call_args(tokens, j - 1)
                if args is not None and len(args) >= 2 and args[-2].first == args[-2].last == i:
                    return COMPUTE_FOR_DATA_TYPE[tokens[i].text]
                return None
            depth -= 1
    return None


def renamed_for_arity(tokens: Sequence[Token], i: int) -> str | None:
    """The HIP name for a call whose shape selects another HIP function, or for a function
    named as a value (used by renames)."""
    name = tokens[i].text
    if name in RENAME_AS_VALUE and (i + 1 >= len(tokens) or tokens[i + 1].text != "("):
        return RENAME_AS_VALUE[name]
    if name in COMPUTE_FOR_DATA_TYPE:
        return _compute_type(tokens, i)
    rule = RENAME_BY_ARITY.get(name)
    if rule is not None:
        args = call_args(tokens, i)
        if args is not None and len(args) == rule[0]:
            return rule[1]
    typed = RENAME_BY_ARGUMENT_TYPE.get(name)
    if typed is not None:
        index, type_name, hip = typed
        args = call_args(tokens, i)
        if args is not None and len(args) > index and _has_type(tokens, args[index], type_name):
            return hip
    return None


def _has_type(tokens: Sequence[Token], arg: Arg, type_name: str) -> bool:
    """Token-level: the argument is ``type_name{...}``/``{...}``, or a variable the file
    declares as ``type_name var``."""
    first = tokens[arg.first]
    if first.text in (type_name, "{"):
        return True
    if arg.first != arg.last:
        return False
    return any(
        tokens[j].text == first.text and tokens[j - 1].text == type_name
        for j in range(1, arg.first)
    )


def _append_argument(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """The argument CUDA defaults and HIP requires, appended when the call leaves it out."""
    args = call_args(tokens, i)
    extra = APPEND_ARGUMENT[name].get(len(args)) if args else None
    if args and extra is not None:
        end = args[-1].span(tokens)[1]
        yield Edit(end, end, f", {extra}", RULE)


def _append_by_argument_type(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """The defaulted argument the renamed (``_v2``) HIP function requires: only the CUDA 13
    form, recognised by its argument's type, is renamed, so only it needs the argument."""
    index, type_name, arity, extra = APPEND_BY_ARGUMENT_TYPE[name]
    args = call_args(tokens, i)
    if args is not None and len(args) == arity and _has_type(tokens, args[index], type_name):
        end = args[-1].span(tokens)[1]
        yield Edit(end, end, f", {extra}", RULE)


def _cast_argument(tokens: Sequence[Token], i: int, index: int, cast: str) -> Iterator[Edit]:
    """Argument ``index`` wrapped in ``cast``, unless the code already casts it to an untyped
    pointer (a ``*cast<void...>`` or a parenthesised C-style cast to ``void``), as HIP declares
    the parameter.  A cast to another type still needs it: cuda_scheduling_examiner's
    `(uint32_t**)&gpu_start_barrier` (compile round 44)."""
    args = call_args(tokens, i)
    if args is None or len(args) <= index:
        return
    arg = args[index]
    if _cast_to_void(tokens, arg.first, arg.last):
        return
    start, end = arg.span(tokens)
    yield Edit(start, start, cast, RULE)
    yield Edit(end, end, ")", RULE)


def _cast_to_void(tokens: Sequence[Token], first: int, last: int) -> bool:
    """Tokens [first, last] open with a cast whose type names ``void``."""
    if "cast" not in tokens[first].text and tokens[first].text != "(":
        return False
    for t in tokens[first + 1 : last + 1]:
        if t.text in (")", ">"):
            return False
        if t.text == "void":
            return True
    return False


def _cast_to_void_pointer(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """A kernel passed where HIP takes ``const void*`` (CUDA's templates take the function)."""
    yield from _cast_argument(
        tokens, i, VOID_POINTER_ARGUMENT[name], "reinterpret_cast<const void*>("
    )


def _cast_to_void_pointer_pointer(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """A ``T**`` passed where HIP takes ``void**``, cast the way CUDA's template casts it."""
    yield from _cast_argument(tokens, i, VOID_POINTER_POINTER_ARGUMENT[name], "(void**)(void*)(")


def _cast_to_const_pointer_array(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """``(const void**)`` around each pointer-array argument, whatever its own cast: the
    sample code's ``(void**)`` is what breaks."""
    args = call_args(tokens, i)
    for index in CONST_POINTER_ARRAYS[name]:
        if args is None or len(args) <= index:
            return
        start, end = args[index].span(tokens)
        yield Edit(start, start, "(const void**)(", RULE)
        yield Edit(end, end, ")", RULE)


def _drop_argument(tokens: Sequence[Token], i: int, name: str) -> Iterator[Edit]:
    """The callback argument HIP's function does not have, removed with its comma."""
    arity, index = DROP_ARGUMENT[name]
    args = call_args(tokens, i)
    if args is not None and len(args) == arity:
        start = args[index - 1].span(tokens)[1]
        end = args[index].span(tokens)[1]
        yield Edit(start, end, "", RULE)


_NOT_TYPES = frozenset({"return", "else", "do", "case", "throw", "new", "delete", "sizeof"})


def _declared_here(tokens: Sequence[Token], i: int) -> bool:
    """The name at ``i`` is declared, not called: a type stands before it (AMGX declares its
    own `cudaError_t cudaMallocHost(void **ptr, size_t size);` in its namespace, and
    `cudaError_t memory::cudaMallocHost(...) {` defines it): its parameters get no argument."""
    k = i - 1
    while k >= 1 and tokens[k].text == "::" and tokens[k - 1].kind is Kind.IDENT:
        k -= 2  # past `memory::`
    return k >= 0 and tokens[k].kind is Kind.IDENT and tokens[k].text not in _NOT_TYPES


def _namespaced(tokens: Sequence[Token], i: int) -> bool:
    """`amgx::memory::cudaMallocHost(p, n)`: a function of the project's namespace that
    shares the API's name (the runtime's own has none, or `::`) and keeps its parameters."""
    if i < 2 or tokens[i - 1].text != "::":
        return False
    return tokens[i - 2].kind is Kind.IDENT and tokens[i - 2].text not in _NOT_TYPES


_Adapter = Callable[[Sequence[Token], int, str], Iterator[Edit]]
# each table, with the adapter that handles the calls it names
_TABLES: tuple[tuple[Iterable[str], _Adapter], ...] = (
    (DROP_ARGUMENT, _drop_argument),
    (CONST_POINTER_ARRAYS, _cast_to_const_pointer_array),
    (VOID_POINTER_POINTER_ARGUMENT, _cast_to_void_pointer_pointer),
    (VOID_POINTER_ARGUMENT, _cast_to_void_pointer),
    (APPEND_BY_ARGUMENT_TYPE, _append_by_argument_type),
    (APPEND_ARGUMENT, _append_argument),
)


def _by_name() -> dict[str, list[_Adapter]]:
    """API name -> how its call is adapted (a call may need several: a cast and an argument)."""
    out: dict[str, list[_Adapter]] = {}
    for names, adapter in _TABLES:
        for name in names:
            out.setdefault(name, []).append(adapter)
    return out


_ADAPTERS = _by_name()
_SHAPED = frozenset(_ADAPTERS)


@rewrite_pass(
    "arguments", order=25, tallies=(Tally(RULE, "arguments_adapted", "call arguments adapted"),)
)
def arguments(unit: Unit, ctx: Context) -> Iterator[Edit]:
    tokens = unit.tokens
    present = unit.identifiers & _SHAPED
    if not present:
        return
    positions = unit.identifier_positions
    roles = definition_roles(unit)
    for i in sorted(i for name in present for i in positions[name]):
        if i in roles or _declared_here(tokens, i) or _namespaced(tokens, i):
            continue  # a macro definition's head, a declaration, a project's own function
        name = tokens[i].text
        for adapt in _ADAPTERS[name]:
            yield from adapt(tokens, i, name)
