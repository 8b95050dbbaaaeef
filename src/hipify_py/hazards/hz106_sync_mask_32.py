"""HZ106 sync-mask-32bit

## What it detects
A 32-bit lane mask passed to a `_sync` warp intrinsic (`__shfl*_sync`, `__ballot_sync`,
`__any_sync`, `__all_sync`, `__match_*_sync`, `__reduce_*_sync`, `__syncwarp`): the literal
`0xffffffff` (or `~0u`), any other literal that fits in 32 bits without an `ll` suffix, a macro
defined as such a literal, or a variable whose type is 32 bits wide.

## Why it breaks on AMD
All masks taken by HIP's warp builtins are 64-bit. ROCm 7's `_sync` intrinsics
`static_assert(sizeof(mask) == 8)` ("The mask must be a 64-bit integer"), so a 32-bit mask does
not compile for gfx942/gfx950, and a full-warp mask written as `0xffffffff` would name only
lanes 0-31 of a 64-lane wavefront.

## Example
```cuda
v += __shfl_down_sync(0xffffffff, v, off);   // HZ106, safe fix: 0xffffffffffffffffULL
```

## How to fix
Write the full mask as `0xffffffffffffffffULL` (the safe fix, applied by `--fix`; it also
compiles with nvcc, where the upper bits are ignored), or pass `__activemask()`. Partial masks
need a decision about which of the 64 lanes take part, so they are reported only. A macro
such as `#define FULL_MASK 0xffffffff` gets an unsafe fix at its definition.
"""

from __future__ import annotations

from ..edits import Edit
from ..findings import Fix, Severity
from ..frontend.lexer import Kind
from ..rewrite.warp_sync_legacy import DEFAULT_ON, FIRST_WITH_SYNC_BUILTINS, MASKLESS
from ..rules import hazard_pass, register_rule
from ._util import MASKED_SYNC, calls, cursor_at, finding, int_value, is_64bit_literal, text_of

register_rule(
    "HZ106",
    "sync-mask-32bit",
    Severity.ERROR,
    "32-bit lane mask passed to a _sync warp intrinsic (HIP needs 64-bit)",
    __doc__,
)

FULL64 = "0xffffffffffffffffULL"
_MASK_DROPPED = frozenset(MASKLESS)  # what the warp-sync rewrite for old ROCm removes


def _defines(unit):
    """NAME -> number token of `#define NAME <integer literal>`."""
    toks = unit.tokens
    out = {}
    for i, t in enumerate(toks):
        if t.kind is Kind.DIRECTIVE and i + 3 < len(toks) and toks[i + 1].text == "define":
            name, val = toks[i + 2], toks[i + 3]
            if (
                val.in_directive
                and val.kind is Kind.NUMBER
                and (
                    i + 4 >= len(toks)
                    or not toks[i + 4].in_directive
                    or toks[i + 4].kind is Kind.DIRECTIVE
                )
                and val.start > name.end
            ):
                if unit.text[name.end : name.end + 1] != "(":
                    out[name.text] = val
    return out


@hazard_pass("HZ106")
def check(unit, ctx):
    toks = unit.tokens
    sync_calls = [c for c in calls(unit, MASKED_SYNC) if c.args]
    if ctx.options.target_rocm < DEFAULT_ON and not unit.is_hip:
        # the warp-sync-legacy rewrite (HP010) drops these masks where it rewrites the call
        legacy = ctx.options.target_rocm < FIRST_WITH_SYNC_BUILTINS
        sync_calls = [
            c
            for c in sync_calls
            if c.name != "__syncwarp" and not (legacy and c.name in _MASK_DROPPED)
        ]
    if not sync_calls:
        return
    defines = None
    var_args = []
    for c in sync_calls:
        a, b = c.args[0]
        arg = toks[a:b]
        text = text_of(unit, a, b)
        where = f"`{c.name}`"
        if len(arg) == 1 and arg[0].kind is Kind.NUMBER:
            tok = arg[0]
            value = int_value(tok.text)
            if value == 0xFFFFFFFF:
                if is_64bit_literal(tok.text):  # 0xffffffffULL: a 64-bit type, 32 lanes
                    message = (
                        f"mask `{tok.text}` passed to {where} names only lanes 0-31 of a "
                        f"64-lane wavefront; the full mask is {FULL64}"
                    )
                else:
                    message = (
                        f"32-bit full mask `{tok.text}` passed to {where}: HIP needs a "
                        f"64-bit mask ({FULL64})"
                    )
                fix = Fix(
                    (Edit(tok.start, tok.end, FULL64, "fix:HZ106"),),
                    f"use the 64-bit full mask {FULL64}",
                    safe=True,
                )
                yield finding(unit, "HZ106", tok.start, tok.end, message, fix)
            elif is_64bit_literal(tok.text):
                continue
            else:
                yield finding(
                    unit,
                    "HZ106",
                    tok.start,
                    tok.end,
                    f"32-bit mask `{tok.text}` passed to {where}: HIP masks are 64-bit "
                    f"and cover 64 lanes; choose the lanes and write a 64-bit literal",
                )
        elif (
            len(arg) == 2
            and arg[0].text == "~"
            and arg[1].kind is Kind.NUMBER
            and int_value(arg[1].text) == 0
            and not is_64bit_literal(arg[1].text)
            and arg[1].text.lower().endswith("u")
        ):
            fix = Fix(
                (Edit(arg[0].start, arg[1].end, FULL64, "fix:HZ106"),),
                f"use the 64-bit full mask {FULL64}",
                safe=True,
            )
            yield finding(
                unit,
                "HZ106",
                arg[0].start,
                arg[1].end,
                f"32-bit full mask `{text}` passed to {where}: HIP needs a 64-bit mask",
                fix,
            )
        elif len(arg) == 1 and arg[0].kind is Kind.IDENT:
            if defines is None:
                defines = _defines(unit)
            val = defines.get(arg[0].text)
            if val is not None:
                if is_64bit_literal(val.text):
                    continue
                fix = None
                if int_value(val.text) == 0xFFFFFFFF:
                    fix = Fix(
                        (Edit(val.start, val.end, FULL64, "fix:HZ106"),),
                        f"define {arg[0].text} as {FULL64}",
                        safe=False,
                    )
                yield finding(
                    unit,
                    "HZ106",
                    arg[0].start,
                    arg[0].end,
                    f"mask macro `{arg[0].text}` ({val.text}) passed to {where} is "
                    f"32-bit: HIP needs a 64-bit mask",
                    fix,
                )
            else:
                var_args.append((c, arg[0]))
    if not var_args:
        return
    for c, t in var_args:
        cur = cursor_at(unit, t.start)
        if cur is None:
            return
        size = cur.type.get_canonical().get_size()
        if 0 < size < 8:
            yield finding(
                unit,
                "HZ106",
                t.start,
                t.end,
                f"mask `{t.text}` of 32-bit type `{cur.type.spelling}` passed to "
                f"`{c.name}`: HIP needs a 64-bit mask (unsigned long long)",
            )
