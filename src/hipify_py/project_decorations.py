"""The tree's decoration macros: object-like macros that spell CUDA's function targets
(``ProjectIndex.decorations``).

cudaKDTree's `cukd/common.h` defines `__owl_device` (`__device__` in nvcc's device pass),
`__owl_host` and `# define __both__ __owl_host __owl_device`; `cukd-math.h` declares
`template<typename T> inline __both__ float as_float_rz(T t);` beside a `__device__`-only
specialization, which clang rejects ("no function template matches function template
specialization": 8 silent TUs in compile round 35).  Which targets `__both__` names is known
only from another file, so the tree answers it: each macro's targets are the union over every
definition of it, followed through other macros.  Pure: texts come from the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TARGETS = frozenset({"__global__", "__device__", "__host__"})

# `#define NAME word word...` at a line's start, the body words alone (no parentheses: a macro
# of parameters, or one whose body calls something, decorates nothing)
_DEFINITION = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)((?:[ \t]+[A-Za-z_]\w*)+)[ \t]*(?://[^\n]*)?$",
    re.M,
)
_DEPTH = 4  # macros through macros: `__both__` -> `__owl_host __owl_device` -> `__device__`


def decoration_words(data: bytes) -> dict[str, set[str]]:
    """Macro name -> the words of the object-like definitions ``data`` gives it that consist of
    words alone (`__both__`'s words name other macros, not a target)."""
    out: dict[str, set[str]] = {}
    if b"define" not in data:
        return out
    for m in _DEFINITION.finditer(data):
        words = m.group(2).decode("ascii").split()
        out.setdefault(m.group(1).decode("ascii"), set()).update(words)
    return out


def decorations(words: Iterable[tuple[str, set[str]]]) -> dict[str, frozenset[str]]:
    """Macro name -> the CUDA targets it spells, directly or through other macros of
    ``words`` (each macro's words over the whole tree); macros that spell none are left out."""
    merged: dict[str, set[str]] = {}
    for name, body in words:
        merged.setdefault(name, set()).update(body)
    found = {name: frozenset(body & TARGETS) for name, body in merged.items()}
    for _ in range(_DEPTH):
        settled = {
            name: found[name].union(*(found.get(w, frozenset()) for w in body))
            for name, body in merged.items()
        }
        if settled == found:
            break
        found = settled
    return {name: targets for name, targets in found.items() if targets}
