"""Which masked warp intrinsic calls the HIP build compiles with their mask: the calls HZ106
reports and ``warp_mask_64`` widens the masks of.  Split from ``warp_mask_64`` (which decides
where each mask comes from) to keep that module under the size bar."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.calls import MASKED_SYNC
from ..context import Context
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Token
from ..frontend.syntax import match_forward, split_args
from ..frontend.unit import Unit
from ._macro_definitions import definition_roles
from .warp_sync_legacy import DEFAULT_ON, FIRST_WITH_SYNC_BUILTINS, MASKLESS


def hip_calls(unit: Unit, ctx: Context) -> list[tuple[str, int, Sequence[Token]]]:
    """The masked calls the HIP build compiles with their mask: not in code it skips (a mask
    declared in shared code and used only under `#ifndef MMCV_WITH_HIP` is CUDA's), not the
    head of a macro that defines the intrinsic, nor a call of an intrinsic the project
    redefines for HIP as a macro of its own (LightGBM's and ggml's maskless `__shfl_*_sync`)."""
    calls = _checked_calls(unit, ctx)
    if not calls:
        return calls
    inactive = inactive_in(unit)
    heads = definition_roles(unit)
    own = ctx.project.hip_macros
    return [
        c
        for c in calls
        if c[0] not in own and c[1] not in heads and unit.tokens[c[1]].start not in inactive
    ]


def _checked_calls(unit: Unit, ctx: Context) -> list[tuple[str, int, Sequence[Token]]]:
    """(name, name token index, mask argument tokens) of every masked intrinsic call that keeps
    its mask in the output (the warp-sync-legacy rewrite drops some for old ROCm)."""
    present = MASKED_SYNC & unit.identifiers
    if not present:
        return []
    out = []
    for name in present:
        if not _keeps_mask(name, unit, ctx):
            continue
        for i in unit.identifier_positions[name]:
            mask = _mask_argument(unit.tokens, i)
            if mask is not None:
                out.append((name, i, mask))
    out.sort(key=lambda c: c[1])
    return out


def _keeps_mask(name: str, unit: Unit, ctx: Context) -> bool:
    """The call keeps its mask in the output: before ROCm 7.0 the warp-sync-legacy rewrite
    turns CUDA's ``__syncwarp`` into a wave barrier, and before 6.2 drops the masks."""
    target = ctx.options.target_rocm
    if target >= DEFAULT_ON or unit.is_hip:
        return True
    if name == "__syncwarp":
        return False
    return target >= FIRST_WITH_SYNC_BUILTINS or name not in MASKLESS


def _mask_argument(toks: Sequence[Token], i: int) -> Sequence[Token] | None:
    """The first argument's tokens when token ``i`` names a free-function call with arguments
    (a member of the same name is someone else's function)."""
    if i + 1 >= len(toks) or toks[i + 1].text != "(":
        return None
    if i and toks[i - 1].text in (".", "->"):
        return None
    close = match_forward(toks, i + 1)
    if close is None:
        return None
    args = split_args(toks, i + 2, close)
    if not args:
        return None
    return toks[args[0].first : args[0].last + 1]
