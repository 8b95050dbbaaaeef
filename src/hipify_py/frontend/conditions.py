"""Which preprocessor branches the HIP/AMD build compiles, decided from the raw tokens.

Portable code keeps its CUDA-only variant behind ``#ifndef USE_ROCM`` or the ``#else`` of a
``__HIP_PLATFORM_AMD__`` test.  Hazards in such a branch are not hazards of the port, so rules
need to know which text HIP never sees.  The evaluator is three-valued: a condition is
definitely true, definitely false, or unknown (it mentions a macro whose value only the user's
build knows).  Only a definitely false branch counts as inactive, so anything doubtful is still
checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cuda_release import REFERENCE_CUDA, macro_values
from .directives import (
    ARCH,
    CONDITIONAL_NEXT,
    CONDITIONAL_OPEN,
    Line,
    device_pass_test,
    integer,
    lines,
)
from .hip_build import (
    CUDA_BUILD,
    DEFINED,
    DEVICE_PASS,
    HIP_BUILD,
    HOST_PASS,
    NOT_FOR_INSTINCT,
    UNDEFINED,
    hip_switch,
)
from .lexer import Kind, Token
from .spans import Spans

if TYPE_CHECKING:
    from .unit import Unit


@dataclass(frozen=True)
class Inactive:
    """Character ranges ``[start, end)`` that the HIP/AMD build never compiles, and the
    ``#if`` lines whose outcome it decides by itself (a version or architecture gate in
    ``#if !defined(USE_ROCM) && CUDA_VERSION >= 12000`` is no hazard of the port)."""

    ranges: tuple[tuple[int, int], ...]

    def __contains__(self, offset: object) -> bool:
        return isinstance(offset, int) and offset in self._spans

    @property
    def _spans(self) -> Spans:
        spans = self.__dict__.get("_s")
        if spans is None:
            spans = Spans(self.ranges)
            object.__setattr__(self, "_s", spans)
        return spans


def hip_inactive(
    tokens: Sequence[Token],
    directives: Sequence[int],
    defines: Iterable[str] = (),
    cuda: bool = False,
) -> Inactive:
    """The branches a HIP/AMD compile skips in both its passes (the device pass for gfx942
    and the host pass, ``hip_build.DEVICE_PASS`` and ``HOST_PASS``); ``defines`` are extra
    ``NAME`` / ``NAME=VALUE`` (``-D``) settings that take precedence over the built-in HIP
    build table.  ``cuda``: the
    branches the project's CUDA build skips instead (``CUDA_BUILD``, its HIP switches unset)."""
    if cuda:
        return Inactive(_skipped(tokens, directives, defines, CUDA_BUILD, UNDEFINED))
    # a branch HIP skips in both of its passes: the device pass for gfx942 and the host pass
    device, host = (
        _skipped(tokens, directives, defines, {**HIP_BUILD, **compile_pass}, 1)
        for compile_pass in (DEVICE_PASS, HOST_PASS)
    )
    return Inactive(_intersection(device, host))


def _skipped(
    tokens: Sequence[Token],
    directives: Sequence[int],
    defines: Iterable[str],
    build: Mapping[str, object],
    switch: object,
) -> tuple[tuple[int, int], ...]:
    """The merged ranges one compile skips, ``build`` its macros and ``switch`` the value of a
    project's HIP switch there."""
    branches = _HipBranches(defines, build, switch)
    for line in lines(tokens, directives):
        if line.word:
            branches.directive(line)
    for frame in branches.stack:  # an unterminated #if runs to the end of the file
        _close(frame, tokens[-1].end if tokens else 0, branches.ranges)
    return _merged(branches.ranges)


