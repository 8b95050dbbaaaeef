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
definition.  Any other
function is uncalled when every function that names it is uncalled, itself excepted; names,
not overloads, are the unit, so an overload set is called when any of it is.  Pure: the texts
come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# `NAME(params) {` / `NAME(params) const {` (a function definition; the parameter list holds
# no braces or semicolons, and parentheses one deep: moderngpu's `Op op = Op()`), found from its
# `(`, a literal search, then its name before it: a pattern that starts with the name is tried
# at every byte (a third of a cached `check` of an 8 MB tree)
DEFINITION = re.compile(rb"\((?:[^;{}()]|\([^;{}()]*\))*\)[ \t\r\n]*(?:const[ \t\r\n]*)?\{")
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
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
            yield data[start:end].decode("ascii"), start, m.end() - 1


def uncalled(texts: Iterable[tuple[str, bytes]], defined: set[str]) -> frozenset[str]:
    """Those of ``defined`` (the names of the functions the texts define) that no code
    reaches."""
    callers: dict[str, set[str | None]] = {name: set() for name in defined}
    heads: list[tuple[str, bytes]] = []  # each definition's name and specifiers
    # `__device__`, `__global__`, and the macros that spell them (`#define MGPU_DEVICE
    # __device__ __forceinline__`)
    spelled: dict[bytes, set[bytes]] = {
        b"__device__": {b"__device__"},
        b"__global__": {b"__global__"},
    }
    for _path, data in texts:
        code = _NOT_CODE.sub(lambda m: b" " * len(m.group(0)), data)
        heads.extend(_read(code, callers))
        for m in _SPECIFIER_MACRO.finditer(code):
            spelled[m.group(2)].add(m.group(1))
    device: set[str] = set()
    roots: set[str] = set()
    for name, head in heads:
        words = set(_WORD.findall(head))
        internal = words & spelled[b"__device__"] or words & _INTERNAL
        kernel = words & spelled[b"__global__"]  # launched by a runtime that may find it by name
        (device if internal and not kernel and b"extern" not in words else roots).add(name)
    found = {n for n in device - roots if callers[n] <= {n}}
    while True:
        more = {
            n
            for n in device - roots - found
            if None not in callers[n] and callers[n] <= found | {n}
        }
        if not more:
            return frozenset(found)
        found |= more


def _read(code: bytes, callers: dict[str, set[str | None]]) -> list[tuple[str, bytes]]:
    """Record in ``callers`` the definition around each mention of a defined function in
    ``code`` (a text with its comments and strings blanked; None outside any); each
    definition's name and specifiers."""
    found = list(_bodies(code, callers))
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
        callers[name].add(stack[-1][1] if stack else None)
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
