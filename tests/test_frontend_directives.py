"""Preprocessor lines read once for every consumer: includes with their branches, #define
names and numbers, line extents over continuations and comments."""

from __future__ import annotations

from hipify_py.frontend.directives import (
    defined_names,
    include_targets,
    includes,
    integer,
    lines,
    macro_numbers,
)
from hipify_py.frontend.lexer import lex

SRC = """#include <cuda_runtime.h>
#if defined(USE_A) && \\
    X > 1
#  include "a.h"
#elif B
#include_next <b.h>
#else
// #include "commented.h"
#include "c.h"
#endif
#define N 42
#define F(x) (x)
#
"""


def _lex(text: str):
    lexed = lex(text)
    return text, lexed.tokens, lexed.directives


def test_lines_span_continuations_and_stop_at_comments():
    found = list(lines(lex(SRC).tokens, lex(SRC).directives))
    assert [line.word for line in found] == [
        "include", "if", "include", "elif", "include_next", "else", "include", "endif",
        "define", "define", "",
    ]  # fmt: skip
    cond = found[1]
    assert SRC[cond.start : cond.end] == "#if defined(USE_A) && \\\n    X > 1"
    assert [t.text for t in cond.body] == ["defined", "(", "USE_A", ")", "&&", "X", ">", "1"]


def test_includes_with_their_branches():
    found = includes(*_lex(SRC))
    assert [(i.path, i.angled) for i in found] == [
        ("cuda_runtime.h", True),
        ("a.h", False),
        ("b.h", True),
        ("c.h", False),
    ]
    top, a, b, c = (i.branch for i in found)
    assert top == () and len({a, b, c}) == 3 and all(len(k) == 1 for k in (a, b, c))
    assert SRC[found[1].start : found[1].line_end] == '#  include "a.h"\n'
    assert SRC[found[1].path_start : found[1].path_end] == '"a.h"'
    assert include_targets(SRC) == ["cuda_runtime.h", "a.h", "b.h", "c.h"]


def test_defines_and_their_numbers():
    _, tokens, directives = _lex(SRC)
    assert defined_names(tokens, directives) == {"N", "F"}
    header = '#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 0x2U\n#define S "7"\n'
    assert macro_numbers(header) == {"HIP_VERSION_MAJOR": 7, "HIP_VERSION_MINOR": 2}
    assert (integer("12000"), integer("10L"), integer("1.5"), integer("x")) == (
        12000,
        10,
        None,
        None,
    )