def _intersection(
    a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """The ranges both merged, sorted range lists cover."""
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


class _HipBranches:
    """One pass over a file's directives in order, deciding which branches a HIP compile
    takes.

    ``known``: what the compile defines (``build``, then ``-D``, then the file's own
    ``#define``s in code HIP surely compiles).  ``ranges``: the inactive byte ranges, and the
    ``#if``/``#elif`` lines whose condition was decided.  ``stack``: one frame per open
    ``#if``: [state of the enclosing code, state of the current branch, whether an earlier
    branch was taken (True/None/False), start offset of the branch body].
    """

    def __init__(self, defines: Iterable[str], build: Mapping[str, object], switch: object) -> None:
        self.known: dict[str, object] = dict(build)
        self.switch = switch  # a project's HIP switch
        for setting in defines:
            name, _, value = setting.partition("=")
            self.known[name.strip()] = _literal(value.strip()) if value.strip() else 1
        self.ranges: list[tuple[int, int]] = []
        self.stack: list[list] = []

    def directive(self, line: Line) -> None:
        word, body = line.word, list(line.body)
        stack = self.stack
        here = _and(stack[-1][0], stack[-1][1]) if stack else True  # state of this line
        for t in body:  # a project's HIP switch is defined like the table's names
            if t.kind is Kind.IDENT and t.text not in self.known and hip_switch(t.text):
                self.known[t.text] = self.switch
        if word in CONDITIONAL_OPEN:
            cond = self._condition(word, body)
            stack.append([here, cond, cond, line.end])
            if word == "if" and cond is not None and self._decided_by_others(body):
                self.ranges.append((line.start, line.end))
        elif word in CONDITIONAL_NEXT and stack:
            self._next_branch(line, word, body)
        elif word == "endif" and stack:
            _close(stack.pop(), line.start, self.ranges)
        elif word in ("define", "undef"):
            self._definition(word, body, here)

    def _condition(self, word: str, body: list[Token]) -> bool | None:
        """Whether HIP takes the branch ``#if``/``#elif`` (evaluated) or ``#ifdef``,
        ``#ifndef``, ``#elifdef``, ``#elifndef`` opens (None: cannot tell)."""
        known: Mapping[str, object] = self.known
        if device_pass_test(word, body):  # convert makes it a __HIP_DEVICE_COMPILE__ test
            known = {**known, ARCH: None}
        if word in ("if", "elif"):
            return evaluate(body, known)
        cond = _defined(body[0].text if body else "", known)
        return _not(cond) if word in ("ifndef", "elifndef") else cond

    def _decided_by_others(self, body: list[Token]) -> bool:
        """The condition's outcome does not hang on the CUDA version macros or
        ``__CUDA_ARCH__`` (``#if !defined(USE_ROCM) && __CUDA_ARCH__ >= 800``): a line HIP
        decides by those is the conversion's to rewrite (``--portable`` guards the version
        values it writes) and HZ501's to report, so it is not settled text."""
        if not any(t.text in _GATE_NAMES for t in body):
            return True
        return evaluate(body, {**self.known, **dict.fromkeys(_GATE_NAMES)}) is not None

    def _next_branch(self, line: Line, word: str, body: list[Token]) -> None:
        """``#else``/``#elif...``: close the branch before, open this one."""
        frame = self.stack[-1]
        _close(frame, line.start, self.ranges)
        taken = frame[2]
        cond = True if word == "else" else self._condition(word, body)
        if word == "elif" and cond is not None and self._decided_by_others(body):
            self.ranges.append((line.start, line.end))
        frame[1] = _and(_not(taken), cond)
        frame[2] = _or(taken, cond)
        frame[3] = line.end

    def _definition(self, word: str, body: list[Token], here: bool | None) -> None:
        """``#define``/``#undef`` in code whose state is ``here``."""
        known = self.known
        if here is False:
            if word == "define" and body and body[0].text not in known:
                # defined only where HIP never goes (so far): undefined for the HIP build
                known[body[0].text] = UNDEFINED
            return
        # a definition made in code HIP surely compiles becomes part of what is known
        if not body or body[0].kind is not Kind.IDENT:
            return
        name = body[0].text
        certain = here is True
        if word == "undef":
            known[name] = UNDEFINED if certain else None
        elif not certain:
            known[name] = None
        elif len(body) == 2 and body[1].kind is Kind.NUMBER:
            known[name] = _literal(body[1].text)
        else:
            known[name] = DEFINED


_GATE_NAMES = frozenset({*macro_values(REFERENCE_CUDA), ARCH})


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """``ranges`` sorted, overlapping or touching ones joined."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return tuple(merged)


def _close(frame: list, end: int, ranges: list[tuple[int, int]]) -> None:
    if frame[1] is False and frame[0] is not False:
        ranges.append((frame[3], end))


def _literal(text: str) -> object:
    value = integer(text)
    return DEFINED if value is None else value


def _defined(name: str, known: Mapping[str, object]) -> bool | None:
    if name not in known:
        return False if NOT_FOR_INSTINCT.search(name) else None
    value = known[name]
    return None if value is None else value is not UNDEFINED


def _not(v: object) -> bool | None:
    return None if v is None else not v


def _and(a: object, b: object) -> bool | None:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: object, b: object) -> bool | None:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def evaluate(body: Sequence[Token], known: Mapping[str, object]) -> bool | None:
    """The truth of an ``#if`` expression: True, False or None (unknown); ``known`` maps a
    macro to its value, ``DEFINED``, ``UNDEFINED`` or None (unknown)."""
    value = expression_value(body, known)
    return None if value is None else bool(value)


def expression_value(body: Sequence[Token], known: Mapping[str, object]) -> int | None:
    """The integer value of a C expression of numbers and ``known`` names (None: unknown or
    not such an expression), by the preprocessor's rules."""
    parser = _Parser(body, known)
    try:
        value = parser.expr()
    except _Unknown:
        return None
    return None if parser.i != len(body) else value


class _Unknown(Exception):
    """The expression has a shape the evaluator does not handle."""


# Nesting beyond this is not real preprocessor code; the value is unknown (no deep recursion).
_MAX_NESTING = 64


_BINARY = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)


# C++'s alternative spellings of the operators, which `#if` accepts too: DeepGEMM writes
# `#if defined(__CUDA_ARCH__) and (__CUDA_ARCH__ >= 1000)` (round 23: its PTX and version-gated
# driver calls read as compiled, 3 false findings)
_ALTERNATIVE = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "bitand": "&",
    "bitor": "|",
    "xor": "^",
    "compl": "~",
    "not_eq": "!=",
}


