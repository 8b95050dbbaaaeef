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
    includes,
    lines,
)
from .expressions import defined, evaluate, expression_value, literal
from .hip_build import (
    CUDA_BUILD,
    DEFINED,
    DEVICE_PASS,
    HIP_BUILD,
    HIP_COMPILER_MACROS,
    HIP_RUNTIME_HEADERS,
    HOST_PASS,
    NVIDIA_COMPILER_MACRO,
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
    undefined: Iterable[str] = (),
) -> Inactive:
    """The branches a HIP/AMD compile skips in both its passes (the device pass for gfx942
    and the host pass, ``hip_build.DEVICE_PASS`` and ``HOST_PASS``); ``defines`` are extra
    ``NAME`` / ``NAME=VALUE`` (``-D``) settings that take precedence over the built-in HIP
    build table, and ``undefined`` names it leaves undefined (below ``defines``).  ``cuda``:
    the branches the project's CUDA build skips instead (``CUDA_BUILD``, its HIP switches
    unset)."""
    if cuda:
        return Inactive(_skipped(tokens, directives, defines, CUDA_BUILD, UNDEFINED))
    build = {**HIP_BUILD, **dict.fromkeys(undefined, UNDEFINED)}
    # a branch HIP skips in both of its passes: the device pass for gfx942 and the host pass
    device, host = (
        _skipped(tokens, directives, defines, {**build, **compile_pass}, 1)
        for compile_pass in (DEVICE_PASS, HOST_PASS)
    )
    return Inactive(_intersection(device, host))


def include_guard(found: Sequence[Line]) -> str | None:
    """The name of the file's include guard, its first two directives `#ifndef NAME` (or `#if
    !defined(NAME)`) and `#define NAME` (``found``: its preprocessor lines): open, as at the
    file's first inclusion, so the definitions inside are as certain as the code around
    them."""
    words = [ln for ln in found if ln.word][:2]
    if len(words) < 2 or words[1].word != "define" or not words[1].body:
        return None
    test = [t.text for t in words[0].body]
    if words[0].word == "ifndef" and len(test) == 1:
        name = test[0]
    elif words[0].word == "if" and test[:2] == ["!", "defined"] and len(test) in (3, 5):
        name = test[-2] if len(test) == 5 else test[2]
    else:
        return None
    return name if words[1].body[0].text == name else None


def cuda_switches_of(found: Sequence[Line]) -> set[str]:
    """The file's CUDA switches (``found``: its preprocessor lines): the names a branch tests
    alone, or joined by `||`, that the project's HIP switch, tested alone, follows in the same
    chain.  deepmd-kit's `#if GOOGLE_CUDA` / `#elif TENSORFLOW_USE_ROCM` / `#else #error`: the
    HIP build reaches the branch written for it only where the first is off, so `GOOGLE_CUDA`
    is a switch of the CUDA build alone (round 28: its `#define WARP_SIZE 32` and a 32-bit mask
    there were reported); FlexFlow's `#if defined(FF_USE_CUDA) || defined(FF_USE_HIP_CUDA)` /
    `#elif defined(FF_USE_HIP_ROCM)` (round 29: cuDNN members its ROCm build never sees)."""
    out: set[str] = set()
    chain: list[tuple[str, ...]] = []  # per open `#if`: the names its last branch tested
    for line in found:
        word = line.word
        if word in CONDITIONAL_OPEN or word in CONDITIONAL_NEXT:
            names = _tested_set(word, line.body)
            if word in CONDITIONAL_NEXT and chain:
                before = chain[-1]
                if (
                    before
                    and len(names) == 1
                    and hip_switch(names[0])
                    and not any(map(hip_switch, before))
                ):
                    out.update(before)
                chain[-1] = names
            elif word in CONDITIONAL_OPEN:
                chain.append(names)
        elif word == "endif" and chain:
            chain.pop()
    return out


def _tested_set(word: str, body: Sequence[Token]) -> tuple[str, ...]:
    """The names a branch line tests for being set, alone or joined by `||` (`#ifdef A`, `#if
    A`, `#elif defined(A) || defined(B)`); () for any other condition."""
    if word in ("ifdef", "elifdef"):
        return (body[0].text,) if len(body) == 1 and body[0].kind is Kind.IDENT else ()
    if word not in ("if", "elif"):
        return ()
    names: list[str] = []
    for term in _split(body, "||"):
        rest = [t for t in term if t.text not in ("(", ")")]
        if rest[:1] and rest[0].text == "defined":
            rest = rest[1:]
        if len(rest) != 1 or rest[0].kind is not Kind.IDENT:
            return ()
        names.append(rest[0].text)
    return tuple(names)


def _split(body: Sequence[Token], op: str) -> list[list[Token]]:
    """``body``'s terms between the ``op`` tokens."""
    terms: list[list[Token]] = [[]]
    for t in body:
        if t.text == op:
            terms.append([])
        else:
            terms[-1].append(t)
    return terms


