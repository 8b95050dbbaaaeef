"""A raw C++/CUDA lexer that sees every preprocessor branch.

libclang only tokenizes what the preprocessor keeps, and hipify-py must translate code inside
inactive ``#if`` branches and inside macro bodies too.  This lexer never fails: anything it does
not recognise becomes a one-character ``punct`` token, so a truncated or broken file still yields
tokens with exact offsets into the original text.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from enum import Enum
from itertools import repeat
from typing import NamedTuple, overload


class Kind(str, Enum):
    IDENT = "ident"
    NUMBER = "number"
    STRING = "string"
    CHAR = "char"
    PUNCT = "punct"
    COMMENT = "comment"
    DIRECTIVE = "directive"  # the '#' that starts a preprocessor line


KEYWORDS = frozenset(
    "alignas alignof asm auto bool break case catch char char16_t char32_t char8_t class const "
    "constexpr const_cast continue decltype default delete do double dynamic_cast else enum "
    "explicit export extern false float for friend goto if inline int long mutable namespace new "
    "noexcept nullptr operator private protected public register reinterpret_cast return short "
    "signed sizeof static static_assert static_cast struct switch template this thread_local "
    "throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t "
    "while size_t".split()
)


class Token(NamedTuple):
    kind: Kind
    text: str
    start: int
    end: int
    # True when the token lies on a preprocessor line (including its continuation lines).
    in_directive: bool = False


# Literals and comments are matched with possessive repeats where Python has them (3.11+): a
# plain repeat of a group keeps a backtracking record per iteration, 100+ bytes of memory per
# byte of a long literal.  The loops are unambiguous, so the match is the same either way.
POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""

# What can hold text that is not code (comments, literals: never renamed) and numbers (whose
# letters are no names), shared with ``frontend.density``'s name-only scan of a file too dense
# to tokenize.  The raw-string delimiter is the one named group: ``findall`` below returns it.
LITERALS = r"""
      //[^\r\n\\]*@(?:\\(?:\r\n|.)[^\r\n\\]*@)*@
    | /\*[^*]*@(?:\*+[^*/][^*]*@)*@(?:\*+/|\*+\Z|\Z)
    | (?:u8|u|U|L)?R"(?P<delim>[^()\\ \t\r\n]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
    | (?:u8|u|U|L)?"[^"\\\r\n]*@(?:\\(?:\r\n|.)[^"\\\r\n]*@)*@(?:"|(?=[\r\n])|\\?\Z)
    | (?:u8|u|U|L)?'[^'\\\r\n]*@(?:\\(?:\r\n|.)[^'\\\r\n]*@)*@(?:'|(?=[\r\n])|\\?\Z)
    | \.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*@
""".replace("@", POSSESSIVE)
NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"

# ``findall`` hands back plain strings, no match objects: (skipped, identifier, other token,
# raw-string delimiter).  The skipped white space is captured only so its length can advance
# the offset; ``other`` is told apart by its first character (``_FIRST``), in the order the
# alternatives below are tried.
_TOKEN_RE = re.compile(
    r"""
    ([ \t\f\v\x00]*@(?:\\(?:\r\n?|\n)[ \t\f\v\x00]*@)*@)  # horizontal white space (NUL too,
                                                          # as for clang), line continuations
    (?:
      (?!(?:(?:u8|u|U|L)R?|R)"|(?:u8|u|U|L)')(NAME)
    | ( [(){};,\[\]?~]    # punctuators no longer one starts with
      | \r\n?|\n
      | LITERALS
      | <<<|>>>|<<=|>>=|%:%:|%:|\.\.\.|->\*|<=>|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\|
      | \+=|-=|\*=|/=|%=|&=|\|=|\^=|\#\#|\.\*|.
      )
    | \Z  # an empty ``other``: the end
    )
    """.replace("@", POSSESSIVE)
    .replace("NAME", NAME)
    .replace("LITERALS", LITERALS),
    re.VERBOSE | re.DOTALL,
)

# What a non-identifier token's first character says it is.  A letter (or _ or $) starts a
# prefixed literal (u8"", L'', R"()") unless the token is that one character: a letter the
# identifier pattern refused, an operator.  A dot starts a number only before a digit, a slash
# a comment only before / or *.  Anything else is an operator.
_NL, _SINGLE, _SLASH, _QUOTE, _LETTER, _DIGIT, _DOT = range(1, 8)
_DIGITS = frozenset("0123456789")
_FIRST: dict[str, int] = {
    **dict.fromkeys("\r\n", _NL),
    **dict.fromkeys("(){};,[]?~", _SINGLE),
    "/": _SLASH,
    '"': _QUOTE,
    "'": _QUOTE,
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$", _LETTER),
    **dict.fromkeys(_DIGITS, _DIGIT),
    ".": _DOT,
}
_PREFIXES = "u8ULR"  # the characters a literal's encoding and raw prefixes are made of


# A token's kind as one small integer in ``Tokens.codes``; DIRECTIVE_BIT set: in_directive.
KINDS = tuple(Kind)
_CODE = {kind: code for code, kind in enumerate(KINDS)}
DIRECTIVE_BIT = 8
_KIND_OF = KINDS + (Kind.PUNCT,) * (DIRECTIVE_BIT - len(KINDS)) + KINDS
_FLAG_OF = (False,) * DIRECTIVE_BIT + (True,) * len(KINDS)
_new = tuple.__new__  # NamedTuple construction without the keyword-handling wrapper

# From this many tokens on, a file's tokens stay packed (``Tokens``): below, a list of them is
# faster to read and its memory does not matter.
PACK_FROM = 100_000


class Tokens(Sequence[Token]):
    """A file's code tokens packed in arrays: start, end, and a kind code with the directive
    flag, 9 bytes a token where a list of ``Token`` tuples holds about 150 (the tuple, two
    offsets, the list slot).  A ``Token`` is made when one is read, so rules read them as
    from a list; ``starts`` is kept sorted, for a bisection on offsets."""

    __slots__ = ("text", "starts", "ends", "codes")

    def __init__(self, text: str, starts: array[int], ends: array[int], codes: bytearray):
        self.text, self.starts, self.ends, self.codes = text, starts, ends, codes

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> Token: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Token]: ...

    def __getitem__(self, i: int | slice) -> Token | Sequence[Token]:
        if isinstance(i, slice):
            return list(self._made(self.starts[i], self.ends[i], self.codes[i]))
        start, end, code = self.starts[i], self.ends[i], self.codes[i]
        return _new(Token, (_KIND_OF[code], self.text[start:end], start, end, code > 7))

    def __iter__(self) -> Iterator[Token]:
        return self._made(self.starts, self.ends, self.codes)

    def _made(
        self, starts: Iterable[int], ends: Iterable[int], codes: Iterable[int]
    ) -> Iterator[Token]:
        """``Token``s for these arrays (or slices of them), made by a pipeline of C calls."""
        texts = map(self.text.__getitem__, map(slice, starts, ends))
        kinds, flags = map(_KIND_OF.__getitem__, codes), map(_FLAG_OF.__getitem__, codes)
        return map(_new, repeat(Token), zip(kinds, texts, starts, ends, flags, strict=True))

    def unpacked(self) -> Sequence[Token]:
        return list(self)


class Lexed(NamedTuple):
    """One pass over a file: code tokens, comments, and the indexes rules look things up in."""

    # code tokens (no comments), every preprocessor branch: a list, packed (``Tokens``) from
    # ``PACK_FROM`` tokens on
    tokens: Sequence[Token]
    starts: array[int]  # each token's start offset, ascending (bisect on it)
    comments: list[Token]
    identifiers: dict[str, list[int]]  # identifier -> its indices in ``tokens``
    directives: list[int]  # indices in ``tokens`` of each preprocessor line's '#'
    literals: list[int]  # indices in ``tokens`` of the string and character literals
    # operator -> its indices in ``tokens``: every punctuator but ( ) [ ] { } ; , ? ~
    operators: dict[str, list[int]]
    # the bracket table: index of an opening bracket -> index of the one closing it, as
    # ``syntax.match_forward`` answers; ``balanced`` when every bracket has its partner
    brackets: dict[int, int]
    balanced: bool


def lex(text: str) -> Lexed:
    """Split ``text`` into tokens in one pass (whitespace dropped, comments kept apart), and
    index identifiers, directives, literals and operators and pair brackets on the way.

    The ``#`` that starts a preprocessor line is a DIRECTIVE token, and every token to the end
    of the logical line has ``in_directive=True``: rules tell a macro body from code.

    The loop runs once per token, so what each token needs is inline, in locals; only the
    bracket pairing is a call (``_Brackets``), and only for the one-character punctuators."""
    starts, ends, codes = array("I"), array("I"), bytearray()
    comments: list[Token] = []
    identifiers: defaultdict[str, list[int]] = defaultdict(list)
    operators: defaultdict[str, list[int]] = defaultdict(list)
    directives: list[int] = []
    literals: list[int] = []
    brackets = _Brackets(text, starts)
    pair, macro = brackets.single, brackets.macro
    add_start, add_end, add_code = starts.append, ends.append, codes.append
    first = _FIRST.get
    at_line_start, flag = True, 0  # flag: DIRECTIVE_BIT on a directive line
    ident, punct, number = _CODE[Kind.IDENT], _CODE[Kind.PUNCT], _CODE[Kind.NUMBER]
    pos = 1 if text.startswith("\ufeff") else 0  # a UTF-8 byte-order mark is not code
    for skipped, word, other, _ in _matches(text, pos):
        pos += len(skipped)
        if word:
            identifiers[word].append(len(starts))
            add_start(pos)
            pos += len(word)
            add_end(pos)
            add_code(ident | flag)
            at_line_start = False
            continue
        end = pos + len(other)
        what = first(other[0])
        if what == _NL:
            at_line_start, flag = True, 0
            pos = end
            continue
        if what == _SLASH and other[1:2] in _COMMENT_SECOND:
            # a comment is white space to the preprocessor: it neither starts nor ends a line
            comments.append(_new(Token, (Kind.COMMENT, other, pos, end, flag > 0)))
            pos = end
            continue
        kind = punct
        if what == _SINGLE:
            pair(other, len(starts), flag)
        elif what == _DIGIT or (what == _DOT and other[1:2] in _DIGITS):
            kind = number
        elif what == _QUOTE or (what == _LETTER and len(other) > 1):
            kind = _CODE[Kind.CHAR if other.lstrip(_PREFIXES)[0] == "'" else Kind.STRING]
            literals.append(len(starts))
        elif at_line_start and (other == "#" or other == "%:"):  # %: is a digraph of #
            flag, kind = DIRECTIVE_BIT, _CODE[Kind.DIRECTIVE]
            directives.append(len(starts))
        else:
            operators[other].append(len(starts))
            if macro and not flag:
                brackets.end_macro()
        add_start(pos)
        add_end(end)
        add_code(kind | flag)
        at_line_start = False
        pos = end
    packed = Tokens(text, starts, ends, codes)
    tokens = packed if len(starts) >= PACK_FROM else packed.unpacked()
    return Lexed(
        tokens,
        starts,
        comments,
        dict(identifiers),
        directives,
        literals,
        dict(operators),
        brackets.pairs,
        brackets.all_paired(),
    )


class _Brackets:
    """Brackets paired as the lexer meets them, as in ``syntax._match_all``: a directive line's
    brackets pair among themselves (the ``macro`` stack), the code's among themselves, and code
    punctuation ends every search begun in a directive.  ``balanced`` turns False at the first
    bracket left without its partner."""

    __slots__ = ("text", "starts", "pairs", "code", "macro", "balanced")

    def __init__(self, text: str, starts: array[int]):
        self.text, self.starts = text, starts
        self.pairs: dict[int, int] = {}  # index of an opening bracket -> index of its closer
        self.code: list[int] = []
        self.macro: list[int] = []
        self.balanced = True

    def single(self, other: str, index: int, in_directive: int) -> None:
        """One of ``( ) [ ] { } ; , ? ~`` (``other``), token ``index``."""
        if self.macro and not in_directive:
            self.end_macro()
        if other in _OPENERS:
            (self.macro if in_directive else self.code).append(index)
        elif other in _CLOSERS:
            stack = self.macro if in_directive else self.code
            if stack and self.text[self.starts[stack[-1]]] == _CLOSERS[other]:
                self.pairs[stack.pop()] = index
            else:
                stack.clear()
                self.balanced = False

    def end_macro(self) -> None:
        """Code punctuation after a directive line: the brackets it left open stay unpaired."""
        self.macro.clear()
        self.balanced = False

    def all_paired(self) -> bool:
        return self.balanced and not self.code and not self.macro


def _matches(text: str, pos: int) -> Iterator[tuple[str, str, str, str]]:
    """``_TOKEN_RE.findall(text, pos)`` without the empty matches at the end of the text, a
    slice of the text at a time: the list of a whole file's matches is about 80 bytes per
    token, more than the tokens' own share of the peak.

    A slice ends the text early, so its last matches may differ from the whole text's (a
    comment or literal cut short, ``..`` for ``...``, ``R"d`` for a raw string): every match
    that ends within ``_MARGIN`` characters of the cut is matched again from the next slice
    on (the pattern looks behind nothing, so a match starts the same wherever the search
    does).  A slice whose every match is that close to its end is doubled."""
    size = _SLICE
    while True:
        cut = pos + size
        if cut >= len(text):
            found = _TOKEN_RE.findall(text, pos)
            while found and not found[-1][1] and not found[-1][2]:
                found.pop()  # the end: white space before it, if any, then nothing
            yield from found
            return
        found = _TOKEN_RE.findall(text, pos, cut)
        keep, end = len(found), cut
        while keep and end > cut - _MARGIN:
            keep -= 1
            skipped, word, other, _ = found[keep]
            end -= len(skipped) + len(word) + len(other)
        if not keep:
            size *= 2
            continue
        del found[keep:]
        yield from found
        pos, size = end, _SLICE


_SLICE = 1 << 18
# longer than any match that a cut can change without ending it there: a raw string's
# ``R"`` and 16-character delimiter, the longest operators
_MARGIN = 64
_COMMENT_SECOND = frozenset("/*")
_OPENERS = frozenset("([{")
_CLOSERS = {")": "(", "]": "[", "}": "{"}  # closer -> the opener it pairs with
