"""Put a space between a string literal and a name written against it: `"%"PRIu64`.

Since C++11 a name right after a literal is a user-defined literal suffix, and one that does
not start with `_` is reserved.  nvcc's host compiler (GCC) warns and reads the macro
(`printf("%"PRIu64"\\n", x)`), and a C++03 build reads the name as its own token
(tobiasvanderwerff's `"[%s:%d] "msg"\\n"` in a `FATAL(msg, ...)` macro, compile round 46: 4
TUs); clang, the HIP compiler, rejects both ("invalid suffix on literal; C++11 requires a
space").  With the space each reads as the code meant.  The standard library's own suffixes
(`"abc"s`, `"abc"sv`) and user-defined ones (`_x`) are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "literal-suffix-space"
_STANDARD = frozenset({"s", "sv"})  # the standard library's string literal suffixes
_WORD = re.compile(r"[A-Za-z_]\w*")


@rewrite_pass(RULE, order=13)
def literal_suffix_space(unit: Unit, ctx: Context) -> Iterator[Edit]:
    text = unit.text
    for lit in unit.tokens:
        if lit.kind not in (Kind.STRING, Kind.CHAR):
            continue
        suffix = _WORD.match(text, lit.end)  # the lexer splits it: read the text itself
        if suffix and not suffix.group().startswith("_") and suffix.group() not in _STANDARD:
            yield Edit(lit.end, lit.end, " ", RULE)
