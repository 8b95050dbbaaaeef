"""What libclang may read: the source text we hand it, the stub, and nothing on disk.

The source is untrusted: an ``#include`` in it must not make libclang open ``/etc/passwd``, block
on ``/dev/stdin`` or a FIFO, or read ``/dev/zero`` until memory runs out.  In the hermetic
parse every directive that can name a file is blanked to spaces (offsets and line numbers stay
exact): ``#include``/``#include_next``/``#import``/``#embed`` however spelled (``%:include``,
``#/**/include``, ``#\\``-newline-``include``), ``#pragma GCC dependency``, ``__has_include``
and ``_Pragma``.  With the user's own flags the includes stay, except those that name something
that is not a regular file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from .lexer import POSSESSIVE, Kind, Lexed, lex
from .syntax import match_forward

# directives that open a file (clang's spellings, including its internal __include_macros)
_FILE_DIRECTIVES = frozenset({"include", "include_next", "import", "embed", "__include_macros"})
# operators that look a file up; replaced by 0 with their argument
_FILE_QUERIES = frozenset({"__has_include", "__has_include_next", "__has_embed"})

# A directive the lexer did not see as one (a NUL byte or a Unicode space before the '#'):
# found again at each line start, with no backtracking across lines, and blanked as well.
_GAP = r"(?:[^\S\r\n]|\x00|\\(?:\r\n?|\n)|/\*[^\r\n]*?\*/)*" + POSSESSIVE
_LEFTOVER = re.compile(
    rf"(?:^|(?<=[\r\n])){_GAP}(?:\#|%:){_GAP}"
    r"(?:include|import|embed|__include|pragma[^\r\n]*dependency)"
    r"(?:[^\r\n\\]|\\(?:\r\n?|\n|.))*" + POSSESSIVE,
    re.M | re.DOTALL,
)


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] not in "\r\n":
            chars[k] = " "


def blank_file_access(text: str, lexed: Lexed | None = None) -> str:
    """``text`` with every construct that can make the preprocessor open a file blanked."""
    lexed = lexed or lex(text)
    tokens = lexed.tokens
    chars = list(text)
    for d in lexed.directives:
        word = tokens[d + 1] if d + 1 < len(tokens) and tokens[d + 1].in_directive else None
        if word is None:
            continue
        name = word.text
        pragma_dependency = name == "pragma" and any(
            t.text == "dependency" for t in _directive_tokens(tokens, d)
        )
        if name in _FILE_DIRECTIVES or pragma_dependency:
            _blank(chars, tokens[d].start, _directive_end(text, tokens, d))
    for i, tok in enumerate(tokens):
        if tok.kind is not Kind.IDENT:
            continue
        if tok.text in _FILE_QUERIES or tok.text == "_Pragma":
            close = (
                match_forward(tokens, i + 1)
                if i + 1 < len(tokens) and tokens[i + 1].text == "("
                else None
            )
            end = tokens[close].end if close is not None else tok.end
            _blank(chars, tok.start, end)
            if tok.text != "_Pragma":
                chars[tok.start] = "0"
    blanked = "".join(chars)
    return _LEFTOVER.sub(lambda m: re.sub(r"[^\r\n]", " ", m.group(0)), blanked)


def _directive_tokens(tokens: Sequence, d: int) -> Sequence:
    end = d + 1
    while end < len(tokens) and tokens[end].in_directive and tokens[end].kind is not Kind.DIRECTIVE:
        end += 1
    return tokens[d + 1 : end]


def _directive_end(text: str, tokens: Sequence, d: int) -> int:
    """Where the logical line of the directive at tokens[d] ends: at the next token that is not
    part of it (what lies between is white space and comments, safe to blank), or the end."""
    k = d + 1
    while k < len(tokens) and tokens[k].in_directive and tokens[k].kind is not Kind.DIRECTIVE:
        k += 1
    return tokens[k].start if k < len(tokens) else len(text)


_QUOTED = re.compile(r'^[ \t]*(?:#|%:)[ \t]*include(?:_next)?[ \t]*(?:"([^"\r\n]+)"|<([^>\r\n]+)>)')


def blank_special_includes(text: str, filename: str, include_dirs: Sequence[str]) -> str:
    """With the user's flags: blank each #include whose target exists but is not a regular file
    (a FIFO, a device, a directory), or that names a path outside every known directory
    through ``..`` to such a thing; regular files are the user's headers and stay."""
    lines = re.split(r"(\r\n?|\n)", text)
    base = os.path.dirname(os.path.abspath(filename))
    dirs = [base, *include_dirs]
    for k in range(0, len(lines), 2):
        m = _QUOTED.match(lines[k])
        if m is None:
            continue
        target = m.group(1) or m.group(2)
        candidates = [target] if os.path.isabs(target) else [os.path.join(d, target) for d in dirs]
        if any(os.path.exists(c) and not os.path.isfile(c) for c in candidates):
            lines[k] = " " * len(lines[k])
    return "".join(lines)
