"""HZ404 device-alloc-leak

## What it detects
In a host function, device or pinned memory allocated into a local pointer
(`cudaMalloc(&p, ...)`, `hipMalloc`, `cudaMallocAsync`, `cudaMallocHost`, `hipHostMalloc`,
`cudaMallocPitch`, ...) that is not freed on every path: a `return`, `throw` or `TORCH_CHECK`
between the allocation and the matching `cudaFree`/`hipFree`, or no free at all while the
pointer never leaves the function (not returned, not stored elsewhere: also not as part of
an expression, `return (int64_t)ptr;` or `m_data = (T*)rawptr;` into a member, nor inside a
returned object, `return Buffer(n, ptr);`; a `return` of a runtime call's status,
`return cudaMemset(ptr, 0, n);`, hands nothing out), and its address not handed to a call
(`release(&ptr);`, a helper that frees it; another allocation into it does not count).
Error checks of the allocation itself (`if (cudaMalloc(&p, n) != cudaSuccess) return;`, or
`return err;` inside `if (err != cudaSuccess) {...}`) are not paths that leak, and neither is
the end of `main`.

## Why it breaks on AMD
A leak is a leak on both vendors, but ports change the failure mode: HIP 7.0's `hipFree` no
longer waits for `hipMallocAsync` allocations, invalid handles now segfault instead of
returning an error, and MI300X jobs often share one large HBM pool between processes, so
leaked buffers in a long-running service surface as `hipErrorOutOfMemory` elsewhere.

## Example
```cuda
float* d; cudaMalloc(&d, bytes);
if (n == 0) return;          // HZ404: d leaks on this path
...
cudaFree(d);
```

## How to fix
Free on every path (a small RAII owner such as `std::unique_ptr<float, decltype(&hipFree)>`),
or allocate through the framework's allocator (`at::empty`, `c10::hip::HIPCachingAllocator`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence

from ..analysis.allocations import ALLOCS, FREES, pointer_target
from ..analysis.calls import Call, calls
from ..analysis.functions import Func, enclosing_conditions, function_at
from ..analysis.tokens import CASTS, cached, inside, match_back, occurrences, statement_bounds
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

_EXITS = frozenset({"return", "throw", "TORCH_CHECK", "AT_ERROR", "TORCH_CHECK_VALUE"})


def _pointer_declaration(toks: Sequence[Token], k: int) -> bool:
    """The name at ``k`` is declared there as a pointer (`T* p;`, `T *a, *p = nullptr;`)."""
    return toks[k - 1].text in ("*", ",") and toks[k + 1].text in (";", "=", ",")


def _static_pointer(toks: Sequence[Token], k: int) -> bool:
    """A pointer declared ``static`` at ``k`` (AMGX's `static scalar_t* ret = 0;` allocated
    once and kept for the process): it outlives the call, like a global."""
    if not _pointer_declaration(toks, k):
        return False
    j = k - 1
    while j > 0 and toks[j].text not in (";", "{", "}"):
        if toks[j].text == "static":
            return True
        j -= 1
    return False


def _declaration(toks: Sequence[Token], k: int) -> bool:
    """The name at ``k`` is declared there (`T name ...`, `T* name`, `T& name`, `X<T> name`)."""
    before, after = toks[k - 1], toks[k + 1].text
    named = before.kind is Kind.IDENT or before.text in ("*", "&", ">")
    return named and after in (";", "=", ",", "[", "(", "{")


def _declared(
    unit: Unit, declares: Callable[[Sequence[Token], int], bool], name: str, f: Func, before: int
) -> bool:
    """``name`` is declared (as ``declares`` tells) in the body of ``f`` before token
    ``before``.  The name's declarations are listed once per file and bisected: a function of
    many uses asks once per use, and a scan of the body for each was quadratic."""
    toks = unit.tokens
    listed: dict[tuple[str, str], list[int]] = cached(unit, "_hz404_declarations", dict)
    key = (declares.__name__, name)
    at = listed.get(key)
    if at is None:
        at = listed[key] = [
            k
            for k in unit.identifier_positions.get(name, ())
            if 0 < k < len(toks) - 1 and declares(toks, k)
        ]
    n = bisect_right(at, f.open)
    return n < len(at) and at[n] < before


@hazard_rule(
    "HZ404",
    "device-alloc-leak",
    Severity.WARNING,
    "device allocation not freed on every path of the function",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    allocs = list(calls(unit, ALLOCS))
    if not allocs:
        return
    frees = list(calls(unit, FREES))  # in token order
    exits = occurrences(unit, _EXITS)
    free_at = [fr.index for fr in frees]
    for c in allocs:
        f = function_at(unit, c.index)
        if f is None or f.is_device or not c.args or f.name == "main":
            continue  # memory still held when main returns is released with the process
        name = pointer_target(toks, c)
        if name is None or not _declared(unit, _pointer_declaration, name, f, c.index):
            continue
        if _declared(unit, _static_pointer, name, f, c.index):
            continue
        in_function = frees[bisect_right(free_at, f.open) : bisect_left(free_at, f.close)]
        my_frees = [
            fr
            for fr in in_function
            if fr.args and any(t.text == name for t in toks[fr.args[0][0] : fr.args[0][1]])
        ]
        later = [fr.index for fr in my_frees if fr.index > c.index]
        uses = inside(unit.identifier_positions.get(name, ()), c.close, f.close)
        if any(_handed_out(unit, f, j) for j in uses):
            continue
        if not my_frees:
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{name}` allocated with `{c.name}` in `{f.name}` is never freed "
                f"and does not leave the function",
            )
            continue
        end = min(later) if later else f.close
        for j in inside(exits, c.close, end):
            t = toks[j]
            if (
                _is_alloc_check(toks, c, j)
                or _in_lambda(toks, f, j)
                or _in_error_branch(unit, toks, f, c, j)
                or _frees_on_exit(toks, j, name)
            ):
                continue
            line = unit.lines.position(t.start)[0]
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{name}` allocated with `{c.name}` leaks on the early `{t.text}` at "
                f"line {line} (freed only later)",
                extra={"root_cause": f"early exit at line {line}"},  # one exit to fix
            )
            break


def _handed_out(unit: Unit, f: Func, j: int) -> bool:
    """Whether use ``j`` of the pointer (after its allocation, in ``f``) hands it out of the
    function.  As is: returned, stored (`*out = p;`, `res.buf = p;`, even `T* q = p;`) or put
    in a container or owner (`v.push_back(p)`, `from_blob(p, ...)`).  Or the statement holding
    it returns an expression of it (`return (int64_t)ptr;`, apex's allocate_raw;
    `return Buffer(shape, ptr);`, an object that owns it) or stores one in what outlives the
    call: a member (`m_data = (T*)rawptr;`, tiny-cuda-nn's GPUMemory), a global, a parameter,
    through a pointer; or hands the pointer's address to a helper (`release(&a, &b);`, which
    may free it or keep it)."""
    toks = unit.tokens
    if _passed_as_is(toks, j):
        return True
    first, _ = statement_bounds(toks, j, f.open + 1, f.close)
    callees = _enclosing_calls(toks, first, j)
    if callees and toks[j - 1].text == "&" and toks[j + 1].text not in ("[", ".", "->"):
        return toks[callees[-1]].text not in ALLOCS  # not a re-allocation into the pointer
    if callees and _kept_by(unit, toks, callees[-1], j):
        return True
    if callees:  # `return cudaFree(p);`, `err = cudaMemset(p, 0, n);`: used, not handed out
        return toks[first].text == "return" and not _runtime_api(unit, toks[callees[-1]].text)
    if toks[first].text == "return":
        return True
    eq = next((k for k in range(first, j) if toks[k].text == "="), None)
    if eq is None or eq == first:
        return False
    lhs = toks[first:eq]
    if lhs[0].text == "*" or any(t.text in (".", "->", "[", "::") for t in lhs):
        return True  # through a pointer, into a member or an element (not `T* local = ...`)
    target = lhs[-1]
    return (
        target.kind is Kind.IDENT
        and len(lhs) == 1
        and not _declared(unit, _declaration, target.text, f, j)
    )


# words of a function name that takes a pointer into its keeping (`add_memory`, `registerBuf`,
# `track`): a function that only computes with it (`cudppSort`, `compute`) keeps nothing
_KEEPING_WORDS = frozenset(
    "add register push insert store put append track keep attach adopt manage own emplace "
    "hold cache save record".split()
)
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _kept_by(unit: Unit, toks: Sequence[Token], callee: int, j: int) -> bool:
    """The pointer itself (token ``j``, a whole argument) goes to a function of the project's
    own whose name says it keeps it: AMGX's memory pool `add_memory(ptr, size)` stores it and
    frees it in its destructor."""
    if toks[j - 1].text not in ("(", ",") or toks[j + 1].text not in (")", ","):
        return False
    name = toks[callee].text
    if name in ALLOCS or name in FREES or _runtime_api(unit, name):
        return False
    return any(w.lower() in _KEEPING_WORDS for w in _WORD.findall(name))


def _enclosing_calls(toks: Sequence[Token], first: int, j: int) -> list[int]:
    """The callee names (token indices, outermost first) of the calls whose parentheses hold
    token ``j``, in the statement that starts at ``first``; a cast's or grouping's are none."""
    opens: list[int] = []
    for k in range(first, j):
        if toks[k].text == "(":
            opens.append(k)
        elif toks[k].text == ")" and opens:
            opens.pop()
    return [
        k - 1
        for k in opens
        if k > 0 and toks[k - 1].kind is Kind.IDENT and toks[k - 1].text != "return"
    ]


def _runtime_api(unit: Unit, name: str) -> bool:
    """A CUDA or HIP runtime call (`cudaFree`, `hipMemcpy`): it returns a status, so a
    `return` of its result hands nothing out, where a project's call or constructor may
    return an object that holds the pointer."""
    return name in unit.mapped or bool(unit.mappings.by_hip(name))


# calls that take the pointer itself into what outlives the function
_OWNERS = frozenset(
    {
        "push_back",
        "emplace_back",
        "insert",
        "reset",
        "(",
        "make_pair",
        "emplace",
        "from_blob",  # a tensor whose deleter frees it (gsplat)
    }
)


def _passed_as_is(toks: Sequence[Token], j: int) -> bool:
    """The pointer at use ``j`` is itself returned, stored or handed to an owner (the first
    cases of ``_handed_out``, read from the tokens around it), through casts too:
    `weight.extra.push_back((void*)p)` (fastllm), `d_w_.reset(static_cast<T*>(p))` (kaldi)."""
    name = toks[j].text
    lo, hi = _through_casts(toks, j)
    prev, nxt = toks[lo - 1].text, toks[hi + 1].text
    if prev == "return" and nxt == ";":
        return True
    if prev in ("=", "{") and nxt in (";", ",", "}"):
        # stored somewhere (`*out = p;`, `res.buf = p;`), not `p = p`
        return not (toks[lo - 2].text == name and toks[lo - 3].text not in (".", "->"))
    return prev in ("(", ",") and toks[lo - 2].text in _OWNERS


_TYPE_PUNCT = frozenset({"*", "&", "::", "<", ">", ","})


def _through_casts(toks: Sequence[Token], j: int) -> tuple[int, int]:
    """The first and last token of the expression that token ``j`` is, with the casts around
    it: `(void *)p`, `(T*)(p)`, `static_cast<T*>(p)`."""
    lo = hi = j
    for _ in range(4):  # casts of casts, a few deep
        if lo < 2:
            break
        if toks[lo - 1].text == ")":
            opened = _c_cast_open(toks, lo)
            if opened is None:
                break
            lo = opened
        elif toks[lo - 1].text == "(" and toks[hi + 1].text == ")":
            wrapped = _call_cast_start(toks, lo)
            if wrapped is None:
                break
            lo, hi = wrapped, hi + 1
        else:
            break
    return lo, hi


def _c_cast_open(toks: Sequence[Token], lo: int) -> int | None:
    """The `(` of a C cast `(type)` that ends just before token ``lo``: only type words in it."""
    k = lo - 2
    while k > max(lo - 12, 0) and (toks[k].kind is Kind.IDENT or toks[k].text in _TYPE_PUNCT):
        k -= 1
    return k if toks[k].text == "(" and k < lo - 2 else None


def _call_cast_start(toks: Sequence[Token], lo: int) -> int | None:
    """The first token of `static_cast<T*>(` or of a grouping `(` whose parenthesis opens just
    before token ``lo``; None for a call's parenthesis."""
    if toks[lo - 2].text in ("(", ",", "=", "return"):
        return lo - 1  # `(p)`: a grouping
    if toks[lo - 2].text not in (">", ">>"):
        return None
    k = lo - 3
    while k > max(lo - 14, 0) and toks[k].text != "<":
        k -= 1
    return k - 1 if toks[k].text == "<" and toks[k - 1].text in CASTS else None


