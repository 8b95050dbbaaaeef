"""64-bit lane masks for the warp ``*_sync`` intrinsics: a conversion, not a fix.

HIP's ``*_sync`` intrinsics (ROCm >= 6.2) take a 64-bit mask and ``static_assert`` it, so
``__shfl_down_sync(0xffffffff, v, o)`` does not compile for gfx942.  CUDA's ``0xffffffff`` means
"every lane of the warp"; on a 64-lane wavefront that is ``0xffffffffffffffffULL``.  Writing it
that way keeps the meaning and is what makes the code compile, so ``convert`` does it by default
(rule ``mask64``, counted as a conversion).  So is a segment mask of a shuffle every lane runs
(``__shfl_down_sync(0x0000ffff, v, 8, 16)``, ``segment_mask``).  Any other partial mask keeps its
value and only gets a 64-bit type; which lanes take part stays a question for a person (HZ106
reports it).

The change goes where the mask comes from, once: the literal, the ``#define FULL_MASK``, or the
declaration of a 32-bit mask variable (``unsigned m = 0xffffffff;``, ``unsigned m =
__ballot_sync(...)``).  A macro or variable that is also used for something other than a mask
argument is not changed (it could change that other use); HZ106 reports it with an unsafe fix.
``mask_sites`` is the analysis both this pass and HZ106 use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from ..analysis.bit_intrinsics import BIT32, bit_calls_on
from ..analysis.calls import SHUFFLES, Call
from ..analysis.calls import calls as calls_of
from ..analysis.cursor import cursor_at
from ..analysis.declared_types import local_declaration, type_size
from ..analysis.mask_literals import cast_of_all_ones, segment_mask
from ..analysis.values import int_value
from ..analysis.vote_types import VOTES
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass
from ._mask_calls import hip_calls
from ._mask_sites import MaskSite, elsewhere, unresolved, unresolved_once
from .warp_sync_legacy import FIRST_WITH_SYNC_BUILTINS

RULE = "mask64"
# the calls a mask variable or macro is passed to: (intrinsic name, the argument's token)
Uses = list[tuple[str, Token]]
FULL64 = "0xffffffffffffffffULL"
FULL32 = 0xFFFFFFFF

# what a narrow mask variable may be declared as (the words replaced by `unsigned long long`)
# a 32-bit type at the end of a declaration's head, with `std::` or `::` if it has one (a type
# of another namespace, `mylib::uint32_t`, is not the standard one)
_NARROW = re.compile(
    r"(?:^|(?<=[^\w:]))((?:std\s*::\s*|::\s*)?"
    r"(?:unsigned\s+int|unsigned|uint32_t|int32_t|uint|int|unsigned\s+short|short))\s*$"
)
_CONDITIONAL = frozenset({"ifdef", "ifndef", "undef", "if", "elif", "defined"})


def needs_64bit(ctx: Context) -> bool:
    """The target's ``*_sync`` intrinsics take (and static_assert) 64-bit masks."""
    return ctx.options.target_rocm >= FIRST_WITH_SYNC_BUILTINS


def is_wide(text: str) -> bool:
    """The literal's type is 64 bits on Linux: an ``l``/``ll`` suffix or a value over 32 bits."""
    suffix = text[len(text.rstrip("uUlL")) :]
    return "l" in suffix.lower() or (int_value(text) or 0) > FULL32


def widened(text: str) -> str:
    """The same value as a 64-bit literal: ``0xffffu`` -> ``0xffffULL``."""
    return text.rstrip("uUlL") + "ULL"


def mask_sites(unit: Unit, ctx: Context) -> list[MaskSite]:
    """Every 32-bit mask source reaching a ``*_sync`` intrinsic (cached on the unit).

    Code the HIP build never compiles (``#ifndef USE_ROCM``, the CUDA side of a platform test)
    keeps its masks: they are CUDA's, and right there."""
    key = "_mask64_sites"
    if key not in unit.__dict__:
        unit.__dict__[key] = _sites(unit, ctx) if needs_64bit(ctx) else []
    return unit.__dict__[key]


# <stdint.h>'s and <limits.h>'s 64-bit maxima (FBGEMM passes UINT64_MAX, round 23)
_WIDE_STANDARD = frozenset({"UINT64_MAX", "ULLONG_MAX"})


