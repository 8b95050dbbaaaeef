"""``x = {};`` on a ``half2`` variable becomes ``x = decltype(x){};``.

nvcc resolves ``res2 = {};`` on CUDA's ``__half2`` to its copy assignment; HIP's ``__half2``
(ROCm 7.2.4) also assigns from ``__half2_raw``, so clang rejects it as ambiguous ("use of
overloaded operator '=' is ambiguous ... and 'void'", HeCBench ``quant3MatMul``).  A
value-initialised temporary of the variable's own type (what the empty list meant) picks the
copy assignment; ``decltype(x)`` names that type whatever the renames make of its spelling.
(``__half``/``__nv_bfloat16`` are ambiguous in CUDA as well, ``__hip_bfloat162`` and the
vector types are not in HIP.)  Only plain variables declared in the file as ``half2`` (no
pointer, reference or array) are rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "half-brace-assign"

# the spellings of the type whose HIP counterpart makes `= {}` ambiguous where CUDA's is not
HALF_TYPES = frozenset({"__half2", "half2"})
_STATEMENT_START = frozenset({";", "{", "}", ")", ":"})


def _declared_half(toks: Sequence[Token], name: str, before: int) -> bool:
    """The last declaration of ``name`` before token ``before`` is ``half2 name`` (``;``,
    ``=``, ``,``, ``{`` or ``)`` after the name; no ``*``, ``&`` or ``[``)."""
    declared = False
    for k in range(1, before):
        t = toks[k]
        if t.kind is not Kind.IDENT or t.text != name or t.in_directive:
            continue
        if toks[k + 1].text not in (";", "=", ",", "{", ")"):
            continue
        prev = toks[k - 1]
        if prev.kind is Kind.IDENT and prev.text not in ("return", "case"):
            declared = prev.text in HALF_TYPES
    return declared


@rewrite_pass("half-brace-assign", order=26)
def half_brace_assign(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if not HALF_TYPES & unit.identifiers:
        return
    toks = unit.tokens
    for i in range(1, len(toks) - 4):
        if toks[i].text != "=" or toks[i + 1].text != "{" or toks[i + 2].text != "}":
            continue
        name = toks[i - 1]
        if name.kind is not Kind.IDENT or name.in_directive or toks[i + 3].text != ";":
            continue
        if toks[i - 2].text not in _STATEMENT_START:
            continue  # a declaration (`half2 x = {}` is fine) or a member/element
        if _declared_half(toks, name.text, i - 1):
            yield Edit(toks[i + 1].start, toks[i + 1].start, f"decltype({name.text})", RULE)
