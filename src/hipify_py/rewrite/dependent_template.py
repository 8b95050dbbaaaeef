"""Add the ``template`` keyword to a call of a member template through a dependent qualifier.

In a template, ``vec_cast<To, From>::cast<N>(dst, src)`` names the member template ``cast`` of a
class that depends on the template's parameters; C++ requires ``::template cast<N>`` there.
nvcc's front end accepts the call without the keyword (FlashInfer's ``vec_dtypes.cuh``, copied
into many LLM-kernel projects, relies on it); clang, the HIP compiler, parses ``cast < N >
(...)`` as comparisons and fails ("reference to overloaded function could not be resolved").
The keyword is what the standard asks for and changes nothing for a compiler that did not need
it, so the port writes it.  Only calls whose member name the file declares as a template and
whose qualifier's arguments name a template parameter of the file are rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import body_follows
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "dependent-template"


def _closing_angle(toks: Sequence, at: int, limit: int = 60) -> int | None:
    """Index of the '>' closing the '<' at ``at`` (None past ``limit`` tokens or a ';')."""
    depth = 0
    for j in range(at, min(len(toks), at + limit)):
        text = toks[j].text
        if text in (";", "{", "}"):
            return None
        depth += text == "<"
        depth -= text == ">"
        depth -= 2 * (text == ">>")
        if depth <= 0:
            return j if depth == 0 else None
    return None


def _templates(unit: Unit) -> tuple[set[str], set[str]]:
    """(names of the function templates the file declares, its template parameters' names)."""
    toks = unit.tokens
    functions: set[str] = set()
    params: set[str] = set()
    for i in unit.identifier_positions.get("template", ()):
        if i + 1 >= len(toks) or toks[i + 1].text != "<":
            continue
        close = _closing_angle(toks, i + 1)
        if close is None:
            continue
        for j in range(i + 2, close):
            if toks[j].kind is Kind.IDENT and toks[j + 1].text in (",", ">", "="):
                params.add(toks[j].text)
        for j in range(close + 1, min(len(toks) - 1, close + 30)):
            if toks[j].text in (";", "{", "=", "<"):
                break
            if toks[j].kind is Kind.IDENT and toks[j + 1].text == "(":
                functions.add(toks[j].text)
                break
    return functions, params


@rewrite_pass("dependent-template", order=13)
def dependent_template(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "template" not in unit.identifiers:
        return
    toks = unit.tokens
    functions, params = _templates(unit)
    for name in functions & unit.identifiers:
        for i in unit.identifier_positions[name]:
            if i < 3 or i + 1 >= len(toks) or toks[i].in_directive:
                continue
            if toks[i - 1].text != "::" or toks[i + 1].text != "<" or toks[i - 2].text != ">":
                continue
            depth, k = 0, i - 2  # back to the '<' opening the qualifier's arguments
            while k > 0:
                depth += toks[k].text == ">"
                depth -= toks[k].text == "<"
                if depth == 0 or toks[k].text in (";", "{", "}"):
                    break
                k -= 1
            if depth or not any(t.text in params for t in toks[k + 1 : i - 2]):
                continue
            close = _closing_angle(toks, i + 1)
            if close is not None and close + 1 < len(toks) and body_follows(unit, close + 1):
                continue  # the name a definition declares (`A<T>::f<E>(...) {`), not a call
            yield Edit(toks[i].start, toks[i].start, "template ", RULE)