def _sites(unit: Unit, ctx: Context) -> list[MaskSite]:
    calls = hip_calls(unit, ctx)
    if not calls:
        return []
    sites: list[MaskSite] = []
    by_name: dict[str, list[tuple[str, Token]]] = {}
    mask_tokens: set[int] = set()  # start offsets of mask arguments that are a single name
    std = not ({"UINT32_MAX", "UINT_MAX"} & _defines(unit).keys())
    segments = _Segments(unit)
    for name, i, arg in calls:
        literal = segments.of(_literal_site(arg, name, std), i)
        if literal is not None:
            sites.append(literal)
        elif len(arg) == 1 and arg[0].kind is Kind.IDENT:
            by_name.setdefault(arg[0].text, []).append((name, arg[0]))
            mask_tokens.add(arg[0].start)
    if by_name:
        defines = _defines(unit)
        for ident, uses in by_name.items():
            if ident in _WIDE_STANDARD or ident in ctx.project.wide_masks:
                continue  # 64 bits wide in the HIP build
            if ident in defines:
                site = _macro_site(unit, ident, defines[ident], uses, mask_tokens)
                if site is not None:
                    sites.append(site)
            else:
                sites.extend(_variable_sites(unit, uses, mask_tokens, ctx.project.narrow_masks))
    sites.sort(key=lambda s: s.start)
    return sites


def _literal_site(arg: Sequence[Token], name: str, std: bool = False) -> MaskSite | None:
    """A mask written in the call: ``0xffffffff``, ``~0u``, ``-1``, ``0xffff``, all ones
    cast to a 32-bit type (``uint32_t(-1)``), or (``std``: the file does not define them)
    the standard library's ``UINT32_MAX`` / ``UINT_MAX``."""
    texts = [t.text for t in arg]
    if len(arg) == 1 and arg[0].kind is Kind.NUMBER:
        tok = arg[0]
        value = int_value(tok.text)
        if value is None:
            return None
        if is_wide(tok.text):
            if value != FULL32:
                return None
            # 0xffffffffULL compiles but names lanes 0-31 only: a behaviour question (HZ106)
            return MaskSite("full-ull", tok.start, tok.end, tok.text, (name,))
        if value == FULL32:
            edit = Edit(tok.start, tok.end, FULL64, RULE)
            return MaskSite("full", tok.start, tok.end, tok.text, (name,), (edit,), True, False)
        edit = Edit(tok.start, tok.end, widened(tok.text), RULE)
        return MaskSite("partial", tok.start, tok.end, tok.text, (name,), (edit,), True, True)
    full = (
        len(arg) == 2
        and arg[1].kind is Kind.NUMBER
        and not is_wide(arg[1].text)
        and (
            (texts[0] == "~" and int_value(arg[1].text) == 0)
            or (texts[0] == "-" and int_value(arg[1].text) == 1)
        )
    )
    if full or cast_of_all_ones(texts) or (texts in (["UINT32_MAX"], ["UINT_MAX"]) and std):
        edit = Edit(arg[0].start, arg[-1].end, FULL64, RULE)
        text = "".join(texts)
        return MaskSite("full", arg[0].start, arg[-1].end, text, (name,), (edit,), True, False)
    return None


@dataclass
class _Segments:
    """Turns a partial mask that is a segment mask (``segment_mask``) into the full mask."""

    unit: Unit

    @cached_property
    def shuffles(self) -> dict[int, Call]:
        """The file's shuffles by name token (found at the first partial mask)."""
        return {c.index: c for c in calls_of(self.unit, SHUFFLES)}

    def of(self, site: MaskSite | None, i: int) -> MaskSite | None:
        """``site``, the mask of the call whose name is token ``i``, or its full mask."""
        if site is None or site.kind != "partial" or i not in self.shuffles:
            return site
        if segment_mask(self.unit, self.shuffles[i], int_value(site.text) or 0):
            edit = Edit(site.start, site.end, FULL64, RULE)
            return MaskSite(
                "segment", site.start, site.end, site.text, site.uses, (edit,), True, False
            )
        return site


def _defines(unit: Unit) -> dict[str, list[Token]]:
    """NAME -> value tokens of every object-like ``#define NAME <integer literal>``."""
    toks = unit.tokens
    out: dict[str, list[Token]] = {}
    for i in unit.directives:
        if i + 3 >= len(toks) or toks[i + 1].text != "define":
            continue
        name, val = toks[i + 2], toks[i + 3]
        if not (val.in_directive and val.kind is Kind.NUMBER and val.start > name.end):
            continue
        if unit.text[name.end : name.end + 1] == "(":
            continue  # function-like
        nxt = toks[i + 4] if i + 4 < len(toks) else None
        if nxt is not None and nxt.in_directive and nxt.kind is not Kind.DIRECTIVE:
            continue  # more than one token
        out.setdefault(name.text, []).append(val)
    return out


def _directive_keyword(toks: Sequence[Token], i: int) -> str:
    while i > 0 and toks[i].kind is not Kind.DIRECTIVE:
        i -= 1
    return toks[i + 1].text if i + 1 < len(toks) else ""


