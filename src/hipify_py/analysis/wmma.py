"""Where a file names CUDA's WMMA API, and what each name is in rocWMMA.

The conversion (``rewrite/wmma_names.py``) and HZ313 read the same sites, so what is renamed
and what is reported cannot drift apart.  The names come from ``mappings/wmma.yaml``, keyed
by their qualified CUDA spelling (``nvcuda::wmma::fragment``): a ``wmma::NAME`` the table does
not list is left alone, because a project may have a namespace of its own called ``wmma``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..mappings import Entry
from .tokens import cached, occurrences

NAMESPACE = "nvcuda::wmma"
# `using namespace nvcuda;` brings in the name `wmma`; the alias keeps every `wmma::` that the
# conversion does not rename (an unsupported name, a macro's argument) naming rocWMMA's
USING_ALIAS = "namespace wmma = rocwmma"


@dataclass(frozen=True)
class WmmaUse:
    index: int  # token index of its first token
    start: int
    end: int
    spelled: str  # as written: `wmma::mma_sync`, `nvcuda::wmma`, `using namespace nvcuda`
    key: str  # the table's name: `nvcuda::wmma::mma_sync`; "" for `using namespace nvcuda`
    entry: Entry | None  # None: a `nvcuda::wmma::` name the table does not know

    @property
    def supported(self) -> bool:
        """Whether rocWMMA has it (the `using` always converts, to USING_ALIAS)."""
        if not self.key:
            return True
        return self.entry is not None and self.entry.status == "supported" and bool(self.entry.hip)

    @property
    def replacement(self) -> str:
        if not self.key:
            return USING_ALIAS
        return self.entry.hip if self.entry is not None and self.entry.hip else self.spelled


def wmma_uses(unit: Unit) -> list[WmmaUse]:
    """Every WMMA name of the file, in order (outside ``#include`` lines)."""
    return cached(unit, "_wmma_uses", lambda: list(_find(unit)))


def _find(unit: Unit) -> list[WmmaUse]:
    if "wmma" not in unit.identifiers and "nvcuda" not in unit.identifiers:
        return []
    toks = unit.tokens
    found = []
    for i in occurrences(unit, ("nvcuda", "wmma")):
        if toks[i].in_directive and unit.directive_word(i) in ("include", "include_next"):
            continue
        span = _span(toks, i)
        if span is None:
            continue
        last, key = span
        entry = unit.mappings.get(key) if key else None
        if toks[i].text == "wmma" and entry is None:
            continue  # someone else's `wmma::` namespace
        first = i - 2 if not key else i
        text = unit.text[toks[first].start : toks[last].end]
        found.append(WmmaUse(first, toks[first].start, toks[last].end, text, key, entry))
    return found


def _span(toks: Sequence[Token], i: int) -> tuple[int, str] | None:
    """(last token, table key) of the WMMA name at ``toks[i]``, or None when it is none."""
    n = len(toks)

    def text(k: int) -> str:
        return toks[k].text if 0 <= k < n else ""

    if text(i - 1) in ("::", ".", "->"):
        return None  # `nvcuda::wmma` is read from its `nvcuda`; a member is no namespace
    if toks[i].text == "nvcuda":
        if text(i - 1) == "namespace" and text(i - 2) == "using" and text(i + 1) == ";":
            return i, ""
        if text(i + 1) != "::" or text(i + 2) != "wmma":
            return None
        if text(i + 3) == "::" and i + 4 < n and toks[i + 4].kind is Kind.IDENT:
            return i + 4, f"{NAMESPACE}::{toks[i + 4].text}"
        return i + 2, NAMESPACE
    if text(i + 1) == "::" and i + 2 < n and toks[i + 2].kind is Kind.IDENT:
        return i + 2, f"{NAMESPACE}::{toks[i + 2].text}"
    return None
