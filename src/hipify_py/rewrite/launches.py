"""``k<<<grid, block[, shmem[, stream]]>>>(args)`` -> ``hipLaunchKernelGGL(k, dim3(grid), ...)``.

Works on raw tokens, so launches in inactive ``#if`` branches and inside macro bodies are
rewritten too.  The rewrite is a handful of small edits over punctuation only (never over an
argument's own tokens), so identifier renames inside the arguments compose with it and the
original line layout of a multi-line launch is kept.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence

from ..context import Context
from ..edits import Edit
from ..frontend.directives import define_of
from ..frontend.directives import lines as directive_lines
from ..frontend.lexer import Kind, Token
from ..frontend.spans import Spans
from ..frontend.syntax import (
    Arg,
    match_angle_backward,
    match_backward,
    match_forward,
    opener_width,
    split_args,
)
from ..frontend.unit import Unit
from ..rules import Tally, rewrite_pass

RULE = "launch"
_NOT_IN_A_NAME = frozenset({"<<<", "{", "}", ";"})


def kernel_name_start(tokens: Sequence[Token], chevron: int) -> tuple[int, bool] | None:
    """(index of the first token of the kernel expression before ``<<<``, is_template)."""
    head = _kernel_name_start(tokens, chevron)
    if head is None or not _one_line_group(tokens, head[0], chevron):
        return None
    if any(tokens[k].text in _NOT_IN_A_NAME for k in range(head[0], chevron)):
        return None  # a launch or a statement inside the name: no kernel's (edits would nest)
    return head


def _one_line_group(tokens: Sequence[Token], first: int, last: int) -> bool:
    """True when tokens[first..last] are all code, or all on one preprocessor line: a launch
    never takes its kernel name from an ``#include <...>`` or a macro on an earlier line."""
    if tokens[first].in_directive != tokens[last].in_directive:
        return False
    return not tokens[last].in_directive or not any(
        tokens[k].kind is Kind.DIRECTIVE for k in range(first + 1, last + 1)
    )


def _kernel_name_start(tokens: Sequence[Token], chevron: int) -> tuple[int, bool] | None:
    i = chevron - 1
    if i < 0:
        return None
    templated = False
    if tokens[i].text in (">", ">>"):
        opening = match_angle_backward(tokens, i)
        if opening is None or opening == 0:
            return None
        templated = True
        i = opening - 1
    if tokens[i].kind is Kind.IDENT:
        return _qualified_start(tokens, i), templated
    if tokens[i].text == ")" and not templated:  # (kernel_ptr)<<<...>>> or (*fp)<<<...>>>
        opening = match_backward(tokens, i)
        if opening is None:
            return None
        if opening > 0 and _is_callee(tokens, opening - 1):
            return None  # f(x)<<<...: the parentheses are a call's arguments, not a kernel
        return opening, False
    return None


def _qualified_start(tokens: Sequence[Token], i: int) -> int:
    """The first token of the kernel name that ends at identifier ``i``: over names pasted in
    a macro body (`k_##tag##_cuda1<<<...>>>`, candle's mmvq launches) and qualifiers
    (`a::b::k`, `::k`; `obj.k` is not a kernel form CUDA allows)."""
    while i >= 2 and tokens[i - 1].text == "##" and tokens[i - 2].kind is Kind.IDENT:
        i -= 2
    while i >= 2 and tokens[i - 1].text == "::" and tokens[i - 2].kind is Kind.IDENT:
        i -= 2
    if i >= 1 and tokens[i - 1].text == "::" and (i < 2 or tokens[i - 2].kind is not Kind.IDENT):
        i -= 1
    return i


def _is_callee(tokens: Sequence[Token], k: int) -> bool:
    """True when tokens[k] ends an expression that the parenthesis after it would call."""
    tok = tokens[k]
    if tok.kind is Kind.IDENT:
        return tok.text not in _STATEMENT_WORDS
    if tok.text == ")":  # if (c) (*fp)<<<...>>>(): a condition, not a callee
        opening = match_backward(tokens, k)
        return opening is None or opening == 0 or tokens[opening - 1].text not in _CONDITIONS
    # a literal right before the parenthesis is no statement boundary either (`12000 (*fp)`,
    # what a version macro before a call becomes): the launch is left as it is in both cases
    return tok.kind in _LITERALS or tok.text in ("]", ">", ">>", ">>>")


