"""A zero-initialised variable-length array becomes a plain one cleared by ``__builtin_memset``.

nvcc's host compiler (GCC) accepts ``int seen[n]{0};`` for a run-time ``n`` (a GNU extension);
clang, the HIP compiler, rejects every initialiser of a variable-length array ("variable-sized
object may not be initialized"), also ``= {}``.  MASS-CUDA's ``BrainGrid.cu`` (compile round 42:
a silent TU).  For an arithmetic or pointer element, zero bytes are the zero value the list
meant, so ``int seen[n]; __builtin_memset(seen, 0, sizeof(seen));`` keeps the program's meaning
(clang and GCC both take ``sizeof`` of such an array at run time).  An array is sized at run
time where a dimension names a parameter of its function or a local the function declares
without `const` (the hermetic parse often cannot read such a function: BrainGrid's
`BrainGrid::runMassSim` belongs to a class of a header it does not see).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, function_at, parameter_names
from ..analysis.type_sizes import SIZEOF
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "vla-zero-init"

_ZERO = frozenset({"0", "0.0", "0.f", "0.0f", "0u", "0U", "false", "nullptr", "NULL"})
_QUALIFIERS = frozenset({"const", "volatile", "static"})


@rewrite_pass("vla-zero-init", order=27)
def vla_zero_init(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for k in range(len(toks) - 3):
        found = _zero_list(toks, k)
        if found is None:
            continue
        name, close, end = found
        func = function_at(unit, name)
        if func is None or not _run_time_sized(unit, func, name + 1, close):
            continue
        text = toks[name].text
        yield Edit(toks[close].end, toks[end - 1].end, "", RULE)
        yield Edit(
            toks[end].end, toks[end].end, f" __builtin_memset({text}, 0, sizeof({text}));", RULE
        )


def _run_time_sized(unit: Unit, func: Func, first: int, end: int) -> bool:
    """A dimension in tokens [first, end) names a parameter of ``func`` or a local it declares
    before without `const`/`constexpr` (`int n = 0;`, `int n;`)."""
    toks = unit.tokens
    names = {t.text for t in toks[first:end] if t.kind is Kind.IDENT}
    if not names:
        return False
    params = set(parameter_names(toks, func))
    if names & params:
        return True
    for k in range(func.open + 1, first):
        t = toks[k]
        if t.text in names and toks[k + 1].text in ("=", ";", "{", "(") and _plain_local(toks, k):
            return True
    return False


def _plain_local(toks: Sequence[Token], k: int) -> bool:
    """Token ``k`` is the name in a declaration of a variable without `const`/`constexpr`:
    the words before it, back to the statement's start, are an arithmetic type."""
    return " ".join(_words_before(toks, k)) in SIZEOF


def _words_before(toks: Sequence[Token], k: int) -> list[str]:
    """The tokens before token ``k`` back to a statement's (or a parameter list's) start."""
    j = k
    while j > 0 and toks[j - 1].text not in (";", "{", "}", ")", ":"):
        j -= 1
    return [t.text for t in toks[j:k]]


def _zero_list(toks: Sequence[Token], k: int) -> tuple[int, int, int] | None:
    """At token ``k``, the ``]`` of ``T name[...]`` followed by ``{0}``, ``{}``, ``= {0}`` or
    ``= {}`` and ``;``, in a statement of one declarator whose element is arithmetic or a
    pointer: (name, the ``]``, the ``;``)."""
    if toks[k].text != "]" or toks[k].in_directive:
        return None
    j = k + 1
    if toks[j].text == "=":
        j += 1
    if j >= len(toks) or toks[j].text != "{":
        return None
    close = j + 1 if toks[j + 1].text == "}" else j + 2
    if close >= len(toks) - 1 or toks[close].text != "}" or toks[close + 1].text != ";":
        return None
    if close == j + 2 and toks[j + 1].text not in _ZERO:
        return None
    opening = _declarator_open(toks, k)
    if opening is None or toks[opening - 1].kind is not Kind.IDENT:
        return None
    name = opening - 1
    return (name, k, close + 1) if _plain_element(toks, name) else None


def _declarator_open(toks: Sequence[Token], k: int) -> int | None:
    """The ``[`` of the first dimension of the declarator whose last ``]`` is token ``k``."""
    depth, j = 0, k
    while j > 0:
        text = toks[j].text
        depth += {"]": 1, "[": -1}.get(text, 0)
        if depth == 0 and text == "[" and toks[j - 1].text != "]":
            return j
        if text in (";", "{", "}"):
            return None
        j -= 1
    return None


def _plain_element(toks: Sequence[Token], name: int) -> bool:
    """The words before ``name`` spell an arithmetic type or a pointer (``int``, ``unsigned
    long long``, ``float*``), `static`/`const`/`volatile` aside: zero bytes are its zero."""
    words = _words_before(toks, name)
    if not words or "," in words:
        return False
    return words[-1] == "*" or " ".join(w for w in words if w not in _QUALIFIERS) in SIZEOF
