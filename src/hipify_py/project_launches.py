"""The kernels every launch of which, anywhere in the tree, runs blocks of at most 32 threads
(``ProjectIndex.block32_functions``): their wavefronts have no lanes 32-63, so no wave-size
hazard holds in them (``analysis.block_geometry.BLOCK32``).  cuSZp launches its kernels from
`cuSZp_entry_*.cu` with `dim3 blockSize(bsize)`, `int bsize = tblock_size;` and the header's
`static const int tblock_size = 32; // Fixed to 32`, while the kernels live in
`cuSZp_kernels_*.cu` (round 35: 6 false HZ103).  A file alone sees no launch of them.

Read from the texts with patterns, as the index reads the tree: a launch's block is a number,
`dim3(x)`, or a name the launching file binds once (`dim3 b(x)`, `int b = x;`, `b = x;`,
`dim3 b;` with `b.x = x;`) down to a number or a constant the tree defines with one value
(`#define`, `const` or `constexpr`).  A kernel with any launch whose block is not known so,
or that a file starts through a launch API (`cudaLaunchKernel(...)`), is not one of them.
Pure: the texts come from the caller; the scan is linear in each text, and the launches kept
are bounded."""

from __future__ import annotations

import re

from .project_calls import NUMBER_DEFINE, WORD_BYTES

_LAUNCH = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^<>;{}]*(?:<[^<>;{}]*>[^<>;{}]*)*>\s*)?<<<")
_CONFIG_END = re.compile(rb">>>")
# a launch API that takes the kernel as an argument (`cudaLaunchKernel((void*)k, ...)`); each
# pattern starts with a literal, which the search skips to (a leading `\b` or alternative
# would be tried at every byte)
_LAUNCH_APIS = re.compile(rb"Launch(?:Kernel|CooperativeKernel)")
# `const int N = 32;`, `constexpr unsigned N{32};`, `static const int N = 32u;`
_DECLARED = re.compile(
    rb"const(?:expr)?\s+(?:\w+\s+){0,3}([A-Za-z_]\w*)\s*(?:=\s*|\{\s*)(\d+)[uUlL]*\s*[;}]"
)
# a name bound in a function: `dim3 b(x, 1)`, `dim3 b = dim3(x)`, `int b = x;`, `b = x;`
_BINDING = re.compile(
    rb"\bdim3\s+([A-Za-z_]\w*)\s*[({]([^;(){}]*)[)}]\s*;"
    rb"|(?<![\w.>=!<])([A-Za-z_]\w*)\s*=(?!=)\s*([^;{}]*);"
)
# `dim3 b;` (1x1x1) and its sizes set one by one, `b.x = 32;` (Magicube's launches, round 36);
# the member pattern starts with its literal `.`, the name before it is read backwards
_DIM3_PLAIN = re.compile(rb"dim3\s+([A-Za-z_]\w*)\s*;")
_MEMBER = re.compile(rb"\.([xyz])[ \t]*=(?!=)[ \t]*([^;{}\n]*);")
_NAME_BEFORE = re.compile(rb"([A-Za-z_]\w*)$")
_NAME = re.compile(rb"[A-Za-z_]\w*")
_NUMBER = re.compile(rb"(\d+)[uUlL]*")
_DIM3 = re.compile(rb"dim3\s*[({]([^;(){}]*)[)}]")
_MOST_LAUNCHES = 200_000  # launches kept for the resolution after the pass, at most
_HOPS = 6  # names followed from a launch's block to its number, at most


