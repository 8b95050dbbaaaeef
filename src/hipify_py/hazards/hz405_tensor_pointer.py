"""HZ405 tensor-pointer-lifetime

## What it detects
Raw pointers taken from a `torch::Tensor`/`at::Tensor` with `data_ptr()`, `data_ptr<T>()`,
`data<T>()`, `mutable_data_ptr` or `const_data_ptr` that outlive the tensor or are freed by hand:
  * the pointer is stored in a variable but the tensor is a temporary
    (`x.contiguous().data_ptr<float>()`, `at::empty(...).data_ptr()`, `t.to(kCUDA).data_ptr()`):
    the storage may be released at the end of the statement (a view of a named tensor,
    `opt.value()`, or a tensor reached through a pointer or iterator, `it->second`, is not a
    temporary; `data()` without a type argument is a container's or span's, not a tensor's);
  * the pointer (or the tensor's `data_ptr()` directly) is passed to `cudaFree`/`hipFree`:
    the caching allocator owns it;
  * a function returns the `data_ptr` of a tensor that is local to it.

## Why it breaks on AMD
On ROCm, PyTorch's `HIPCachingAllocator` reuses freed blocks immediately for the next
allocation on the stream, so a dangling pointer silently reads another tensor's data, and
`hipFree` on a pointer the allocator owns corrupts the allocator (or, since HIP 7.0, fails
without waiting for in-flight work). Ported extensions hit these bugs more often because
ROCm kernels launch with different timing.

## Example
```cpp
float* p = x.contiguous().data_ptr<float>();   // HZ405: temporary tensor
kernel<<<g, b>>>(p, n);
cudaFree(y.data_ptr());                        // HZ405
```

## How to fix
Keep the tensor alive in a named variable (`auto xc = x.contiguous(); float* p =
xc.data_ptr<float>();`), never free tensor memory by hand, and return tensors, not raw pointers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.allocations import FREES
from ..analysis.calls import calls
from ..analysis.functions import Func, function_at
from ..analysis.tokens import match_back, text_of
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_DATA = frozenset({"data_ptr", "data", "mutable_data_ptr", "const_data_ptr"})
_TENSOR_TYPES = frozenset({"Tensor", "TensorBase"})
_FACTORIES = frozenset(
    {
        "empty",
        "zeros",
        "ones",
        "empty_like",
        "zeros_like",
        "ones_like",
        "full",
        "rand",
        "randn",
        "arange",
        "empty_strided",
        "from_blob",
        "tensor",
    }
)


def _accessor(toks: Sequence[Token], i: int) -> int | None:
    """If toks[i] is `.data_ptr` (etc.) called as a method, the index after its `()`.

    `data` counts only with a type argument: a tensor's `data<T>()` is a raw pointer, while
    `data()` without one is what every container and view has (`std::vector`, spans, Eigen
    maps) and on a tensor returns another tensor, not a pointer."""
    if toks[i].text not in _DATA or toks[i - 1].text not in (".", "->"):
        return None
    j = i + 1
    if toks[i].text == "data" and (j >= len(toks) or toks[j].text != "<"):
        return None
    if j < len(toks) and toks[j].text == "<":
        while j < len(toks) and toks[j].text not in (">", ";"):
            j += 1
        j += 1
    if j + 1 < len(toks) and toks[j].text == "(" and toks[j + 1].text == ")":
        return j + 2
    return None


@hazard_rule(
    "HZ405",
    "tensor-pointer-lifetime",
    Severity.ERROR,
    "raw pointer from Tensor::data_ptr() outlives its tensor or is freed by hand",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_DATA & unit.identifiers):
        return
    toks = unit.tokens
    from_tensor: dict[str, str] = {}  # pointer variable -> tensor expression text
    local_tensors: dict[int, set[str]] = {}  # function open -> names of tensors declared in it
    positions = unit.identifier_positions
    for i in sorted(k for name in _DATA & unit.identifiers for k in positions[name]):
        end = _accessor(toks, i)
        if end is None:
            continue
        obj_first, temporary = _object_before(toks, i)
        obj = text_of(unit, obj_first, i - 1)
        nxt = toks[end].text if end < len(toks) else ""
        before = toks[obj_first - 1].text if obj_first > 0 else ""
        stored = before == "=" and nxt in (";", ",") and toks[obj_first - 2].kind is Kind.IDENT
        if stored:
            var = toks[obj_first - 2].text
            from_tensor[var] = obj
            if temporary:
                yield report(
                    toks[obj_first].start,
                    toks[end - 1].end,
                    f"`{var}` points into the temporary tensor `{obj}`, which is "
                    f"destroyed at the end of the statement (keep it in a variable)",
                )
        f = function_at(unit, i) if before == "return" else None
        if f is not None:
            if f.open not in local_tensors:
                local_tensors[f.open] = _locals(toks, f)
            if obj in local_tensors[f.open] or (
                temporary and toks[obj_first].text in _FACTORIES | {"at", "torch"}
            ):
                yield report(
                    toks[obj_first - 1].start,
                    toks[end - 1].end,
                    f"`{f.name}` returns the data_ptr of tensor `{obj}` that dies "
                    f"when the function returns",
                )
    yield from _freed(unit, report, from_tensor)


# calls whose result shares the storage of the object they are called on, or refers to it:
# `opt.value().data_ptr()` and `x.view(-1).data_ptr()` point into memory `opt`/`x` keep alive
_REFERENCES = frozenset(
    {"value", "get", "front", "back", "view", "transpose", "t", "permute", "select", "narrow"}
    | {"slice", "squeeze", "unsqueeze", "expand", "detach", "as_strided", "alias", "diagonal"}
)


def _object_before(toks: Sequence[Token], i: int) -> tuple[int, bool]:
    """(first token of the object expression before `.data_ptr` at token i, whether it is a
    temporary that owns storage).

    Read from the accessor backwards, the nearest link decides: a call's result is a temporary
    (`x.contiguous()`, `torch::empty<float>(...)`) unless it refers to its object (a view,
    `opt.value()`: then that object decides); a member reached with `.` is as temporary as the
    object it belongs to; a name, or a member reached through `->` or `::`, lives elsewhere
    (`it->second` is an element of the container the iterator walks, not a temporary)."""
    k = i - 2
    # None: not yet decided by a nearer link; `p->data_ptr()` reads through a pointer
    temporary: bool | None = False if toks[i - 1].text == "->" else None
    while k > 0:
        if toks[k].text == ")":
            o = match_back(toks, k)
            if o is None:
                break
            k = _callee(toks, o - 1)
            if temporary is None and toks[k].text not in _REFERENCES:
                temporary = True
            if toks[k].kind is Kind.IDENT:
                k -= 1
        elif toks[k].kind is Kind.IDENT:
            k -= 1
        else:
            break
        if toks[k].text in (".", "->", "::"):
            if toks[k].text != "." and temporary is None:
                temporary = False  # `it->second`, `p->view(-1)`: the object lives elsewhere
            k -= 1
            continue
        break
    return k + 1, bool(temporary)


def _callee(toks: Sequence[Token], k: int) -> int:
    """The callee's name before the `(` at k + 1, past template arguments: `empty<float>(`."""
    if toks[k].text == ">":
        while k > 0 and toks[k].text != "<":
            k -= 1
        k -= 1
    return k