class _Parser:
    """Precedence climbing over ``#if`` tokens; a value is an int or None (unknown)."""

    def __init__(self, toks: Sequence[Token], known: Mapping[str, object]) -> None:
        self.toks = toks
        self.known = known
        self.i = 0
        self.nesting = 0

    def peek(self) -> str:
        return _spelled(self.toks[self.i]) if self.i < len(self.toks) else ""

    def take(self) -> Token:
        if self.i >= len(self.toks):
            raise _Unknown
        self.i += 1
        return self.toks[self.i - 1]

    def expr(self) -> int | None:
        cond = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.expr()
            if self.take().text != ":":
                raise _Unknown
            b = self.expr()
            if cond is None:
                return a if a == b else None
            return a if cond else b
        return cond

    def binary(self, level: int) -> int | None:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = _spelled(self.take())
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def unary(self) -> int | None:
        self.nesting += 1
        try:
            if self.nesting > _MAX_NESTING:
                raise _Unknown
            return self._unary()
        finally:
            self.nesting -= 1

    def _unary(self) -> int | None:
        tok = self.take()
        x = _spelled(tok)
        if x in ("!", "-", "+", "~"):
            return _prefix(x, self.unary())
        if x == "(":
            v = self.expr()
            if self.take().text != ")":
                raise _Unknown
            return v
        if x == "defined":
            return self._defined_operator()
        if tok.kind is Kind.NUMBER:
            literal = _literal(x)
            if not isinstance(literal, int):
                raise _Unknown
            return literal
        if tok.kind is Kind.IDENT:
            return self._identifier(x)
        raise _Unknown

    def _defined_operator(self) -> int | None:
        """``defined NAME`` or ``defined(NAME)``, after the ``defined``."""
        paren = self.peek() == "("
        if paren:
            self.take()
        name = self.take().text
        if paren and self.take().text != ")":
            raise _Unknown
        d = _defined(name, self.known)
        return None if d is None else int(d)

    def _identifier(self, x: str) -> int | None:
        """A name's value: a known macro's, 0 for one HIP leaves undefined (or a name that
        is not for the compiler's instinct to define), unknown otherwise."""
        if self.peek() == "(":  # a function-like macro: its value is unknown
            self._skip_call()
            return None
        if x in ("true", "false"):
            return int(x == "true")
        value = self.known.get(x)
        if value is UNDEFINED or (x not in self.known and NOT_FOR_INSTINCT.search(x)):
            return 0
        return value if isinstance(value, int) else None

    def _skip_call(self) -> None:
        """Past a macro call's balanced parentheses."""
        depth = 0
        while True:
            t = self.take().text
            depth += t == "("
            depth -= t == ")"
            if depth == 0:
                return


def _spelled(tok: Token) -> str:
    """The operator a token spells (``and`` is ``&&``), else its text."""
    return _ALTERNATIVE.get(tok.text, tok.text) if tok.kind is Kind.IDENT else tok.text


def _prefix(op: str, v: int | None) -> int | None:
    """A prefix operator (``!``, ``-``, ``+``, ``~``) over a possibly unknown operand."""
    if v is None:
        return None
    if op == "!":
        return int(not v)
    return -v if op == "-" else ~v if op == "~" else v


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    """A binary operator over possibly unknown operands (short-circuit where C would)."""
    if op == "&&":
        if a == 0 or b == 0:
            return 0
        return None if a is None or b is None else 1
    if op == "||":
        if (a is not None and a != 0) or (b is not None and b != 0):
            return 1
        return None if a is None or b is None else 0
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        return None
    return {
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "&": lambda: a & b,
        "==": lambda: int(a == b),
        "!=": lambda: int(a != b),
        "<": lambda: int(a < b),
        ">": lambda: int(a > b),
        "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b),
        "<<": lambda: a << b if 0 <= b < 64 else None,
        ">>": lambda: a >> b if 0 <= b < 64 else None,
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: int(a / b),
        "%": lambda: a % b,
    }[op]()


def hip_written_in(unit: Unit) -> Inactive:
    """The unit's code that only the project's HIP build compiles (the branches its CUDA build
    skips: `#ifdef USE_ROCM`, the `#else` of `#ifndef GGML_USE_HIP`): written for AMD by the
    project, so findings about CUDA code being ported do not apply there."""
    return _branches_of(unit, cuda=True)


def inactive_in(unit: Unit) -> Inactive:
    """The unit's HIP-inactive ranges, honouring its ``-D`` flags."""
    return _branches_of(unit, cuda=False)


def _branches_of(unit: Unit, cuda: bool) -> Inactive:
    """The ranges one build skips, computed once per unit and build (the unit's ``-D`` flags
    are its HIP build's: the CUDA build's are not known)."""
    key = "_cuda_inactive" if cuda else "_hip_inactive"
    found = unit.__dict__.get(key)
    if found is None:
        flags = [a[2:] for a in unit.clang_args if a.startswith("-D") and len(a) > 2]
        defines = [] if cuda else [*unit.project_defines, *flags]  # -D flags win
        found = hip_inactive(unit.tokens, unit.directives, defines, cuda)
        unit.__dict__[key] = found
    return found
