"""The class templates of the tree's headers that have no base class, and the names their bodies
hold (``ProjectIndex.closed_templates``): HZ332 asks whether `this->NAME` in an out-of-class
member definition of another file names anything of the class (CudaTextureGen's
`CurandArray<Dim>::init()` in a `.cu`, its class in a `.cuh`, compile round 38).

A class the tree defines twice or specializes (`class NAME<...>`), and one whose body invokes a
function-like macro in capitals (which may declare members), is left out: the question needs
the one body the compiler reads.  Pure: texts come from the caller; each header is scanned once,
its class bodies by brace depth."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .frontend.unit import SOURCE_SUFFIXES

# `template <...> class NAME {` (no base clause, no specialization): the name, then the `{`
_CLOSED = re.compile(rb"\btemplate\s*<[^;{}]*>\s*(?:class|struct)\s+([A-Za-z_]\w*)\s*\{")
_SPECIALIZED = re.compile(rb"\b(?:class|struct)\s+([A-Za-z_]\w*)\s*<")
_WORD = re.compile(rb"[A-Za-z_]\w*")
_MACRO_CALL = re.compile(rb"\b[A-Z_][A-Z0-9_]*\s*\(")
_LONGEST = 65536  # a class body longer than this is not read


def closed_bodies(path: str, data: bytes) -> Iterator[tuple[str, frozenset[str] | None]]:
    """(class name, the names its body holds) for each closed class template a header defines;
    None for a body that cannot be read (a macro in it, or longer than the bound) or a
    specialization, so the class counts as defined and is left out."""
    if path.endswith(SOURCE_SUFFIXES) or b"template" not in data:
        return
    for m in _SPECIALIZED.finditer(data):
        yield m.group(1).decode(), None
    for m in _CLOSED.finditer(data):
        end = _closing(data, m.end() - 1)
        body = data[m.end() : end] if end is not None else b""
        if end is None or _MACRO_CALL.search(body):
            yield m.group(1).decode(), None
        else:
            yield m.group(1).decode(), frozenset(w.decode() for w in _WORD.findall(body))


class ClosedTemplates:
    """Collects ``closed_bodies`` file by file; ``found`` gives the classes found readable
    exactly once in the tree, as ``ProjectIndex.closed_templates`` holds them."""

    def __init__(self) -> None:
        self.bodies: dict[str, list[frozenset[str] | None]] = {}

    def add(self, path: str, data: bytes) -> None:
        for name, words in closed_bodies(path, data):
            self.bodies.setdefault(name, []).append(words)

    def found(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple(
            (name, tuple(sorted(words[0])))
            for name, words in sorted(self.bodies.items())
            if len(words) == 1 and words[0] is not None
        )


def _closing(data: bytes, brace: int) -> int | None:
    """The index of the `}` that closes the `{` at ``brace``, within the bound."""
    depth = 0
    for k in range(brace, min(len(data), brace + _LONGEST)):
        c = data[k]
        if c == 0x7B:  # {
            depth += 1
        elif c == 0x7D:  # }
            depth -= 1
            if depth == 0:
                return k
    return None