def _freed(unit: Unit, report: Report, from_tensor: dict[str, str]) -> Iterator[Finding]:
    """Frees of memory a tensor owns: `cudaFree(t.data_ptr())`, or of a pointer taken so."""
    toks = unit.tokens
    for c in calls(unit, FREES):
        if not c.args:
            continue
        a, b = c.args[0]
        arg = toks[a:b]
        direct = any(
            x.text in _DATA and x.kind is Kind.IDENT and _accessor(toks, a + k)
            for k, x in enumerate(arg)
        )
        via = next((x.text for x in arg if x.kind is Kind.IDENT and x.text in from_tensor), None)
        if direct or via:
            what = text_of(unit, a, b)
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{c.name}({what})` frees memory owned by a tensor"
                + (f" (`{via}` came from `{from_tensor[via]}.data_ptr`)" if via else "")
                + ": the caching allocator owns it",
            )


def _locals(toks: Sequence[Token], f: Func) -> set[str]:
    names: set[str] = set()
    for j in range(f.open + 1, f.close - 1):
        t = toks[j]
        if (
            t.kind is Kind.IDENT
            and t.text in _TENSOR_TYPES | {"auto"}
            and toks[j + 1].kind is Kind.IDENT
            and toks[j + 2].text in ("=", ";", "(", "{")
        ):
            if t.text == "auto":
                rhs = " ".join(x.text for x in toks[j + 3 : j + 12])
                if not any(
                    w in rhs
                    for w in (
                        "empty",
                        "zeros",
                        "ones",
                        "Tensor",
                        "contiguous",
                        "clone",
                        "to",
                        "full",
                        "rand",
                    )
                ):
                    continue
            names.add(toks[j + 1].text)
    return names
