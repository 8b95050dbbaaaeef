"""Which tokens of a ``#define`` name the macro or its parameters (never renamed).

``#define cudaMallocHost(ptr, size) hipHostMalloc(ptr, size, hipHostMallocDefault)`` is a
portability shim: its head is a declaration, not a call, so it must not be renamed or given an
extra argument; and ``#define CUBLAS_OP_N HIPBLAS_OP_N`` must not become the self-referential
``#define HIPBLAS_OP_N HIPBLAS_OP_N``.  Renaming the defined name would at best redefine a HIP
name, so the defined name is always left as written; the body is converted as usual, except
for uses of the macro's own parameters.
"""

from __future__ import annotations

from ..frontend.directives import lines
from ..frontend.lexer import Kind
from ..frontend.unit import Unit

NAME, PARAMETER = "name", "parameter"


def definition_roles(unit: Unit) -> dict[int, str]:
    """Token index -> NAME or PARAMETER, for every ``#define`` of the file (computed once)."""
    roles = unit.__dict__.get("_macro_definition_roles")
    if roles is None:
        roles = unit.__dict__["_macro_definition_roles"] = _roles(unit)
    return roles


def _roles(unit: Unit) -> dict[int, str]:
    toks = unit.tokens
    roles: dict[int, str] = {}
    if "define" not in unit.identifiers:
        return roles
    for line in lines(toks, unit.directives):
        if line.word != "define" or not line.body:
            continue
        name = line.at + 2
        roles[name] = NAME
        params: set[str] = set()
        j = name + 1
        if j < len(toks) and toks[j].text == "(" and toks[j].start == toks[name].end:
            j += 1
            while j < len(toks) and toks[j].in_directive and toks[j].text != ")":
                if toks[j].kind is Kind.IDENT:
                    params.add(toks[j].text)
                    roles[j] = PARAMETER
                j += 1
        if not params:
            continue
        j += 1
        while j < len(toks) and toks[j].in_directive and toks[j].kind is not Kind.DIRECTIVE:
            if toks[j].kind is Kind.IDENT and toks[j].text in params:
                roles[j] = PARAMETER
            j += 1
    return roles
