"""A 32-bit mask that reaches a ``*_sync`` intrinsic (``MaskSite``), and the ones whose
definition the parse could not resolve: a header's macro or variable, reported at the use
(``warp_mask_64`` finds the rest)."""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis.declared_types import local_declaration, parameter_size, type_size
from ..analysis.vote_types import holds_a_vote
from ..edits import Edit
from ..frontend.lexer import Token
from ..frontend.unit import Unit


@dataclass(frozen=True)
class MaskSite:
    """One source of a 32-bit mask that reaches a ``*_sync`` intrinsic, and its fix point.

    ``start``/``end`` is where to report (the literal, the ``#define`` value, the declaration);
    ``uses`` are the call names it reaches.  ``edits`` widen it to 64 bits (empty: nothing for
    the conversion to change).  ``default``: the edits keep the meaning and are needed to
    compile, so ``convert`` applies them.  ``open``: a question remains after the edits (a
    partial mask).
    """

    kind: str  # "full" | "full-ull" | "partial" | "segment" | "macro" | "variable" | "elsewhere"
    start: int
    end: int
    text: str  # the mask literal, macro name or variable name
    uses: tuple[str, ...]
    edits: tuple[Edit, ...] = ()
    default: bool = False
    open: bool = True
    detail: str = ""  # the macro's value or variable's type; why there is no conversion


def elsewhere(tok: Token, name: str, detail: str) -> MaskSite:
    """A mask whose 32-bit definition is not in this file: reported at the use, not fixed."""
    return MaskSite("elsewhere", tok.start, tok.end, tok.text, (name,), detail=detail)


def unresolved(unit: Unit, tok: Token, name: str, narrow: frozenset[str]) -> MaskSite | None:
    """A mask the parse could not resolve (a header's macro or variable) unless the tokens show
    a parameter of a type 64 bits wide in the HIP build; a macro the tree defines as a 32-bit
    number only (``narrow``) is known 32-bit."""
    if tok.text in narrow:
        detail = "declared 32-bit by the tree's `#define` of it: make that definition 64-bit"
        return elsewhere(tok, name, detail)
    size = parameter_size(unit, tok)
    if size == 8:
        return None  # pytorch_scatter's `warp_mask_t mask`: 64-bit where USE_ROCM
    if size is not None:  # mmcv's `__shfl_sync(unsigned mask, ...)` wrapper
        return elsewhere(tok, name, f"declared as a {size * 8}-bit parameter of this function")
    local = local_declaration(unit, tok)
    if local is not None:  # a 32-bit one is a site of its own (``_narrow_local``)
        size = type_size(unit, local.type)
        if size == 8 or ("auto" in local.type.split() and holds_a_vote(unit, tok.text)):
            return None
        # nvdiffrast's `U32 actMask = __ballot_sync(...)`, U32 a typedef of another file
        detail = f"of type `{local.type}` (declared at line {local.line}; a type of another file)"
        return elsewhere(tok, name, f"{detail}; if it is 32-bit, declare the mask 64-bit")
    detail = "defined outside this file (e.g. `#define FULL_MASK 0xffffffff` in a header)"
    return elsewhere(tok, name, f"{detail}; if it is 32-bit, make that definition 64-bit")


def unresolved_once(elsewhere: list[MaskSite], declared: set[str]) -> list[MaskSite]:
    """A header's mask once, not at every use; none for a use the parse could not resolve of
    a variable whose declaration in this file is a site already (``declared``: arrayfire's
    namespace-scope `constexpr unsigned int FULL_MASK`, warp's local mask, both widened
    there; round 13)."""
    once: dict[str, MaskSite] = {}
    for site in elsewhere:
        if site.text not in declared:
            once.setdefault(site.text, site)
    return list(once.values())
