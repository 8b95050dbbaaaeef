"""A raw C++/CUDA lexer that sees every preprocessor branch.

libclang only tokenizes what the preprocessor keeps, and hipify-py must translate code inside
inactive ``#if`` branches and inside macro bodies too.  This lexer never fails: anything it does
not recognise becomes a one-character ``punct`` token, so a truncated or broken file still yields
tokens with exact offsets into the original text.
"""

from __future__ import annotations

import re
import sys
from enum import Enum
from typing import NamedTuple


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

_TOKEN_RE = re.compile(
    r"""
    (?:[ \t\f\v\x00]+|\\(?:\r\n?|\n))*@  # horizontal white space (NUL too, as for clang) and
                                         # line continuations, skipped
    (?:
      (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)(?![A-Za-z0-9_$"'])
    | (?P<single>[(){};,\[\]?~])    # punctuators no longer one starts with
    | (?P<nl>\r\n?|\n)
    | (?P<lcomment>//[^\r\n\\]*@(?:\\(?:\r\n|.)[^\r\n\\]*@)*@)
    | (?P<bcomment>/\*[^*]*@(?:\*+[^*/][^*]*@)*@(?:\*+/|\*+\Z|\Z))
    | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\ \t\r\n]{0,16})\(.*?(?:\)(?P=delim)"|\Z))
    | (?P<string>(?:u8|u|U|L)?"[^"\\\r\n]*@(?:\\(?:\r\n|.)[^"\\\r\n]*@)*@(?:"|(?=[\r\n])|\\?\Z))
    | (?P<char>(?:u8|u|U|L)?'[^'\\\r\n]*@(?:\\(?:\r\n|.)[^'\\\r\n]*@)*@(?:'|(?=[\r\n])|\\?\Z))
    | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*@)
    | (?P<punct><<<|>>>|<<=|>>=|%:%:|%:|\.\.\.|->\*|<=>|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\|
               |\+=|-=|\*=|/=|%=|&=|\|=|\^=|\#\#|\.\*|.)
    | (?P<end>\Z)
    )
    """.replace("@", POSSESSIVE),
    re.VERBOSE | re.DOTALL,
)

# Group numbers: the loop dispatches on ``Match.lastindex`` (an int compare), not on names.
_GROUP = _TOKEN_RE.groupindex
_IDENT, _SINGLE, _PUNCT, _NL, _END = (_GROUP[g] for g in ("ident", "single", "punct", "nl", "end"))
_COMMENTS = (_GROUP["lcomment"], _GROUP["bcomment"])
# the kinds of the literal groups (a raw string's delimiter group stands for the raw string)
_KIND_OF_GROUP = {
    _GROUP["raw"]: Kind.STRING,
    _GROUP["delim"]: Kind.STRING,
    _GROUP["string"]: Kind.STRING,
    _GROUP["char"]: Kind.CHAR,
    _GROUP["number"]: Kind.NUMBER,
}
_RAW, _DELIM = _GROUP["raw"], _GROUP["delim"]


class Lexed(NamedTuple):
    """One pass over a file: code tokens, comments, and the indexes rules look things up in."""

    tokens: list[Token]  # code tokens (no comments), every preprocessor branch
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
    of the logical line has ``in_directive=True``: rules tell a macro body from code."""
    out = Lexed([], [], {}, [], [], {}, {}, True)
    tokens, comments, identifiers, directives, literals, operators, brackets, _ = out
    # brackets pair as they come, as in ``syntax._match_all``: stacks for code and for macros
    code: list[int] = []
    macro: list[int] = []
    balanced = True
    append = tokens.append
    new = tuple.__new__  # NamedTuple construction without the keyword-handling wrapper
    at_line_start, in_directive = True, False
    ident, punct = Kind.IDENT, Kind.PUNCT
    start_at = 1 if text.startswith("\ufeff") else 0  # a UTF-8 byte-order mark is not code
    for m in _TOKEN_RE.finditer(text, start_at):
        group = m.lastindex
        if group == _IDENT:
            at_line_start = False
            value = m[group]
            end = m.end()
            start = end - len(value)
            found = identifiers.get(value)
            if found is None:
                identifiers[value] = [len(tokens)]
            else:
                found.append(len(tokens))
            append(new(Token, (ident, value, start, end, in_directive)))
        elif group == _SINGLE:
            end = m.end()
            value = m[group]
            if in_directive:
                stack = macro
            else:
                stack = code
                if macro:  # code punctuation ends every search from inside a directive
                    macro.clear()
                    balanced = False
            if value in _OPENERS:
                stack.append(len(tokens))
            elif value in _CLOSERS:
                if stack and tokens[stack[-1]].text == _CLOSERS[value]:
                    brackets[stack.pop()] = len(tokens)
                else:
                    stack.clear()
                    balanced = False
            append(new(Token, (punct, value, end - 1, end, in_directive)))
            at_line_start = False
        elif group == _PUNCT:
            value = m[group]
            end = m.end()
            start = end - len(value)
            if at_line_start and (value == "#" or value == "%:"):  # %: is a digraph of #
                in_directive = True
                directives.append(len(tokens))
                append(new(Token, (Kind.DIRECTIVE, value, start, end, True)))
            else:
                operators.setdefault(value, []).append(len(tokens))
                if macro and not in_directive:
                    macro.clear()
                    balanced = False
                append(new(Token, (punct, value, start, end, in_directive)))
            at_line_start = False
        elif group == _NL:
            at_line_start = True
            in_directive = False
        elif group == _END or group is None:
            break
        elif group in _COMMENTS:
            # a comment is white space to the preprocessor: it neither starts nor ends a line
            comments.append(_literal(m, group, Kind.COMMENT, in_directive))
        else:
            kind = _KIND_OF_GROUP[group]
            if kind is not Kind.NUMBER:
                literals.append(len(tokens))
            append(_literal(m, _RAW if group == _DELIM else group, kind, in_directive))
            at_line_start = False
    return out._replace(balanced=balanced and not code and not macro)


def _literal(m: re.Match[str], group: int, kind: Kind, in_directive: bool) -> Token:
    start, end = m.span(group)
    return Token(kind, m[group], start, end, in_directive)


_OPENERS = frozenset("([{")
_CLOSERS = {")": "(", "]": "[", "}": "{"}  # closer -> the opener it pairs with
