"""Write `this->` before a call of a member of a class template's dependent base.

cudaKDTree's `knn.h`: `template<int k> struct HeapCandidateList : public CandidateList<k>`, and
`HeapCandidateList<k>::maxRadius2()` returns `decode_dist2(entry[0])`, a member that
`CandidateList<k>` brings in with `using BaseCandidateList::decode_dist2;`.  C++ does not look
into a base that depends on a template parameter; nvcc's front end does, and clang, the HIP
compiler, rejects the call ("explicit qualification required to use member 'decode_dist2' from
dependent base class": 3 silent TUs in compile round 35).  `this->` is what the standard asks
for and means the same to both compilers.  Only a class template of the file whose base names
one of its parameters, and whose base is a class of the same file, is looked at; a name the
derived class declares itself, a parameter or local of the function, a free function of the
file, and a static member function's body are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..analysis.functions import Func, class_bodies, class_head, functions, innermost_bodies
from ..analysis.own_constants import declares_local
from ..analysis.tokens import CONTROL, match, template_close
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind, Token
from ..frontend.syntax import match_angle_backward
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "dependent-base-calls"
_ACCESS = frozenset({"public", "protected", "private", "virtual"})
# words before a `(` in a class body that declare no member function
_NOT_MEMBERS = CONTROL | {"operator", "throw"}
# words a call may follow (after any other word, `NAME(` declares NAME)
_BEFORE_VALUES = frozenset({"return", "else", "case", "throw", "co_return", "do"})


@dataclass(frozen=True)
class _Class:
    name: str
    parameters: frozenset[str]  # the template's parameter names (none: no template)
    bases: tuple[tuple[str, bool], ...]  # (base class name, whether it names a parameter)
    body: tuple[int, int]  # its braces
    functions: frozenset[str]  # the member functions it declares, using-declarations too
    statics: frozenset[str]  # those declared `static`


@rewrite_pass(
    RULE,
    order=14,
    tallies=(Tally(RULE, "dependent_base_calls", "calls into dependent bases given this->"),),
)
def dependent_base_calls(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "template" not in unit.identifiers or not unit.identifiers & {"struct", "class"}:
        return
    classes = {c.name: c for c in _classes(unit)}
    toks = unit.tokens
    funcs = functions(unit)
    by_open = {c.body[0]: c for c in classes.values()}
    inner = innermost_bodies([c.body for c in by_open.values()], (f.open for f in funcs))
    around = {k: by_open[o] for k, o in inner.items()}
    free = {f.name for f in funcs if f.open not in around and toks[f.name_index - 1].text != "::"}
    for f in funcs:
        owner = _owner(unit, f, around.get(f.open), classes)
        if owner is None or f.name in owner.statics or "static" in f.specifiers:
            continue
        inherited = _dependent_members(owner, classes) - owner.functions - free
        for k in range(f.open + 1, f.close):
            tok = toks[k]
            if (
                tok.text in inherited
                and toks[k + 1].text == "("
                and toks[k - 1].text not in (".", "->", "::", "~")
                and (toks[k - 1].kind is not Kind.IDENT or toks[k - 1].text in _BEFORE_VALUES)
                and not declares_local(toks, f, tok.text)
            ):
                yield Edit(tok.start, tok.start, "this->", RULE)


def _classes(unit: Unit) -> Iterator[_Class]:
    """The file's classes that have a name and are templates or bases of one."""
    toks = unit.tokens
    for open_, close in class_bodies(unit):
        head = class_head(toks, open_)
        if head is None:
            continue
        name, colon = head
        members, statics = _member_functions(toks, open_, close)
        yield _Class(
            toks[name].text,
            _parameters(toks, name - 1),
            _bases(toks, colon, open_) if colon is not None else (),
            (open_, close),
            members - {toks[name].text},
            statics,
        )


def _parameters(toks: Sequence[Token], keyword: int) -> frozenset[str]:
    """The names of the template parameters before the class keyword at ``keyword``: the
    words before each `,` / `>` / `=` of `template <...>`."""
    if keyword < 1 or toks[keyword - 1].text != ">":
        return frozenset()
    open_ = match_angle_backward(toks, keyword - 1)
    if open_ is None or open_ < 1 or toks[open_ - 1].text != "template":
        return frozenset()
    return frozenset(
        toks[j].text
        for j in range(open_ + 1, keyword - 1)
        if toks[j].kind is Kind.IDENT and toks[j + 1].text in (",", ">", "=")
    )


def _bases(toks: Sequence[Token], colon: int, open_: int) -> tuple[tuple[str, bool], ...]:
    """Each base of the clause between ``colon`` and ``open_``: its class name (the last word
    before its template arguments) and the words of its arguments."""
    out = []
    start = colon + 1
    depth = 0
    for j in range(colon + 1, open_ + 1):
        text = toks[j].text
        depth += (text == "<") - (text == ">")
        if j == open_ or (text == "," and depth == 0):
            words = [toks[k].text for k in range(start, j) if toks[k].kind is Kind.IDENT]
            words = [w for w in words if w not in _ACCESS]
            if words:
                out.append((words[0], tuple(words[1:])))
            start = j + 1
    return tuple((name, bool(arguments)) for name, arguments in out)


def _member_functions(
    toks: Sequence[Token], open_: int, close: int
) -> tuple[frozenset[str], frozenset[str]]:
    """The functions the class body declares at its own level (`NAME (`, `using X::NAME;`),
    and those of them declared `static`."""
    found, statics = set(), set()
    j = open_ + 1
    statement_static = False
    while j < close:
        text = toks[j].text
        if text in (";", "}"):
            statement_static = False
        elif text == "static":
            statement_static = True
        elif text in ("{", "(", "[") and (end := match(toks, j)) is not None:
            before = toks[j - 1]
            if text == "(" and before.kind is Kind.IDENT and before.text not in _NOT_MEMBERS:
                found.add(before.text)
                if statement_static:
                    statics.add(before.text)
            statement_static = statement_static and text != "{"
            j = end
        elif text == "using" and toks[j + 1].text != "namespace":
            k = j + 1
            while k < close and toks[k].text not in (";", "="):
                k += 1
            if toks[k].text == ";":
                found.add(toks[k - 1].text)
        j += 1
    return frozenset(found), frozenset(statics)


def _owner(unit: Unit, f: Func, around: _Class | None, classes: dict[str, _Class]) -> _Class | None:
    """The class template whose member ``f`` is: defined in its body (``around``: the innermost
    class body around it), or as `NAME<...>::f`."""
    toks = unit.tokens
    if around is not None:
        return around if around.parameters else None
    j = f.name_index - 1
    if j < 2 or toks[j].text != "::" or toks[j - 1].text != ">":
        return None
    open_ = match_angle_backward(toks, j - 1)
    if open_ is None or template_close(toks, open_) != j - 1:
        return None
    owner = classes.get(toks[open_ - 1].text)
    return owner if owner is not None and owner.parameters else None


def _dependent_members(owner: _Class, classes: dict[str, _Class]) -> frozenset[str]:
    """The member functions of ``owner``'s dependent bases of the file, and of their bases
    (a few levels)."""
    found: set[str] = set()
    todo = [name for name, dependent in owner.bases if dependent]
    for _ in range(4):
        base = [classes[name] for name in todo if name in classes]
        found.update(*(c.functions for c in base))
        todo = [name for c in base for name, _dependent in c.bases]
    return frozenset(found)
