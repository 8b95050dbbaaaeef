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

from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "literal-suffix-space"
_STANDARD = frozenset({"s", "sv"})  # the standard library's string literal suffixes


@rewrite_pass(RULE, order=13)
def literal_suffix_space(unit: Unit, ctx: Context) -> Iterator[Edit]:
    toks = unit.tokens
    for k in unit.lexed.literals:
        lit, after = toks[k], toks[k + 1] if k + 1 < len(toks) else None
        if (
            after is not None
            and after.start == lit.end
            and after.kind is Kind.IDENT
            and not after.text.startswith("_")
            and after.text not in _STANDARD
        ):
            yield Edit(lit.end, lit.end, " ", RULE)
