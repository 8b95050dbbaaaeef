"""Drop the ``const`` of a function template's local that its body assigns again:
`const int global_row = ...; ... global_row = ...;` -> `int global_row = ...;`.

nvcc's front end does not check a template nobody instantiates, and takes the assignment;
clang checks the body of every template ("cannot assign to variable 'global_row' with
const-qualified type 'const int'", CUDA-Kernels' `transpose` kernel template, compile round
45).  nvcc would reject any instantiation, so no build of the project instantiates one, and
the local without ``const`` compiles as the same nothing on both.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.functions import declaration_head, functions
from ..context import Context
from ..edits import Edit
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import rewrite_pass
from ._word_removal import drop_word

RULE = "template-const-reassigned"
_STATEMENT_START = frozenset({";", "{", "}"})
_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})


@rewrite_pass(RULE, order=12)
def template_const_reassigned(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "template" not in unit.identifiers or "const" not in unit.identifiers:
        return
    toks = unit.tokens
    for f in functions(unit):
        if not any(toks[j].text == "template" for j in declaration_head(toks, f)):
            continue
        consts: dict[str, int] = {}  # local name -> its `const` token
        for k in range(f.open + 1, f.close - 2):
            if toks[k].text == "const" and toks[k - 1].text in _STATEMENT_START:
                j = k + 1
                while j < f.close and toks[j].kind is Kind.IDENT and toks[j + 1].kind is Kind.IDENT:
                    j += 1  # the type's words: `const unsigned int name`
                if j > k + 1 and toks[j].kind is Kind.IDENT and toks[j + 1].text == "=":
                    consts.setdefault(toks[j].text, k)
            elif (
                toks[k].text in consts
                and toks[k - 1].text in _STATEMENT_START
                and toks[k + 1].text in _ASSIGNMENTS
            ):
                yield drop_word(unit, consts.pop(toks[k].text), RULE)
