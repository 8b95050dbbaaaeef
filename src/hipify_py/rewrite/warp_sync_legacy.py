"""Warp ``*_sync`` intrinsics for ROCm releases that do not have them (--target-rocm < 6.2).

HIP gained ``__shfl_sync`` and friends in 6.2 (behind ``HIP_ENABLE_WARP_SYNC_BUILTINS``) and
turned them on by default in 7.0; older HIP only has the maskless forms.  On AMD a wavefront
executes in lockstep and HIP has no independent thread scheduling, so the mask carries no
information the maskless form needs: dropping it is the faithful translation.  Each rewrite is
reported, because code that relied on a *partial* mask needs a human.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import Arg, call_args
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
        if tok.start < removed_until or not _is_handled_call(tokens, i):
            continue
        name = tok.text
        if target >= FIRST_WITH_SYNC_BUILTINS and name != "__syncwarp":  # 7.0 added it
            yield _needs_flag(tok, target)
            continue
        args = call_args(tokens, i)
        if name in _MASKLESS_FORMS:
            yield from _MASKLESS_FORMS[name](unit, i, args)
        elif args and len(args) >= 2:
            removed_until = args[1].span(tokens)[0]
            yield from _without_mask(unit, i, args, target)


def _is_handled_call(tokens: Sequence[Token], i: int) -> bool:
    """Token ``i`` names one of the intrinsics (not a member of the same name)."""
    tok = tokens[i]
    if tok.kind is not Kind.IDENT or (i and tokens[i - 1].text in (".", "->", "::")):
        return False
    return tok.text in HANDLED


def _needs_flag(tok: Token, target: tuple[int, ...]) -> Finding:
    """ROCm 6.2-6.4 have the intrinsic, but only with the macro defined."""
    return ENABLE_FLAG.report(
        tok.start,
        tok.end,
        f"`{tok.text}` needs -DHIP_ENABLE_WARP_SYNC_BUILTINS on ROCm {'.'.join(map(str, target))}",
    )


def _wave_barrier(unit: Unit, i: int, args: list[Arg] | None) -> Iterator[Edit | Finding]:
    """``__syncwarp()`` (HIP before 7.0 has none): a wavefront runs in lockstep, so a wave
    barrier keeps the ordering it gives."""
    tokens = unit.tokens
    tok = tokens[i]
    if args is not None and len(args) <= 1:
        close = tokens[i + 1].end if not args else args[-1].span(tokens)[1]
        close = unit.text.index(")", close) + 1
        yield Edit(tok.start, close, "__builtin_amdgcn_wave_barrier()", RULE)
        yield _report(
            tok,
            "`__syncwarp()` became `__builtin_amdgcn_wave_barrier()`: "
            "HIP before 7.0 has no __syncwarp; a wavefront runs in lockstep",
        )


def _ballot_all(unit: Unit, i: int, args: list[Arg] | None) -> Iterator[Edit | Finding]:
    """``__activemask()``: the lanes that vote, which old HIP spells ``__ballot(1)``."""
    tokens = unit.tokens
    tok = tokens[i]
    if args == []:
        close = tokens[i + 2].end
        yield Edit(tok.start, close, "__ballot(1)", RULE)
        yield _report(tok, "`__activemask()` became `__ballot(1)`")


# the intrinsics without a mask argument -> their old-HIP form
_MASKLESS_FORMS: dict[str, Callable[[Unit, int, list[Arg] | None], Iterator[Edit | Finding]]] = {
    "__syncwarp": _wave_barrier,
    "__activemask": _ballot_all,
}


def _without_mask(
    unit: Unit, i: int, args: list[Arg], target: tuple[int, ...]
) -> Iterator[Edit | Finding]:
    """A masked call as its maskless form: the mask (first argument) deleted with its comma."""
    tokens = unit.tokens
    tok = tokens[i]
    name = tok.text
    mask_text = args[0].text(tokens, unit.text)
    yield Edit(tok.start, tok.end, MASKLESS[name], RULE)
    yield Edit(args[0].span(tokens)[0], args[1].span(tokens)[0], "", RULE)
    yield _report(
        tok,
        f"`{name}({mask_text}, ...)` became `{MASKLESS[name]}(...)`: HIP "
        f"{'.'.join(map(str, target))} has no *_sync intrinsics; check the "
        "code if the mask is not the full warp",
    )


def _report(tok: Token, message: str) -> Finding:
    return LEGACY.report(tok.start, tok.end, message)