class LaunchBlocks:
    """Collects, file by file, each launch's block and what the file binds its names to."""

    def __init__(self) -> None:
        # (kernel, block text, the launching file's bindings)
        self.launches: list[tuple[str, bytes, dict[bytes, set[bytes]]]] = []
        self.constants: dict[bytes, set[int]] = {}
        self.api_started: set[str] = set()  # kernels a file may start through a launch API
        self.full = False

    def add(self, path: str, data: bytes) -> None:
        """Read one file of the tree (``path`` unused: a kernel is the tree's by its name)."""
        for pattern in (NUMBER_DEFINE, _DECLARED):
            for m in pattern.finditer(data):
                if m.start() == 0 or data[m.start() - 1] not in WORD_BYTES:
                    self.constants.setdefault(m.group(1), set()).add(int(m.group(2)))
        if _LAUNCH_APIS.search(data):
            self.api_started.update(w.decode("ascii") for w in set(_NAME.findall(data)))
        if b"<<<" not in data or self.full:
            return
        bindings: dict[bytes, set[bytes]] | None = None
        for m in _LAUNCH.finditer(data):
            end = _CONFIG_END.search(data, m.end())
            if end is None:
                break
            args = _top_level_args(data[m.end() : end.start()])
            if bindings is None:
                bindings = _bindings(data)
            block = args[1] if len(args) > 1 else b""
            self.launches.append((m.group(1).decode("ascii"), block, bindings))
            if len(self.launches) > _MOST_LAUNCHES:
                self.full = True
                self.launches.clear()
                return

    def block32(self) -> frozenset[str]:
        """The kernels launched, at every launch the tree holds, with at most 32 threads a
        block; none past the bound."""
        if self.full:
            return frozenset()
        known: dict[str, bool] = {}
        for kernel, block, bindings in self.launches:
            value = self._value(block, bindings, _HOPS)
            small = value is not None and 0 < value <= 32
            known[kernel] = known.get(kernel, True) and small
        return frozenset(k for k, small in known.items() if small and k not in self.api_started)

    def _value(self, text: bytes, bindings: dict[bytes, set[bytes]], hops: int) -> int | None:
        """The number of threads ``text`` (a block, or what a name of it is bound to) gives: a
        `dim3`'s are its sizes' product (`dim3(16, 2)`: 32 threads, one wavefront's lanes 0-31)."""
        text = text.strip()
        while text.startswith(b"(") and text.endswith(b")"):
            text = text[1:-1].strip()
        number = _NUMBER.fullmatch(text)
        if number is not None:
            return int(number.group(1))
        dim3 = _DIM3.fullmatch(text)
        parts = _top_level_args(dim3.group(1) if dim3 is not None else text)
        if dim3 is not None or len(parts) > 1:  # `dim3(x, y, z)`, or a binding's `(x, y)`
            sizes = [self._value(p, bindings, hops) for p in parts]
            threads = 1
            for size in sizes:
                if size is None:
                    return None
                threads *= size
            return threads
        if hops == 0 or _NAME.fullmatch(text) is None:
            return None
        bound = bindings.get(text)
        if bound:
            return self._value(next(iter(bound)), bindings, hops - 1) if len(bound) == 1 else None
        values = self.constants.get(text, set())
        return next(iter(values)) if len(values) == 1 else None


def _top_level_args(text: bytes) -> list[bytes]:
    """``text`` split at the commas outside its parentheses, braces and brackets."""
    parts, depth, start = [], 0, 0
    for k, byte in enumerate(text):
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
        elif byte == ord(",") and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def _bindings(data: bytes) -> dict[bytes, set[bytes]]:
    """What each name of ``data`` is bound to, every binding's text (a name bound to two
    different texts is known to none)."""
    out: dict[bytes, set[bytes]] = {}
    for m in _BINDING.finditer(data):
        if m.group(1):
            out.setdefault(m.group(1), set()).add(b"dim3(" + m.group(2).strip() + b")")
        else:
            out.setdefault(m.group(3), set()).add(m.group(4).strip())
    plain = set(_DIM3_PLAIN.findall(data))
    sizes: dict[bytes, dict[bytes, set[bytes]]] = {}
    for m in _MEMBER.finditer(data) if plain else ():
        before = _NAME_BEFORE.search(data, max(0, m.start() - 64), m.start())
        if before is not None and before.group(1) in plain:
            sizes.setdefault(before.group(1), {}).setdefault(m.group(1), set()).add(m.group(2))
    for name, members in sizes.items():
        if all(len(v) == 1 for v in members.values()):
            dims = (next(iter(members.get(d, {b"1"}))).strip() for d in (b"x", b"y", b"z"))
            out.setdefault(name, set()).add(b"dim3(" + b", ".join(dims) + b")")
    return out