def _is_alloc_check(toks: Sequence[Token], call: Call, j: int) -> bool:
    """`if (cudaMalloc(&p, n) != cudaSuccess) return;` or `err = cudaMalloc(...);
    if (err != cudaSuccess) return;`: the allocation itself failed, nothing to free."""
    k = j - 1
    if toks[k].text != ")":
        return toks[k].text == "{" and _is_alloc_check(toks, call, k)
    o = match_back(toks, k)
    if o is None or o < 1 or toks[o - 1].text != "if":
        return False
    return _checks_this_alloc(toks, call, o + 1, k)


def _checks_this_alloc(toks: Sequence[Token], call: Call, a: int, b: int) -> bool:
    """The condition tokens[a:b] test the result of ``call`` (and not of a later call)."""
    if a <= call.index < b:
        return True
    status = _status_variable(toks, call)
    if status is None or not any(t.text == status for t in toks[a:b]):
        return False
    # the status must still hold the allocation's result: no re-assignment in between
    return not any(
        toks[k].text == status and toks[k + 1].text == "=" for k in range(call.close + 1, a)
    )


def _status_variable(toks: Sequence[Token], call: Call) -> str | None:
    """`err` in `err = cudaMalloc(...)` / `cudaError_t err = cudaMalloc(...)`."""
    k = call.index - 1
    if toks[k].text == "::":
        k -= 1
    if toks[k].text == "=" and toks[k - 1].kind is Kind.IDENT:
        return toks[k - 1].text
    return None


