"""Warp ``*_sync`` intrinsics for ROCm releases that do not have them (--target-rocm < 6.2).

HIP gained ``__shfl_sync`` and friends in 6.2 (behind ``HIP_ENABLE_WARP_SYNC_BUILTINS``) and
turned them on by default in 7.0; older HIP only has the maskless forms.  On AMD a wavefront
executes in lockstep and HIP has no independent thread scheduling, so the mask carries no
information the maskless form needs: dropping it is the faithful translation.  Each rewrite is
reported, because code that relied on a *partial* mask needs a human.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import call_args
from ..frontend.unit import Unit
from ..rules import Tally, declare_rule, rewrite_pass

RULE = "warp-sync-legacy"
FIRST_WITH_SYNC_BUILTINS = (6, 2)
DEFAULT_ON = (7, 0)

# *_sync intrinsic -> maskless HIP name (the mask is always the first argument)
MASKLESS = {
    "__shfl_sync": "__shfl",
    "__shfl_up_sync": "__shfl_up",
    "__shfl_down_sync": "__shfl_down",
    "__shfl_xor_sync": "__shfl_xor",
    "__ballot_sync": "__ballot",
    "__any_sync": "__any",
    "__all_sync": "__all",
}

HANDLED = frozenset(MASKLESS) | {"__activemask", "__syncwarp"}

LEGACY = declare_rule(
    "HP010",
    "warp-sync-for-old-rocm",
    Severity.INFO,
    "A warp *_sync intrinsic was rewritten for a ROCm without it.",
    """
    ## What it detects
    With `--target-rocm` below 6.2, every `__shfl*_sync`, `__ballot_sync`, `__any_sync`,
    `__all_sync` and `__activemask()` is rewritten to the maskless HIP form
    (`__shfl_down(v, d)`, `__ballot(p)`, ...), and each rewrite is reported.

    ## Why it breaks on AMD
    HIP before 6.2 has no `*_sync` warp intrinsics; 6.2 has them only with
    `-DHIP_ENABLE_WARP_SYNC_BUILTINS`; 7.0 enables them by default. A wavefront on AMD runs
    in lockstep, so a full mask means the same as no mask. A *partial* mask does not: code
    that shuffles within a subset of lanes must be checked by hand.

    ## Example
    ```cpp
    v += __shfl_down_sync(0xffffffff, v, offset);   // CUDA
    v += __shfl_down(v, offset);                   // emitted for --target-rocm 5.2
    ```

    ## How to fix
    Nothing to do for full masks. For partial masks, restructure the code so that all lanes
    of the wavefront take part, or target ROCm 7 where the masked forms exist.
    """,
)
ENABLE_FLAG = declare_rule(
    "HP011",
    "warp-sync-needs-flag",
    Severity.WARNING,
    "ROCm 6.2-6.4 need -DHIP_ENABLE_WARP_SYNC_BUILTINS for warp *_sync intrinsics.",
    """
    ## What it detects
    A warp `*_sync` intrinsic in code converted for `--target-rocm` 6.2 to 6.4.

    ## Why it breaks on AMD
    These ROCm releases ship the intrinsics disabled; without the macro the build fails
    with an undeclared identifier. ROCm 7.0 enables them by default.

    ## Example
    ```cpp
    unsigned long long m = __ballot_sync(__activemask(), x > 0);
    ```

    ## How to fix
    Compile with `-DHIP_ENABLE_WARP_SYNC_BUILTINS` (PyTorch's extension builder already
    passes it), or target ROCm 7.
    """,
)


@rewrite_pass(
    "warp-sync-legacy",
    order=40,
    tallies=(Tally(RULE, "legacy_warp_calls_rewritten", "warp calls made maskless (old ROCm)"),),
)
def warp_sync_legacy(unit: Unit, ctx: Context) -> Iterator[Edit | Finding]:
    target = ctx.options.target_rocm
    if target >= DEFAULT_ON or not (unit.identifiers & HANDLED):
        return
    tokens = unit.tokens
    removed_until = -1  # end of a mask argument already deleted (it may hold __activemask())
    for i, tok in enumerate(tokens):
        if tok.kind is not Kind.IDENT or (i and tokens[i - 1].text in (".", "->", "::")):
            continue
        if tok.start < removed_until:
            continue
        name = tok.text
        if name not in HANDLED:
            continue
        if target >= FIRST_WITH_SYNC_BUILTINS and name != "__syncwarp":  # 7.0 added it
            yield ENABLE_FLAG.report(
                tok.start,
                tok.end,
                f"`{name}` needs -DHIP_ENABLE_WARP_SYNC_BUILTINS on ROCm "
                f"{'.'.join(map(str, target))}",
            )
            continue
        args = call_args(tokens, i)
        if name == "__syncwarp":
            if args is not None and len(args) <= 1:
                close = tokens[i + 1].end if not args else args[-1].span(tokens)[1]
                close = unit.text.index(")", close) + 1
                yield Edit(tok.start, close, "__builtin_amdgcn_wave_barrier()", RULE)
                yield _report(
                    tok,
                    "`__syncwarp()` became `__builtin_amdgcn_wave_barrier()`: "
                    "HIP before 7.0 has no __syncwarp; a wavefront runs in lockstep",
                )
            continue
        if name == "__activemask":
            if args == []:
                close = tokens[i + 2].end
                yield Edit(tok.start, close, "__ballot(1)", RULE)
                yield _report(tok, "`__activemask()` became `__ballot(1)`")
            continue
        if not args or len(args) < 2:
            continue
        mask_text = args[0].text(tokens, unit.text)
        yield Edit(tok.start, tok.end, MASKLESS[name], RULE)
        removed_until = args[1].span(tokens)[0]
        yield Edit(args[0].span(tokens)[0], removed_until, "", RULE)
        yield _report(
            tok,
            f"`{name}({mask_text}, ...)` became `{MASKLESS[name]}(...)`: HIP "
            f"{'.'.join(map(str, target))} has no *_sync intrinsics; check the "
            "code if the mask is not the full warp",
        )


def _report(tok: Token, message: str) -> Finding:
    return LEGACY.report(tok.start, tok.end, message)
