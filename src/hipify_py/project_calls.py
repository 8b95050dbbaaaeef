"""Which device functions the tree calls: a call graph by name, read from the texts alone.

A device function that no code reaches is compiled into nothing, so a hazard inside it never
reaches the GPU: flash-llm's `cp_async_wait_all`, whose only calls sit in a commented-out kernel
(round 26), lmdeploy's `LdShared` (round 14), hornet's `discontinuity_mask` (round 29), and
moderngpu's segmented-scan templates that only other unused templates name, in warp-ctc's and
flashlight's copies (rounds 11 and 28).  The readers judged each such finding false.

A definition is found as the index finds one (``definitions``: a name, a plain parameter list,
a body); a mention of a defined name is a call from the innermost definition around it, or a
use from outside any (a macro, a class body, a table of function pointers).  Kernels, and host
functions that another language or a run-time compiler may call by name (neither templates,
`inline` nor `static`, or `extern "C"`), are roots, and so is any mention outside a
definition or in a string literal (NCCL EP's `combine_kernel_impl`, named only in the source
text its host code hands a run-time compiler, round 5).  Any other
function is uncalled when every function that names it is uncalled, itself excepted; names,
not overloads, are the unit, so an overload set is called when any of it is.

A mention inside `#if __CUDA_ARCH__ >= N` (N a number, or a name the tree defines as one, at
least 1) with an `#else` is no call in the HIP build, which never defines `__CUDA_ARCH__` and
takes the `#else`: mfaktc's `__umad32`, PTX called only under `#if __CUDA_ARCH__ >= KEPLER`
(round 35), and PyTorch-Encoding's shuffle helper under `#if __CUDA_ARCH__ >= 300` (round 34).
A value the tree `#define`s `__CUDA_ARCH__` to counts as well (ggml's HIP build defines it).
Pure: the texts come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

# `NAME(params) {` / `NAME(params) const {` (a function definition; the parameter list holds
# no braces or semicolons, and parentheses one deep: moderngpu's `Op op = Op()`), found from its
# `(`, a literal search, then its name before it: a pattern that starts with the name is tried
# at every byte (a third of a cached `check` of an 8 MB tree)
DEFINITION = re.compile(rb"\((?:[^;{}()]|\([^;{}()]*\))*\)[ \t\r\n]*(?:const[ \t\r\n]*)?\{")
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# the statements whose parenthesis a block follows as a definition's does: `if (x) {` is no
# function (read as one, a call in an `if` block had the caller "if", a root)
_STATEMENTS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof"})
_NAME_BYTES = 256  # how far before its `(` a function's name (and its spaces) may start
_HEAD_BYTES = 512  # how far before its name a definition's specifiers may start
# comments and string literals, blanked (offsets kept) before names are read; each alternative
# also ends at the end of its line or text, so an unterminated one costs one pass, not one per
# start (a pull request may hold ten thousand `/*`)
_NOT_CODE = re.compile(
    rb"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*(?:\"|$)|'(?:\\.|[^'\\\n])*(?:'|$)",
    re.S | re.M,
)
_WORD = re.compile(rb"[A-Za-z_]\w*")
_BRACE = re.compile(rb"[{}]")
_EXTERN_BLOCK = re.compile(rb"\bextern\s*\{")
# what a host function is that no other language can call by name
_INTERNAL = frozenset({b"template", b"inline", b"static", b"__forceinline__"})
# `#if`/`#elif __CUDA_ARCH__ >= N` (or `>`), alone or after `defined(__CUDA_ARCH__) &&`
_ARCH_GATE = re.compile(
    rb"#[ \t]*(?:el)?if[ \t(]+(?:defined[ \t]*\(?[ \t]*__CUDA_ARCH__[ \t]*\)?[ \t]*&&[ \t(]*)?"
    rb"__CUDA_ARCH__[ \t]*(>=?)[ \t]*(\w+)[ \t)]*$"
)
# each pattern starts with its literal `#`, which the search skips to (a leading `^[ \t]*` is
# tried at every byte: 0.9 s over FasterTransformer's 178 MB, against 0.05 s)
_CONDITIONAL = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*")
# `#define NAME 300`, `#define NAME (32u)`: a macro defined as a number
NUMBER_DEFINE = re.compile(
    rb"#[ \t]*define[ \t]+(\w+)[ \t]+\(?[ \t]*(\d+)[uUlL]*[ \t]*\)?[ \t]*$", re.M
)
# an object-like macro whose body says `__device__` or `__global__`
_SPECIFIER_MACRO = re.compile(
    rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+[^(\n][^\n]*\b(__(?:device|global)__)\b"
)


def definitions(data: bytes) -> Iterator[tuple[str, int, int]]:
    """(name, offset of the name, offset of the body's `{`) of each function ``data`` defines:
    the identifier just before each plain parameter list that a body follows (read backwards
    from the `(`: a search for a pattern ending there would try every byte of the window)."""
    for m in DEFINITION.finditer(data):
        end = m.start()
        floor = max(0, end - _NAME_BYTES)
        while end > floor and data[end - 1] in b" \t":
            end -= 1
        start = end
        while start > floor and data[start - 1] in WORD_BYTES:
            start -= 1
        if start < end and not data[start : start + 1].isdigit() and (start == 0 or start > floor):
            name = data[start:end].decode("ascii")
            if name not in _STATEMENTS:
                yield name, start, m.end() - 1


class CallGraph(NamedTuple):
    """Who names each function the tree defines (None: code outside any definition), and
    which of them are device functions and which roots (kernels, host functions another
    language may call)."""

    callers: dict[str, set[str | None]]
    device: frozenset[str]
    roots: frozenset[str]

    def uncalled(self) -> frozenset[str]:
        """The device functions no code reaches."""
        callers = self.callers
        found = {n for n in self.device - self.roots if callers[n] <= {n}}
        while True:
            more = {
                n
                for n in self.device - self.roots - found
                if None not in callers[n] and callers[n] <= found | {n}
            }
            if not more:
                return frozenset(found)
            found |= more

    def called_only_from(self, functions: frozenset[str]) -> frozenset[str]:
        """The device functions that some of ``functions`` call and only they, directly or
        through others of the kind (callers no code reaches aside): the helpers of the
        kernels launched with 32-thread blocks (wholegraph's `CacheSet` methods, called from
        `<<<n, 32>>>` kernels of another file, round 36: 2 false HZ105)."""
        dead = self.uncalled()  # a caller no code reaches runs nowhere
        live = {n: self.callers[n] - {n} - dead for n in self.device - self.roots - functions}
        found: set[str] = set()
        while True:
            more = {
                n
                for n, callers in live.items()
                if n not in found
                and callers
                and None not in callers
                and callers <= functions | found
            }
            if not more:
                return frozenset(found)
            found |= more


def call_graph(texts: Iterable[tuple[str, bytes]], defined: set[str]) -> CallGraph:
    """The call graph of ``defined`` (the names of the functions the texts define)."""
    callers: dict[str, set[str | None]] = {name: set() for name in defined}
    heads: list[tuple[str, bytes]] = []  # each definition's name and specifiers
    # `__device__`, `__global__`, and the macros that spell them (`#define MGPU_DEVICE
    # __device__ __forceinline__`)
    spelled: dict[bytes, set[bytes]] = {
        b"__device__": {b"__device__"},
        b"__global__": {b"__global__"},
    }
    gated: dict[str, set[tuple[str | None, bytes, bytes]]] = {}  # under an arch gate
    numbers: dict[bytes, set[int]] = {}  # what the tree `#define`s as numbers
    spoken: set[bytes] = set()  # the words of the string literals

    def blank(m: re.Match[bytes]) -> bytes:
        if m.group(0)[:1] == b'"':
            spoken.update(_WORD.findall(m.group(0)))
        return b" " * len(m.group(0))

    for _path, data in texts:
        code = _NOT_CODE.sub(blank, data)
        heads.extend(_read(code, callers, gated))
        for m in _SPECIFIER_MACRO.finditer(code):
            spelled[m.group(2)].add(m.group(1))
        for m in NUMBER_DEFINE.finditer(code):
            numbers.setdefault(m.group(1), set()).add(int(m.group(2)))
    for name in {w.decode("ascii") for w in spoken} & callers.keys():
        callers[name].add(None)  # source a run-time compiler builds (NCCL EP's JIT'ed kernels)
    for name, mentions in gated.items():
        for caller, op, bound in mentions:
            if not _skipped_by_hip(op, bound, numbers):
                callers[name].add(caller)
    return CallGraph(callers, *_kinds(heads, spelled))


def _kinds(
    heads: list[tuple[str, bytes]], spelled: dict[bytes, set[bytes]]
) -> tuple[frozenset[str], frozenset[str]]:
    """The device functions and the roots among the definitions ``heads`` (name, specifiers),
    with ``spelled`` the macros that say `__device__` and `__global__`."""
    device: set[str] = set()
    roots: set[str] = set()
    for name, head in heads:
        words = set(_WORD.findall(head))
        internal = words & spelled[b"__device__"] or words & _INTERNAL
        # launched by a runtime that may find it by name; not a kernel template, which only
        # its launches instantiate (CUDABeaver's layernorm kernels that nothing launches,
        # round 40: 3 false findings)
        kernel = words & spelled[b"__global__"] and b"template" not in words
        (device if internal and not kernel and b"extern" not in words else roots).add(name)
    return frozenset(device), frozenset(roots)


def _skipped_by_hip(op: bytes, bound: bytes, numbers: dict[bytes, set[int]]) -> bool:
    """`__CUDA_ARCH__ op bound` is false where `__CUDA_ARCH__` is undefined (0), and for each
    number the tree defines it as (mfaktc's `#define __CUDA_ARCH__ 0` for its host pass; ggml's
    `1300` for its HIP build keeps `>= 700` taken)."""
    values = {int(bound)} if bound.isdigit() else numbers.get(bound, set())
    if len(values) != 1:
        return False
    limit = next(iter(values))
    arch = {0} | numbers.get(b"__CUDA_ARCH__", set())
    return all(a < limit if op == b">=" else a <= limit for a in arch)


def _gates(code: bytes) -> list[tuple[int, int, bytes, bytes]]:
    """(start, end, operator, bound) of each branch of ``code`` under `#if __CUDA_ARCH__ >=
    bound` (``_ARCH_GATE``) that an `#else` (or an `#elif` of another test) follows: the HIP
    build takes that branch instead.  A gated branch with no other is the code itself, which
    the port must open to AMD (cuVS's `#if (__CUDA_ARCH__ >= 700)` around its NN-descent
    kernels' bodies, whose findings were judged true in round 16)."""
    out: list[tuple[int, int, bytes, bytes]] = []
    stack: list[tuple[int, bytes, bytes] | None] = []  # each open `#if`: its gate, if one
    for m in _CONDITIONAL.finditer(code):
        word = m.group(1)
        gate = _ARCH_GATE.match(m.group(0)) if word in (b"if", b"elif") else None
        if word in (b"elif", b"else", b"endif") and stack:
            top = stack.pop()
            otherwise = word == b"else" or (word == b"elif" and gate is None)
            if top is not None and otherwise:
                out.append((top[0], m.start(), top[1], top[2]))
            if word == b"endif":
                continue
        elif word in (b"elif", b"else", b"endif"):
            continue  # unbalanced: the file's own business
        stack.append((m.end(), gate.group(1), gate.group(2)) if gate else None)
    return out


def _read(
    code: bytes,
    callers: dict[str, set[str | None]],
    gated: dict[str, set[tuple[str | None, bytes, bytes]]],
) -> list[tuple[str, bytes]]:
    """Record in ``callers`` the definition around each mention of a defined function in
    ``code`` (a text with its comments and strings blanked; None outside any), or in
    ``gated`` with the arch gate around it (``_gates``); each definition's name and
    specifiers."""
    found = list(_bodies(code, callers))
    gates = sorted(_gates(code)) if b"__CUDA_ARCH__" in code else []
    open_gates: list[tuple[int, int, bytes, bytes]] = []
    g = 0
    bodies = [(brace, end, name, start) for name, start, brace, end, _head in found]
    stack: list[tuple[int, str]] = []  # (body end, the definition's name)
    k = 0
    for m in _WORD.finditer(code):
        name = m.group(0).decode("ascii")
        if name not in callers:
            continue
        at = m.start()
        while k < len(bodies) and bodies[k][0] < at:
            stack.append((bodies[k][1], bodies[k][2]))
            k += 1
        while stack and stack[-1][0] < at:
            stack.pop()
        if any(body[3] == at for body in bodies[k : k + 2]):
            continue  # the name of a definition
        caller = stack[-1][1] if stack else None
        while g < len(gates) and gates[g][0] <= at:
            open_gates.append(gates[g])
            g += 1
        while open_gates and open_gates[-1][1] <= at:
            open_gates.pop()  # gates nest as the preprocessor's branches do
        if open_gates:
            gated.setdefault(name, set()).add((caller, open_gates[-1][2], open_gates[-1][3]))
        else:
            callers[name].add(caller)
    return [(name, head) for name, _start, _brace, _end, head in found]


def _bodies(
    code: bytes, callers: dict[str, set[str | None]]
) -> Iterator[tuple[str, int, int, int, bytes]]:
    """(name, its offset, body start, body end, the specifiers before the name) of each
    definition of a name of ``callers`` in ``code``, in order."""
    close: dict[int, int] = {}
    opened: list[int] = []
    for m in _BRACE.finditer(code):
        if m.group(0) == b"{":
            opened.append(m.start())
        elif opened:
            close[opened.pop()] = m.start()
    # `extern "C" { ... }` (its string blanked): flashinfer's generated routing kernels,
    # which a host program loads by name
    blocks = [(m.end() - 1, close.get(m.end() - 1, 0)) for m in _EXTERN_BLOCK.finditer(code)]
    for name, start, brace in definitions(code):
        if name in callers and brace in close:
            head = code[max(0, start - _HEAD_BYTES) : start]
            head = head[max(head.rfind(b";"), head.rfind(b"}"), head.rfind(b"{")) + 1 :]
            if any(a < start < b for a, b in blocks):
                head += b" extern"
            yield name, start, brace, close[brace], head
