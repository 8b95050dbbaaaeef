"""Bits of data that code indexes with 32: a bitset's word and bit, a bitmask word a ballot
fills, bits moved around.  `% 32`, `/ 32`, `>> 5` there count bits of a 32-bit word, not
lanes of a warp, so the lane-arithmetic rule (HZ101) leaves them; split out of it by size.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from .functions import Func
from .taint import LANE_LIKE
from .tokens import statement_end
from .values import int_value

NOT_LANES = re.compile(r"crc|hash|checksum|digest|murmur|fnv|xxh|philox|rng|random", re.I)
_BIT_NAME = re.compile(
    r"^(?:bits?|n_?bits|word|words|wrd|byte|bank|col|column|cols|shift|bit_?(?:pos|idx|index|off)"
    r"|word_?(?:idx|index|off|offset|pos))$",
    re.I,
)


def _bitset_idiom(toks: Sequence[Token], i: int, func: Func) -> bool:
    """`bits[i / 32] |= 1u << (i % 32)`: word/bit indexing of a bitset, not lane arithmetic."""
    a, b = i, i
    while a > func.open and toks[a - 1].text not in (";", "{", "}"):
        a -= 1
    while b < func.close and toks[b].text not in (";", "{", "}"):
        b += 1
    for k in range(a, b - 1):
        if (
            toks[k].text in ("<<", "<<=")
            and k > a
            and toks[k - 1].kind is Kind.NUMBER
            and int_value(toks[k - 1].text) == 1
        ):
            return True
    return False


def _bit_twiddling(toks: Sequence[Token], after: int, func: Func) -> bool:
    """`(qh >> 5) & 0x1000`, `x |= (v >> 5) & m`: bits of data moved around, not a lane id."""
    k = after
    while k < func.close and toks[k].text == ")":
        k += 1
    if toks[k].text in ("&", "|", "^"):
        return True
    a = after
    while a > func.open and toks[a - 1].text not in (";", "{", "}"):
        a -= 1
    return any(toks[m].text in ("|=", "^=", "&=") for m in range(a, after))


def _bit_index_variable(toks: Sequence[Token], i: int, func: Func) -> bool:
    """`int bit = i & 31;` / `word = i >> 5;`: the result names a bit or word of a bitset,
    or is used as the shift amount of `1u << bit`."""
    a = i
    while a > func.open and toks[a - 1].text not in (";", "{", "}", "(", ","):
        a -= 1
    eq = next((k for k in range(a, i) if toks[k].text == "="), None)
    if eq is None or toks[eq - 1].kind is not Kind.IDENT:
        return False
    name = toks[eq - 1].text
    if _BIT_NAME.match(name) or NOT_LANES.search(name) or _shifts_data(toks, name, func):
        return True
    if LANE_LIKE.match(name) or "lane" in name.lower():
        return False  # `1u << lane` is a lane mask (HZ108), the lane id stays a lane id
    return any(
        toks[k].text == name
        and toks[k - 1].text in ("<<", "<<=")
        and toks[k - 2].kind is Kind.NUMBER
        and int_value(toks[k - 2].text) == 1
        for k in range(i, func.close)
    )


def _shifts_data(toks: Sequence[Token], name: str, func: Func) -> bool:
    """`(bits[w] >> name) & 1`: ``name`` is the shift amount of an array element, so it is a
    bit position inside a word of data (a lane id shifts a lane mask or a ballot instead)."""
    return any(
        toks[k].text == name and toks[k - 1].text in (">>", "<<") and toks[k - 2].text == "]"
        for k in range(func.open + 2, func.close)
    )


def _bit_vector_word(toks: Sequence[Token], i: int, rng: tuple[int, int], func: Func) -> bool:
    """`i / 32` (or `i >> 5`) where `i % 32` of the same variable is a bit position
    (``_bit_index_variable``): the word of a bit vector that holds bit `i`."""
    first, end = rng
    if toks[i].text not in ("/", ">>") or end - first != 1 or toks[first].kind is not Kind.IDENT:
        return False
    name = toks[first].text
    return any(
        toks[k].text == name
        and int_value(toks[k + 2].text) == {"%": 32, "&": 31}.get(toks[k + 1].text)
        and _bit_index_variable(toks, k + 1, func)
        for k in range(func.open + 1, func.close - 2)
    )


def _word_store(unit: Unit, i: int, rng: tuple[int, int], func: Func) -> bool:
    """`if (row % 32 == 0) { mask[word_index(row)] = bits; }`: the test picks the rows that
    store a word of a bitmask (cuDF's `word_index`, or `row / 32`), whose width the word's
    type decides (spark-rapids' row_conversion, round 26: the ballot stored in that word is
    HZ105's, where the fix goes)."""
    toks = unit.tokens
    first, end = rng
    if toks[i].text not in ("%", "&") or end - first != 1 or toks[first].kind is not Kind.IDENT:
        return False
    opening = _condition_opening(toks, first, func)
    if opening is None:
        return False
    close = unit.lexed.brackets.get(opening)
    if close is None:
        return False
    name = toks[first].text
    body = [t.text for t in toks[close + 1 : statement_end(toks, close + 1, func.close)]]
    return any(
        body[k] == "["
        and (
            body[k + 1 : k + 4] == ["word_index", "(", name]
            or body[k + 1 : k + 3] in ([name, "/"], [name, ">>"])
        )
        for k in range(len(body) - 3)
    )


def _condition_opening(toks: Sequence[Token], k: int, func: Func) -> int | None:
    """The `(` of the `if` whose condition holds token ``k``."""
    depth = 0
    for j in range(k - 1, func.open, -1):
        x = toks[j].text
        if x in (")", "]"):
            depth += 1
        elif x == "(" and depth == 0 and toks[j - 1].text == "if":
            return j
        elif x == "[" and depth == 0:
            return None
        elif x in ("(", "["):  # a parenthesised part of the condition: `if ((tid & 31) == 0)`
            depth = max(depth - 1, 0)
        elif x in (";", "{", "}"):
            return None
    return None


def bit_data(unit: Unit, i: int, rng: tuple[int, int], func: Func) -> bool:
    """The candidate `operand OP literal` at operator token ``i`` (operand ``rng``) indexes
    bits of data, not lanes."""
    toks = unit.tokens
    return (
        _bit_twiddling(toks, i + 2, func)
        or _bitset_idiom(toks, i, func)
        or _bit_index_variable(toks, i, func)
        or _bit_vector_word(toks, i, rng, func)
        or _word_store(unit, i, rng, func)
    )