_LITERALS = frozenset({Kind.NUMBER, Kind.STRING, Kind.CHAR})
_CONDITIONS = frozenset({"if", "while", "for", "switch"})
_STATEMENT_WORDS = frozenset({"return", "else", "do", "case"})


def _is_dim3(arg: Arg, tokens: Sequence[Token]) -> bool:
    """True when the argument already is a ``dim3(...)``/``dim3{...}`` expression."""
    first = tokens[arg.first]
    if first.text != "dim3" or arg.first + 1 > arg.last:
        return False
    opener = arg.first + 1
    if tokens[opener].text not in ("(", "{"):
        return False
    return match_forward(tokens, opener) == arg.last


def template_kernels(unit: Unit) -> frozenset[str]:
    """Names of kernels this file declares as templates (``template <...> __global__ ... k(``).

    Their launches get ``HIP_KERNEL_NAME(...)`` even without explicit template arguments, as
    hipify-clang does, so the kernel name stays one macro argument on every HIP platform.
    """
    tokens = unit.tokens
    names: set[str] = set()
    for i in unit.identifier_positions.get("__global__", ()):
        j = i - 1
        while j >= 0 and tokens[j].kind is Kind.IDENT and tokens[j].text in _SPECIFIERS:
            j -= 1
        if j < 0 or tokens[j].text not in (">", ">>"):
            continue
        opening = match_angle_backward(tokens, j)
        if opening is None or opening == 0 or tokens[opening - 1].text != "template":
            continue
        k = i + 1
        while k + 1 < len(tokens) and tokens[k + 1].text != "(" and tokens[k].text not in ";{":
            k += 1
        if k + 1 < len(tokens) and tokens[k].kind is Kind.IDENT:
            names.add(tokens[k].text)
    names.update(_template_name_macros(tokens, unit.directives))
    return frozenset(names)


def _template_name_macros(tokens: Sequence[Token], directives: list[int]) -> Iterator[str]:
    """Object-like macros whose body is a template-id (``#define K axpy<float, 4>``): a comma
    in their expansion would split hipLaunchKernelGGL's arguments without HIP_KERNEL_NAME."""
    for line in directive_lines(tokens, directives):
        define = define_of(line)
        if define is None or define.params is not None:
            continue
        name = define.name
        for tok in define.body:
            if tok.text in ("<<<", ";", "("):
                break
            if tok.text == "<":
                yield name.text
                break


_SPECIFIERS = frozenset({"static", "inline", "extern", "__forceinline__", "__noinline__"})


