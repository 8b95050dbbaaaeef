"""Name the C++ standard library where code names libcu++'s copy of it.

`cuda::std::iterator_traits` (qmcpack's `strided_range`, compile round 31: the TU failed with
"use of undeclared identifier 'cuda'" and no finding) is libcu++'s copy of a standard
facility; ROCm 7.2.4 ships no libcu++, and HIP-Clang compiles the standard library's type
traits and `constexpr` functions in device code.  Only the names in ``STD_TWINS`` change (the
standard headers that `hip_runtime.h` and Thrust already include declare them); every other
libcu++ name is HZ347's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.lexer import KEYWORDS, Kind, Token
from ..frontend.unit import Unit
from ..rules import rewrite_pass

RULE = "libcxx-std"
# type traits, limits and iterator traits, and the constexpr utilities: the same in device
# code under HIP-Clang (no run-time library behind them)
STD_TWINS = frozenset(
    {"iterator_traits", "numeric_limits", "integral_constant", "true_type", "false_type"}
    | {"is_same", "is_same_v", "enable_if", "enable_if_t", "conditional", "conditional_t"}
    | {"remove_cv", "remove_cv_t", "remove_reference", "remove_reference_t", "decay", "decay_t"}
    | {"remove_const", "remove_const_t", "is_integral", "is_integral_v", "is_signed"}
    | {"is_signed_v", "is_unsigned", "is_unsigned_v", "is_floating_point", "is_floating_point_v"}
    | {"is_arithmetic", "is_arithmetic_v", "is_pointer", "is_pointer_v", "make_unsigned"}
    | {"make_unsigned_t", "make_signed", "make_signed_t", "declval", "forward", "move"}
    | {"min", "max", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t"}
    | {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}
    # the function objects, whose `operator()` is constexpr (dl-cuda's `cuda::std::plus<float>()`
    # in a device reduction, compile round 42)
    | {"plus", "minus", "multiplies", "divides", "modulus", "negate", "equal_to"}
    | {"not_equal_to", "greater", "less", "greater_equal", "less_equal", "logical_and"}
    | {"logical_or", "logical_not", "bit_and", "bit_or", "bit_xor", "bit_not"}
)


def within_project(toks: Sequence[Token], i: int) -> bool:
    """The `cuda` at token ``i`` is qualified by a name (`mylib::cuda::`): a namespace of the
    project's, not libcu++'s.  A keyword before a global `::cuda` (nanovdb's `return
    ::cuda::std::numeric_limits<T>::max();`, compile round 33) names none."""
    return (
        i >= 3
        and toks[i - 1].text == "::"
        and toks[i - 2].kind is Kind.IDENT
        and toks[i - 2].text not in KEYWORDS
        and toks[i - 3].text != "define"  # the name a `#define NAME ::cuda::...` defines
    )


def libcxx_std_at(unit: Unit, i: int) -> str | None:
    """The name after `cuda::std::` where token ``i`` is that `cuda` (not a namespace of the
    project's: `mylib::cuda::std::`), else None."""
    toks = unit.tokens
    if i + 4 >= len(toks) or [t.text for t in toks[i + 1 : i + 4]] != ["::", "std", "::"]:
        return None
    if within_project(toks, i):
        return None
    return toks[i + 4].text if toks[i + 4].kind is Kind.IDENT else None


@rewrite_pass(RULE, order=12)
def libcxx_std(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if "cuda" not in unit.identifiers:
        return
    toks = unit.tokens
    for i in unit.identifier_positions.get("cuda", ()):
        # code, or a macro's body (cuBQL's `#define CUBQL_INF ::cuda::std::numeric_limits<float>
        # ::infinity()`, compile round 35); not an include's path
        in_code = not toks[i].in_directive or unit.directive_word(i) == "define"
        if in_code and libcxx_std_at(unit, i) in STD_TWINS:
            yield Edit(toks[i].start, toks[i + 2].end, "std", RULE)