def _frees_on_exit(toks: Sequence[Token], j: int, name: str) -> bool:
    """`return cudaFree(p);`: the exit statement itself frees the pointer."""
    k = j + 1
    while k < len(toks) and toks[k].text != ";":
        if toks[k].text in FREES and any(
            toks[m].text == name for m in range(k + 1, min(k + 8, len(toks)))
        ):
            return True
        k += 1
    return False


def _in_error_branch(unit: Unit, toks: Sequence[Token], f: Func, call: Call, j: int) -> bool:
    """The exit sits in an `if (err != cudaSuccess) { ...; return err; }` block that checks
    the allocation itself; a check of a later call is the error path that leaks."""
    for kw, a, b in enclosing_conditions(unit, j, f)[:1]:
        if kw == "if" and _checks_this_alloc(toks, call, a, b):
            return True
    return False


def _in_lambda(toks: Sequence[Token], f: Func, j: int) -> bool:
    depth = 0
    for k in range(j - 1, f.open, -1):
        x = toks[k].text
        if x == "}":
            depth += 1
        elif x == "{":
            if depth == 0:
                return toks[k - 1].text == ")" and _lambda_head(toks, k - 1)
            depth -= 1
    return False


def _lambda_head(toks: Sequence[Token], close: int) -> bool:
    o = match_back(toks, close)
    return o is not None and o > 0 and toks[o - 1].text == "]"
