"""What libclang may read: the source text we hand it, the stub, and nothing on disk.

The source is untrusted: an ``#include`` in it must not make libclang open ``/etc/passwd``, block
on ``/dev/stdin`` or a FIFO, or read ``/dev/zero`` until memory runs out.  In the hermetic
parse every directive that can name a file is blanked to spaces (offsets and line numbers stay
exact): ``#include``/``#include_next``/``#import``/``#embed`` however spelled (``%:include``,
``#/**/include``, ``#\\``-newline-``include``), ``#pragma GCC dependency``, ``__has_include``
and ``_Pragma``.  With the user's own flags the includes of regular files stay (``regular_files``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from .directives import lines
from .lexer import POSSESSIVE, Kind, Lexed, Token, lex
from .syntax import match_forward

# directives that open a file (clang's spellings, including its internal __include_macros)
_FILE_DIRECTIVES = frozenset({"include", "include_next", "import", "embed", "__include_macros"})
# operators that look a file up; replaced by 0 with their argument
_FILE_QUERIES = frozenset({"__has_include", "__has_include_next", "__has_embed"})

# A directive the lexer did not see as one (a NUL byte or a Unicode space before the '#'):
# found again at each logical line start, with no backtracking across lines, and blanked as
# well.  A physical line that a backslash continues is no line start: a run of N continued
# lines is then read once, not N times (it was quadratic: 40,000 of them took 87 s).
_GAP = r"(?:[^\S\r\n]|\x00|\\(?:\r\n?|\n)|/\*[^\r\n]*?\*/)*" + POSSESSIVE
_LINE_START = r"(?:^|(?<=[\r\n]))(?<!\\\n)(?<!\\\r\n)(?<!\\\r)"
_LEFTOVER = re.compile(
    rf"{_LINE_START}{_GAP}(?P<hash>\#|%:){_GAP}"
    r"(?:include|import|embed|__include|pragma[^\r\n]*dependency)"
    r"(?:[^\r\n\\]|\\(?:\r\n?|\n|.))*" + POSSESSIVE,
    re.M | re.DOTALL,
)


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] not in "\r\n":
            chars[k] = " "


Allowed = Callable[[str | None], bool]


def _nothing(target: str | None) -> bool:
    return False


def blank_file_access(text: str, lexed: Lexed | None = None, allowed: Allowed = _nothing) -> str:
    """``text`` with every construct that can make the preprocessor open a file blanked, except
    includes (and ``__has_include`` queries) of a target ``allowed`` accepts (None: a macro)."""
    lexed = lexed or lex(text)
    tokens = lexed.tokens
    chars = list(text)
    for line in lines(tokens, lexed.directives):
        opens = line.word in _FILE_DIRECTIVES and not allowed(_target(text, line.body))
        if opens or (line.word == "pragma" and any(t.text == "dependency" for t in line.body)):
            _blank(chars, line.start, _directive_end(text, tokens, line.at))
    for i, tok in enumerate(tokens):
        if tok.kind is not Kind.IDENT or not (tok.text in _FILE_QUERIES or tok.text == "_Pragma"):
            continue
        has_args = i + 1 < len(tokens) and tokens[i + 1].text == "("
        close = match_forward(tokens, i + 1) if has_args else None
        if tok.text != "_Pragma" and close is not None:
            if allowed(_target(text, tokens[i + 2 : close])):
                continue
        _blank(chars, tok.start, tokens[close].end if close is not None else tok.end)
        if tok.text != "_Pragma":
            chars[tok.start] = "0"
    seen = {tokens[d].start for d in lexed.directives}  # handled above, token by token

    def leftover(m: re.Match) -> str:
        return m.group(0) if m.start("hash") in seen else re.sub(r"[^\r\n]", " ", m.group(0))

    return _LEFTOVER.sub(leftover, "".join(chars))


def regular_files(filename: str, include_dirs: Sequence[str]) -> Allowed:
    """With the user's flags: an include may stay when it names a file that, wherever the
    search could find it (the file's directory, each ``-I``), is a regular file or absent.
    A FIFO, a device, a directory or ``/dev/stdin`` is never opened; nor is a macro target,
    which cannot be checked before the preprocessor runs."""
    dirs = [os.path.dirname(os.path.abspath(filename)), *include_dirs]

    def allowed(target: str | None) -> bool:
        if target is None:
            return False
        paths = [target] if os.path.isabs(target) else [os.path.join(p, target) for p in dirs]
        return not any(os.path.exists(p) and not os.path.isfile(p) for p in paths)

    return allowed


def _directive_end(text: str, tokens: Sequence[Token], d: int) -> int:
    """Where the logical line of the directive at tokens[d] ends: at the next token that is not
    part of it (what lies between is white space and comments, safe to blank), or the end."""
    k = d + 1
    while k < len(tokens) and tokens[k].in_directive and tokens[k].kind is not Kind.DIRECTIVE:
        k += 1
    return tokens[k].start if k < len(tokens) else len(text)


def _target(text: str, rest: Sequence[Token]) -> str | None:
    """The file an include names (``"x.h"`` or ``<x.h>``), or None for a macro."""
    if not rest:
        return None
    first = rest[0]
    if first.kind is Kind.STRING and first.text.startswith('"') and first.text.endswith('"'):
        return first.text[1:-1]
    if first.text == "<":
        close = next((t for t in rest[1:] if t.text in (">", ">>", ">>>")), None)
        if close is not None:
            return text[first.end : close.start]
    return None