def rewrite_launch(
    unit: Unit,
    chevron: int,
    templates: frozenset[str] = frozenset(),
    holds_launch: Callable[[int, int], bool] | None = None,
) -> list[Edit] | None:
    """The edits for one launch whose ``<<<`` (or ``<< <``) is tokens[chevron]; None if it is
    not a launch."""
    tokens = unit.tokens
    head = kernel_name_start(tokens, chevron)
    if head is None:
        return None
    holds_launch = holds_launch or _launch_finder(unit)
    name_first, templated = head
    templated = templated or tokens[chevron - 1].text in templates
    last = unit.launch_config_ends.get(chevron)
    if last is None:
        return None
    close = last if tokens[last].text == ">>>" else last - 1  # the closer's first token
    config = split_args(tokens, chevron + opener_width(tokens, chevron), close)
    if config is None or not 2 <= len(config) <= 4:
        return None
    paren = last + 1
    if paren >= len(tokens) or tokens[paren].text != "(":
        return None
    paren_close = match_forward(tokens, paren)
    if paren_close is None:
        return None
    if holds_launch(name_first, chevron) or holds_launch(chevron, paren_close):
        # a launch (or its rewrite) inside this one's name, configuration or arguments: no CUDA
        # (a launch is a void expression), and rewriting one of the two would let a second run
        # rewrite the other: both are left as they are
        return None

    src = unit.text
    name_start = tokens[name_first].start
    name_end = tokens[chevron - 1].end
    edits: list[Edit] = []
    prefix = "hipLaunchKernelGGL(" + ("HIP_KERNEL_NAME(" if templated else "")
    edits.append(Edit(name_start, name_start, prefix, RULE))

    wrap = [not _is_dim3(config[0], tokens), not _is_dim3(config[1], tokens), False, False]
    spans = [arg.span(tokens) for arg in config]
    # name <<< grid: close HIP_KERNEL_NAME, open dim3
    edits.append(
        Edit(
            name_end,
            spans[0][0],
            (")" if templated else "") + ", " + ("dim3(" if wrap[0] else ""),
            RULE,
        )
    )
    # separators between configuration arguments: ', ' (or the original line break)
    for k in range(len(config) - 1):
        end_k, start_next = spans[k][1], spans[k + 1][0]
        edits.append(
            Edit(
                end_k,
                start_next,
                (")" if wrap[k] else "")
                + _separator(src[end_k:start_next])
                + ("dim3(" if wrap[k + 1] else ""),
                RULE,
            )
        )
    args_empty = paren_close == paren + 1
    tail_start = spans[-1][1]
    tail_end = tokens[paren_close].start if args_empty else tokens[paren].end
    tail = (")" if wrap[len(config) - 1] else "") + {2: ", 0, 0", 3: ", 0", 4: ""}[len(config)]
    if not args_empty:
        tail += "," if "\n" in src[tail_end : tokens[paren + 1].start] else ", "
    edits.append(Edit(tail_start, tail_end, tail, RULE))
    return [e for e in edits if e.start != e.end or e.text]


def _separator(between: str) -> str:
    """', ', or ',' plus the original line break and indentation of a multi-line launch."""
    if "\n" in between:  # keep the author's line break (and a macro's backslash)
        return "," + between[between.index(",") + 1 :]
    return ", "


# a launch is several edits over its punctuation: counted once, at its hipLaunchKernelGGL(
LAUNCHES = Tally(
    RULE,
    "launches_rewritten",
    "kernel launches rewritten",
    counts=lambda edit: edit.text.startswith("hipLaunchKernelGGL("),
)


@rewrite_pass("launches", order=30, tallies=(LAUNCHES,))
def launches(unit: Unit, ctx: Context) -> Iterator[Edit]:
    if ctx.options.launch_syntax != "hip" or "<<" not in unit.text:
        return
    templates = template_kernels(unit)
    tokens = unit.tokens
    include_lines = _include_lines(unit)
    holds_launch = _launch_finder(unit)
    for i in sorted(unit.launch_openers + unit.spaced_launch_openers):
        if tokens[i].in_directive and i in include_lines:
            continue  # part of a header name: `#include <a...x<<<1,1>` ends at the first `>`
        edits = rewrite_launch(unit, i, templates, holds_launch)
        if edits:
            yield from edits


def _launch_finder(unit: Unit) -> Callable[[int, int], bool]:
    """Whether tokens strictly between two indices hold a launch opener or a
    ``hipLaunchKernelGGL``: a bisection in their sorted positions, so a file of many nested
    launches stays linear."""
    marks = sorted(
        unit.launch_openers
        + unit.spaced_launch_openers
        + unit.identifier_positions.get("hipLaunchKernelGGL", [])
    )

    def holds(first: int, last: int) -> bool:
        k = bisect.bisect_right(marks, first)
        return k < len(marks) and marks[k] < last

    return holds


def _include_lines(unit: Unit) -> Spans:
    """The tokens of the ``#include``/``#include_next`` lines (one pass over the directive
    lines, not a walk back to the ``#`` for each ``<<<``)."""
    return Spans(
        (line.at, line.after)
        for line in directive_lines(unit.tokens, unit.directives)
        if line.word in ("include", "include_next")
    )