def _macro_site(
    unit: Unit, ident: str, values: list[Token], uses: Uses, mask_tokens: set[int]
) -> MaskSite | None:
    """``#define FULL_MASK 0xffffffff``: reported and fixed at the definition, once."""
    if any(is_wide(v.text) for v in values):
        return None  # a per-platform definition already gives HIP a 64-bit mask
    val = values[-1]
    value = int_value(val.text)
    if value is None:
        return None
    toks = unit.tokens
    other = 0
    for k in unit.identifier_positions[ident]:
        tok = toks[k]
        if tok.start in mask_tokens:
            continue
        if tok.in_directive:
            keyword = _directive_keyword(toks, k)
            if keyword in _CONDITIONAL or (keyword == "define" and toks[k - 1].text == "define"):
                continue
        if k > 0 and toks[k - 1].text == "defined":
            continue
        other += 1
    new = FULL64 if value == FULL32 else widened(val.text)
    edits = tuple(Edit(v.start, v.end, new, RULE) for v in values)
    names = tuple(dict.fromkeys(n for n, _ in uses))
    detail = val.text
    if other:
        detail += f"; `{ident}` is also used {other} time(s) outside mask arguments"
    return MaskSite(
        "macro",
        val.start,
        val.end,
        ident,
        names,
        edits,
        default=not other,
        open=bool(other) or value != FULL32,
        detail=detail,
    )


def _variable_sites(
    unit: Unit, uses: Uses, mask_tokens: set[int], narrow: frozenset[str]
) -> list[MaskSite]:
    """Masks held in variables: one site per declaration of a 32-bit type.  The parse sees the
    CUDA build's typedefs; a mask type chosen per platform is read as the HIP build sees it
    (pyg-lib's `#ifdef USE_ROCM using warp_mask_t = unsigned long long;`, round 15)."""
    import clang.cindex as ci

    ast = unit.ast
    if ast is None:
        return []
    groups: dict[tuple[int, str], tuple[_Declared, list[str]]] = {}
    lost: list[MaskSite] = []  # uses the parse could not resolve, declared in no way seen here
    for name, tok in uses:
        cur = cursor_at(unit, tok.start)
        decl = cur.referenced if cur is not None else None
        if cur is None or decl is None:
            local = _narrow_local(unit, tok)
            if local is not None:  # the parse lost the use: its declaration, from tokens
                groups.setdefault((local[0], tok.text), (local[1], []))[1].append(name)
                continue
            site = unresolved(unit, tok, name, narrow)
            if site is not None:
                lost.append(site)
            continue
        # a typedef chosen per platform (`#ifdef USE_ROCM`) is the HIP build's, not the parse's
        size = type_size(unit, cur.type.spelling) or cur.type.get_canonical().get_size()
        if not 0 < size < 8:
            continue
        where = ast.offset(decl.location)
        if where < 0:
            lost.append(
                elsewhere(tok, name, f"declared outside this file as `{cur.type.spelling}`")
            )
            continue
        declared = _Declared(cur.type.spelling, decl.kind == ci.CursorKind.PARM_DECL)
        groups.setdefault((where, tok.text), (declared, []))[1].append(name)
    out = []
    for (where, ident), (declared, names) in groups.items():
        unique = tuple(dict.fromkeys(names))
        found = _declaration_site(unit, ident, where, declared, unique, mask_tokens)
        if found is not None:
            out.append(found)
    return out + unresolved_once(lost, {s.text for s in out})


class _Declared(NamedTuple):
    """A mask variable's declared type, and whether it is a parameter."""

    spelling: str
    is_param: bool


def _narrow_local(unit: Unit, tok: Token) -> tuple[int, _Declared] | None:
    """Where the function around ``tok`` declares the variable it uses with a type narrower
    than 64 bits, read from tokens (the parse lost the use: rwatling's `unsigned int mask =
    0xffffffff;` beside `__shfl_down_sync(mask, v, d, WARP_SIZE)`, `WARP_SIZE` from a header
    the parse does not open, hazard round 49); the declaration's offset and type."""
    local = local_declaration(unit, tok)
    size = type_size(unit, local.type) if local is not None else None
    if local is None or size is None or not 0 < size < 8:
        return None
    return unit.tokens[local.name].start, _Declared(local.type, False)