def _skipped(
    tokens: Sequence[Token],
    directives: Sequence[int],
    defines: Iterable[str],
    build: Mapping[str, object],
    switch: object,
) -> tuple[tuple[int, int], ...]:
    """The merged ranges one compile skips, ``build`` its macros and ``switch`` the value of a
    project's HIP switch there; the file's include guard is open whatever they say."""
    branches = HipBranches(defines, build, switch)
    found = lines(tokens, directives)
    guard = include_guard(found)
    if guard:
        branches.known[guard] = UNDEFINED
    if switch == 1:  # the HIP build: the file's CUDA switches are off unless a -D sets them
        for name in cuda_switches_of(found):
            branches.known.setdefault(name, UNDEFINED)
    for line in found:
        if line.word:
            branches.directive(line)
    for frame in branches.stack:  # an unterminated #if runs to the end of the file
        _close(frame, tokens[-1].end if tokens else 0, branches.ranges)
    return merged_ranges(branches.ranges)


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


class HipBranches:
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
            name, equals, value = setting.partition("=")
            # `-DNAME` is 1; `-DNAME=` (the tree's macro of no number) is defined, value unknown
            given = literal(value.strip()) if value.strip() else DEFINED if equals else 1
            self.known[name.strip()] = given
        self.ranges: list[tuple[int, int]] = []
        self.stack: list[list] = []

    def here(self) -> bool | None:
        """Whether the compile reaches the current line: True, False or None (cannot tell)."""
        stack = self.stack
        return _and(stack[-1][0], stack[-1][1]) if stack else True

    def value_of(self, body: Sequence[Token]) -> object:
        """What `#define NAME ...` (``body``: the tokens after `define`) gives NAME here: a
        number (a literal, or an expression the known macros decide: TransformerEngine's
        `FP4_TYPE_SUPPORTED (CUDA_VERSION >= 12080)` is 0 where convert writes CUDA 12.0),
        else DEFINED; None for a device-pass test (`!defined(__CUDA_ARCH__) || ...`), which
        convert rewrites into one whose value differs between the passes."""
        rest = body[1:]
        if len(rest) == 1 and rest[0].kind is Kind.NUMBER:
            return literal(rest[0].text)
        if not rest or (rest[0].text == "(" and rest[0].start == body[0].end):
            return DEFINED  # empty, or a function-like macro
        if device_pass_test("if", rest):
            return None
        value = expression_value(rest, self.known)
        return DEFINED if value is None else value

    def directive(self, line: Line) -> None:
        word, body = line.word, list(line.body)
        stack = self.stack
        here = self.here()  # state of this line
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
        cond = defined(body[0].text if body else "", known)
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
        else:
            known[name] = self.value_of(body) if certain else None


_GATE_NAMES = frozenset({*macro_values(REFERENCE_CUDA), ARCH})


def merged_ranges(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
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
        undefined = unit.project_undefined
        if not cuda and tests_hip_compiler(unit):
            undefined = undefined | {NVIDIA_COMPILER_MACRO}
        found = hip_inactive(unit.tokens, unit.directives, defines, cuda, undefined)
        unit.__dict__[key] = found
    return found


def tests_hip_compiler(unit: Unit) -> bool:
    """The unit's conditionals test a macro of HIP's compiler (``HIP_COMPILER_MACROS``), and
    HIP's compiler builds it as written: it includes HIP's runtime header, or a file of the
    tree that does includes it (``Unit.hip_includers``: MMseqs2's libmarv, which hipcc
    builds).  Its `__CUDACC__` means NVIDIA's then (computed once).  HeCBench's `cm-cuda`
    `utils.h` tests `__HIPCC__` too, but only CUDA sources include it, and they use the
    `CUDA_CHECK_RETURN` it defines under `__CUDACC__` alone (a silent TU when it read as
    NVIDIA's)."""
    found = unit.__dict__.get("_tests_hip_compiler")
    if found is None:
        toks = unit.tokens
        found = (unit.hip_includers or _includes_hip_runtime(unit)) and any(
            toks[i].in_directive and unit.directive_word(i) in CONDITIONAL_OPEN | CONDITIONAL_NEXT
            for name in HIP_COMPILER_MACROS & unit.identifiers
            for i in unit.identifier_positions[name]
        )
        unit.__dict__["_tests_hip_compiler"] = found
    return found


def _includes_hip_runtime(unit: Unit) -> bool:
    """`#include <hip/hip_runtime.h>` (or its API header): code a HIP compiler builds as
    written."""
    return any(
        inc.path.startswith("hip/") and inc.path[4:] in HIP_RUNTIME_HEADERS
        for inc in includes(unit.text, unit.tokens, unit.directives)
    )
