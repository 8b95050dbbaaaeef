"""HZ315 half2-members

## What it detects
Member access `.x` / `.y` on a variable declared as `half2` or `__half2` (and `__nv_bfloat162`
/ `__hip_bfloat162`).

## Why it breaks on AMD
HIP declares the members of `half2` as `unsigned short` bit patterns (the raw storage), not
`__half` values. `h.x` compiles but yields the raw bits converted to a number, so arithmetic
on it gives different results than on CUDA (hipify-clang warns about the same pattern).

## Example
```cuda
__half2 h = __floats2half2_rn(a, b);
float lo = __half2float(h.x);      // HZ315
```

## How to fix
Use the intrinsics: `__low2half(h)`, `__high2half(h)`, `__low2float(h)`, `__high2float(h)`,
or `reinterpret_cast<__half&>(h.x)`.
"""

from __future__ import annotations

from ..findings import Severity
from ..frontend.lexer import Kind
from ..rules import hazard_pass, register_rule
from ._util import finding

register_rule(
    "HZ315",
    "half2-members",
    Severity.WARNING,
    "half2 .x/.y members are raw unsigned short bits in HIP",
    __doc__,
)

_TYPES = frozenset({"half2", "__half2", "__nv_bfloat162", "__hip_bfloat162", "nv_bfloat162"})


@hazard_pass("HZ315")
def check(unit, ctx):
    if not (_TYPES & unit.identifiers):
        return
    toks = unit.tokens
    names = {}
    for i, t in enumerate(toks):
        if t.kind is Kind.IDENT and t.text in _TYPES:
            j = i + 1
            while j < len(toks) and toks[j].text in ("&", "const", "__restrict__"):
                j += 1
            while j < len(toks) and toks[j].kind is Kind.IDENT:
                names[toks[j].text] = t.text
                j += 1
                if j < len(toks) and toks[j].text in ("=", "["):
                    # skip the initializer up to the next top-level comma
                    depth = 0
                    while j < len(toks) and not (depth == 0 and toks[j].text in (",", ";", ")")):
                        depth += toks[j].text in ("(", "[", "{")
                        depth -= toks[j].text in (")", "]", "}")
                        j += 1
                if j < len(toks) and toks[j].text == ",":
                    j += 1
                    continue
                break
    if not names:
        return
    for i, t in enumerate(toks[:-2]):
        if (
            t.kind is Kind.IDENT
            and t.text in names
            and toks[i + 1].text == "."
            and toks[i + 2].text in ("x", "y")
        ):
            yield finding(
                unit,
                "HZ315",
                t.start,
                toks[i + 2].end,
                f"`{t.text}.{toks[i + 2].text}` on {names[t.text]}: HIP stores the "
                f"halves as unsigned short bits; use __low2half/__high2half",
            )