def _declaration_site(
    unit: Unit,
    ident: str,
    where: int,
    declared: _Declared,
    names: tuple[str, ...],
    mask_tokens: set[int],
) -> MaskSite | None:
    toks = unit.tokens
    k = unit.first_token_from(where)
    if k >= len(toks) or toks[k].start != where or toks[k].text != ident:
        return None
    spelling, is_param = declared
    # the declaration's head: tokens back to the statement or parameter boundary, or to a
    # directive line (FBGEMM's `#else` before the CUDA build's declaration, round 23)
    first = k
    while (
        first > 0
        and toks[first - 1].text not in (";", "{", "}", ",", "(", ")")
        and not toks[first - 1].in_directive
    ):
        first -= 1
    head = unit.text[toks[first].start : toks[k].start] if first < k else ""
    init, single = _initializer(toks, k, is_param)
    edits: list[Edit] = []
    m = _NARROW.search(head)
    words = head.split()
    from_vote = bool(init) and init[0].text in VOTES
    if "auto" in words and from_vote:
        return None  # the parse's stub types a vote as int; auto takes HIP's 64-bit type
    if m is not None:
        base = toks[first].start
        edits.append(Edit(base + m.start(1), base + m.end(1), "unsigned long long", RULE))
    elif "auto" not in words:
        return MaskSite("variable", toks[k].start, toks[k].end, ident, names, detail=spelling)
    full, widen = _widened_initializer(init, "auto" in words)
    edits.extend(widen)
    if edits:  # `__ffs(mask)` on the widened mask is an ambiguous call: use the 64-bit forms
        edits.extend(
            Edit(toks[c.index].start, toks[c.index].end, BIT32[c.name], RULE)
            for c in bit_calls_on(unit, k)
        )
    reasons = []
    if is_param:
        reasons.append("a parameter: callers may pass a 32-lane mask")
    # every other use of the name must be a mask argument for the change to be a conversion
    other = _other_uses(unit, ident, k, where, mask_tokens)
    if other:
        reasons.append(f"`{ident}` is also used {other} time(s) outside mask arguments")
    if not single:
        reasons.append("declared together with other names")
    start = toks[first].start if first < k else toks[k].start
    end = init[-1].end if init else toks[k].end
    return MaskSite(
        "variable",
        start,
        end,
        ident,
        names,
        tuple(edits),
        default=not reasons,
        open=bool(reasons) or not (full or from_vote),
        detail="; ".join([spelling, *reasons]),
    )


def _initializer(toks: Sequence[Token], k: int, is_param: bool) -> tuple[list[Token], bool]:
    """The initializer of the variable declared at token k (`= <tokens>` up to `;` or `,` at
    depth 0), and whether the declaration declares that one name only."""
    init: list[Token] = []
    single = True
    j = k + 1
    if not is_param and j < len(toks) and toks[j].text in ("=", "(", "{"):
        depth = 0
        j += toks[j].text == "="
        while j < len(toks):
            t = toks[j].text
            if t in "([{" and toks[j].kind is Kind.PUNCT:
                depth += 1
            elif t in ")]}" and toks[j].kind is Kind.PUNCT:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and t in (";", ","):
                single = t == ";"
                break
            init.append(toks[j])
            j += 1
    elif not is_param and j < len(toks):
        single = toks[j].text == ";"
    return init, single


def _widened_initializer(init: list[Token], auto: bool) -> tuple[bool, list[Edit]]:
    """(whether the initializer is the full 32-bit mask, the edits that make it 64-bit): a
    literal `0xffffffff`, `~0`, `-1`, or any literal of an `auto` variable."""
    if len(init) == 1 and init[0].kind is Kind.NUMBER and not is_wide(init[0].text):
        full = int_value(init[0].text) == FULL32
        if full or auto:
            text = FULL64 if full else widened(init[0].text)
            return full, [Edit(init[0].start, init[0].end, text, RULE)]
        return full, []
    if (
        len(init) == 2
        and init[0].text in ("~", "-")
        and init[1].kind is Kind.NUMBER
        and int_value(init[1].text) == (0 if init[0].text == "~" else 1)
    ):
        return True, [Edit(init[0].start, init[1].end, FULL64, RULE)]
    return False, []


def _other_uses(unit: Unit, ident: str, k: int, where: int, mask_tokens: set[int]) -> int:
    """Uses of the variable declared at token k (offset ``where``) that are not mask
    arguments."""
    ast = unit.ast
    if ast is None:  # the declaration came from the AST, so there is one
        return 0
    toks = unit.tokens
    other = 0
    for p in unit.identifier_positions[ident]:
        tok = toks[p]
        if p == k or tok.start in mask_tokens or tok.in_directive:
            continue
        cur = cursor_at(unit, tok.start)
        ref = cur.referenced if cur is not None else None
        if ref is not None and ast.offset(ref.location) == where:
            other += 1
    return other


@rewrite_pass(
    "warp-mask-64", order=45, tallies=(Tally(RULE, "warp_masks_widened", "warp masks made 64-bit"),)
)
def widen_masks(unit: Unit, ctx: Context) -> Iterator[Edit]:
    for site in mask_sites(unit, ctx):
        if site.default:
            yield from site.edits
