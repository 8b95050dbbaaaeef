"""HZ317 ffs-overload-ambiguous

## What it detects
`__ffsll(x)` or `__ffs(x)` called with a 64-bit `long` argument: a variable, a cast (C-style
or `static_cast<int64_t>(x)`, CUDA_gpca_proj1's `ExtractLsbPos`, compile round 46: 7 TUs), or
an element of a pointer or array (`__ffsll(masks[i])` with `const int64_t* masks`) of type
`uint64_t`, `int64_t`, `size_t`, `unsigned long` or `long`.

## Why it breaks on AMD
HIP overloads `__ffsll` for `long long` and `unsigned long long` (and `__ffs` for `int` and
`unsigned int`). On Linux `uint64_t` is `unsigned long`, which converts equally well to both,
so HIP-Clang rejects the call as ambiguous, while CUDA's single `__ffsll(long long)` accepts
it.

## Example
```cuda
uint64_t mask = __ballot_sync(~0ull, pred);
int first = __ffsll(mask);      // HZ317: ambiguous on HIP
```

## How to fix
`convert` casts the argument to the type CUDA's single overload converts it to,
`__ffsll((long long)mask)` (`int` for `__ffs`): the bits, and so the result, are CUDA's.
Declaring the mask `unsigned long long` works as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.calls import calls
from ..analysis.functions import function_at
from ..analysis.tokens import match
from ..context import Context
from ..findings import Fix, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_LONG = frozenset(
    {"uint64_t", "int64_t", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
)


def _declared_type(toks: Sequence[Token], name: str, lo: int, hi: int) -> list[str] | None:
    """Type words of the last declaration of ``name`` in tokens[lo:hi]."""
    found = None
    for k in range(lo, hi):
        t = toks[k]
        if t.kind is Kind.IDENT and t.text == name and toks[k + 1].text in ("=", ";", ",", ")"):
            words: list[str] = []
            j = k - 1
            while j >= lo and (toks[j].kind is Kind.IDENT or toks[j].text in ("::", "*", "&")):
                if toks[j].text in ("*", "&"):
                    words = []
                    break
                words.append(toks[j].text)
                j -= 1
            if words:
                found = words
    return found


def _element_type(toks: Sequence[Token], name: str, lo: int, hi: int) -> list[str] | None:
    """Type words of the elements of ``name`` declared in tokens[lo:hi] as a pointer
    (`const int64_t* masks`) or an array (`int64_t m[4]`): `__ffsll(masks[i])`."""
    found = None
    for k in range(lo + 1, hi):
        if toks[k].text != name:
            continue
        if toks[k + 1].text == "[":
            j = k - 1
        elif toks[k - 1].text == "*" and toks[k - 2].text != "*":
            j = k - 2
        else:
            continue
        words: list[str] = []
        while j >= lo and (toks[j].kind is Kind.IDENT or toks[j].text == "::"):
            words.append(toks[j].text)
            j -= 1
        if words and toks[j].text in ("(", ",", ";", "{", "}"):
            found = words
    return found


# CUDA's only overload of each: the cast makes HIP's call the conversion CUDA's makes
_CUDA_PARAMETER = {"__ffsll": "long long", "__ffs": "int"}


def _is_long(words: list[str]) -> bool:
    if set(words) & _LONG:
        return True
    return words.count("long") == 1


@hazard_rule(
    "HZ317",
    "ffs-overload-ambiguous",
    Severity.ERROR,
    "__ffsll/__ffs on a uint64_t/long argument is ambiguous on HIP",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    for c in calls(unit, {"__ffsll", "__ffs"}):
        if len(c.args) != 1:
            continue
        a, b = c.args[0]
        arg = toks[a:b]
        words = None
        if arg[0].text == "(" and len(arg) > 3 and arg[-1].kind is Kind.IDENT:
            close = next((k for k, t in enumerate(arg) if t.text == ")"), None)
            if close is not None:
                words = [t.text for t in arg[1:close]]
        elif arg[0].text == "static_cast" and len(arg) > 4 and arg[1].text == "<":
            close = next((k for k, t in enumerate(arg) if t.text == ">"), None)
            if close is not None:
                words = [t.text for t in arg[2:close]]
        elif len(arg) == 1 and arg[0].kind is Kind.IDENT:
            func = function_at(unit, c.index)
            lo = func.params[0] if func else 0
            words = _declared_type(toks, arg[0].text, lo, c.index)
        elif arg[0].kind is Kind.IDENT and arg[1].text == "[" and match(toks, a + 1) == b - 1:
            func = function_at(unit, c.index)
            lo = func.params[0] if func else 0
            words = _element_type(toks, arg[0].text, lo, c.index)
        if not words or not _is_long(words):
            continue
        want = _CUDA_PARAMETER[c.name]
        fix = Fix(
            (report.edit(toks[a].start, toks[a].start, f"({want})"),),
            f"cast the argument to {want}, the type CUDA converts it to",
            safe=True,
        )
        yield report(
            toks[c.index].start,
            toks[c.close].end,
            f"`{c.name}` on a `{' '.join(reversed(words))}` argument is ambiguous on HIP (it "
            f"overloads {want} and unsigned {want}): cast to `{want}`, as CUDA converts it",
            fix=fix,
        )
