"""The types declarations name, read from tokens: the byte size of an integer type as the HIP
build sees it (through the file's typedefs and `using` aliases), and the declared type of a
parameter or local that the parse could not resolve."""

from __future__ import annotations

from typing import NamedTuple

from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .functions import function_at
from .tokens import cached, match
from .type_sizes import words_size
from .vote_types import vote_typed

# words of a declaration that do not change its type's size (`constexpr unsigned int`)
_QUALIFIERS = frozenset(
    {"const", "volatile", "constexpr", "static", "inline", "__device__", "__constant__"}
)


def type_size(unit: Unit, declared: str) -> int | None:
    """Size in bytes of a declared integer type written as words (`unsigned long long`,
    `uint32_t`, a `lane_mask_t` typedef), as the HIP/AMD build sees it: a typedef chosen per
    platform resolves to its definition in code HIP compiles.  None when unknown."""
    if "decltype" in declared:
        return 8 if vote_typed(unit, declared) else None
    words = [
        w.removeprefix("::").removeprefix("std::")  # `std::uint32_t`
        for w in declared.replace("*", " * ").split()
        if w not in _QUALIFIERS
    ]
    if not words or "*" in words:
        return None
    size = words_size(words)
    if size is None and len(words) == 1:
        target = typedefs(unit).get(words[0])
        return type_size(unit, target) if target and target != words[0] else None
    return size


def parameter_size(unit: Unit, tok: Token) -> int | None:
    """Size in bytes, as the HIP build sees it, of the parameter ``tok`` names in the function
    around it (read from tokens, where the parse could not resolve the use); None if ``tok``
    names no parameter or the type is unknown."""
    func = function_at(unit, unit.token_covering(tok.start))
    if func is None:
        return None
    toks = unit.tokens
    for k in range(func.params[0] + 1, func.params[1]):
        if toks[k].text == tok.text and toks[k + 1].text in (",", ")", "="):
            first = k
            while first > func.params[0] + 1 and toks[first - 1].text not in (",", "("):
                first -= 1
            return type_size(unit, unit.text[toks[first].start : toks[k].start])
    return None


class LocalDeclaration(NamedTuple):
    """A local variable's declaration read from tokens: its type as written, its line and the
    token that names it."""

    type: str
    line: int
    name: int


def local_declaration(unit: Unit, tok: Token) -> LocalDeclaration | None:
    """The declaration of the variable ``tok`` names, in the body of the function around it
    before ``tok`` (`const uint32_t mask = 0xffffffff;`), read from tokens where the parse
    could not resolve the use; None if there is none."""
    at = unit.token_covering(tok.start)
    func = function_at(unit, at)
    if func is None:
        return None
    toks = unit.tokens
    for k in range(at - 1, func.open, -1):
        if toks[k].text == tok.text and toks[k + 1].text in ("=", ";", ",", "{"):
            if toks[k - 1].kind is not Kind.IDENT or toks[k - 1].text in ("return", "case"):
                continue
            first = k - 1
            while (
                first > func.open + 1
                and toks[first - 1].text not in (";", "{", "}", ",")
                and not toks[first - 1].in_directive  # iro-cuda-ax's `#ifdef __CUDA_ARCH__`
            ):
                first -= 1
            declared = unit.text[toks[first].start : toks[k].start]
            return LocalDeclaration(declared.strip(), unit.lines.position(toks[k].start)[0], k)
    return None


class Alias(NamedTuple):
    """One `typedef T NAME;` or `using NAME = T;` (token indices)."""

    keyword: int  # its `typedef`/`using`
    name: int  # the name it declares
    type: str  # the aliased type, its words joined by spaces


def aliases(unit: Unit) -> list[Alias]:
    """Every `typedef T NAME;` and `using NAME = T;` of the file, in every branch, in order
    (computed once per unit: the type-size reader, the renames and HZ321 ask)."""

    def make() -> list[Alias]:
        toks = unit.tokens
        out: list[Alias] = []
        for keyword in ("typedef", "using"):
            for i in unit.identifier_positions.get(keyword, ()):
                j = i + 1
                while j < len(toks) and toks[j].text not in (";", "{", "("):
                    j += 1
                    if j < len(toks) and toks[j].text == "(" and toks[j - 1].text == "decltype":
                        j = (match(toks, j) or len(toks)) + 1  # a type of an expression
                if j >= len(toks) or toks[j].text != ";":
                    continue
                body = [t.text for t in toks[i + 1 : j]]
                if keyword == "typedef" and len(body) >= 2:
                    out.append(Alias(i, j - 1, " ".join(body[:-1])))
                elif keyword == "using" and len(body) >= 3 and body[1] == "=":
                    out.append(Alias(i, i + 1, " ".join(body[2:])))
        return sorted(out)

    return cached(unit, "_aliases", make)


def typedefs(unit: Unit) -> dict[str, str]:
    """`typedef T NAME;` / `using NAME = T;` outside the branches HIP never compiles."""

    def make() -> dict[str, str]:
        toks = unit.tokens
        inactive = inactive_in(unit)
        out: dict[str, str] = {}
        for alias in aliases(unit):
            if toks[alias.keyword].start not in inactive:
                out.setdefault(toks[alias.name].text, alias.type)
        return out

    return cached(unit, "_hz_typedefs", make)


def enumerators(unit: Unit) -> set[str]:
    """Names the file declares as enumerators (`enum X { CU_A = 1, CU_B };`)."""
    toks = unit.tokens
    out: set[str] = set()
    for e in unit.identifier_positions.get("enum", ()):
        k = e + 1
        while k < len(toks) and toks[k].text not in ("{", ";"):
            k += 1
        close = unit.lexed.brackets.get(k) if k < len(toks) and toks[k].text == "{" else None
        for j in range(k + 1, close or k):
            if toks[j].kind is Kind.IDENT and toks[j - 1].text in ("{", ","):
                out.add(toks[j].text)
    return out
