"""Seeds and mutations for the fuzz test and the mutation campaign (benchmarks/fuzz_campaign.py).

Seeds are the real CUDA sources in the repository: the files under ``tests/`` and
``examples/``, and the CUDA snippets the tests convert (string constants in ``tests/*.py``).
Each mutation is a small, deterministic function of a ``random.Random``, so a failing input
found by the campaign is reproduced from its seed number alone.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".hip"}

# fragments that open or close something: brackets, quotes, launches, comments, raw strings,
# directives and their odd spellings, continuations, odd bytes
FRAGMENTS: tuple[bytes, ...] = (
    b"(", b")", b"[", b"]", b"{", b"}", b"<", b">", b"<<<", b">>>", b"<<<1,1>>>", b'"', b"'",
    b"/*", b"*/", b"//", b'R"x(', b')x"', b'R"(', b"\\\n", b"\\", b"\\\r\n", b"#", b"#include",
    b"%:include", b"#/**/include", b"#\\\ninclude", b"#include_next", b"#import", b"#if 0\n",
    b"#if 1\n", b"#endif\n", b"#else\n", b"#define M(x) x<<<1,1>>>(x)\n", b"\0", b"\xff",
    b"\xe9", b"\xc3", b"\r", b"\r\n", b"\n", b"\xef\xbb\xbf", b";",
    b",", b"::", b"template <typename T>", b"__global__ void k(", b"k<<<g, b>>>(", b"cudaMalloc(",
    b"cudaMemcpyToSymbol(", b"HIP_SYMBOL(", b"__shared__ char s[1 << 40];", b"1 << 100000",
    b"__shfl_sync(", b"__threadfence_system();", b"CUDA_VERSION", b"__CUDA_ARCH__",
    b"cudaDeviceSynchronize();", b"cuMemAllocManaged(", b"#include <cuda_runtime.h>\n",
    b"#include \"k.cu\"\n", b"dim3(", b"0x", b"1e", b"'\\", b'"\\',
)  # fmt: skip


@lru_cache(maxsize=1)
def seeds() -> tuple[bytes, ...]:
    """Every CUDA source in the repository's tests and examples, as bytes."""
    found: list[bytes] = []
    for base in (ROOT / "tests", ROOT / "examples"):
        for path in sorted(base.rglob("*")):
            if path.suffix in _SUFFIXES and path.is_file() and not path.is_symlink():
                found.append(path.read_bytes())
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = getattr(node, "value", None)
            if isinstance(node, ast.Constant) and isinstance(value, str) and "\n" in value:
                if "cuda" in value or "__global__" in value or "<<<" in value:
                    found.append(value.encode("utf-8", "surrogateescape"))
    return tuple(found)


def _cut(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data) + 1)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: _cut(rng, data)]


def splice(rng: random.Random, data: bytes) -> bytes:
    other = rng.choice(seeds())
    return data[: _cut(rng, data)] + other[_cut(rng, other) :]


def insert_fragment(rng: random.Random, data: bytes) -> bytes:
    at = _cut(rng, data)
    return data[:at] + rng.choice(FRAGMENTS) + data[at:]


def delete_range(rng: random.Random, data: bytes) -> bytes:
    a = _cut(rng, data)
    return data[:a] + data[a + rng.randrange(1, 64) :]


def duplicate_range(rng: random.Random, data: bytes) -> bytes:
    a = _cut(rng, data)
    b = min(len(data), a + rng.randrange(1, 200))
    at = _cut(rng, data)
    return data[:at] + data[a:b] + data[at:]


def delete_bracket(rng: random.Random, data: bytes) -> bytes:
    """Unbalance brackets, quotes or launch chevrons by removing one of them."""
    marks = [i for i, c in enumerate(data) if c in b"()[]{}<>\"'"]
    if not marks:
        return data
    i = rng.choice(marks)
    return data[:i] + data[i + 1 :]


def cr_only(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def bom(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    at = _cut(rng, data)
    return data[:at] + rng.choice((b"caf\xe9", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80")) + data[at:]


def nul_bytes(rng: random.Random, data: bytes) -> bytes:
    at = _cut(rng, data)
    return data[:at] + b"\0" * rng.randrange(1, 4) + data[at:]


def deep_nesting(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice((50, 500, 3000))
    opener, closer = rng.choice(((b"(", b")"), (b"{", b"}"), (b"[", b"]"), (b"<", b">")))
    closed = rng.random() < 0.5
    inner = opener * depth + b"x" + (closer * depth if closed else b"")
    at = _cut(rng, data)
    return data[:at] + inner + data[at:]


def unterminated_tail(rng: random.Random, data: bytes) -> bytes:
    """An unterminated literal, comment or raw string, maybe followed by continuations."""
    opener = rng.choice((b'"', b"'", b"/*", b'R"x(', b"//"))
    return data + opener + b"\\\n" * rng.randrange(0, 40) + rng.choice((b"", b"\\"))


MUTATIONS: tuple[Callable[[random.Random, bytes], bytes], ...] = (
    truncate,
    splice,
    insert_fragment,
    delete_range,
    duplicate_range,
    delete_bracket,
    cr_only,
    bom,
    invalid_utf8,
    nul_bytes,
    deep_nesting,
    unterminated_tail,
)


def mutate(number: int) -> tuple[bytes, str]:
    """The mutated input with this number, and the names of the mutations applied to its seed."""
    rng = random.Random(number)
    data = rng.choice(seeds())
    applied = []
    for _ in range(rng.choice((1, 1, 2, 3, 5))):
        step = rng.choice(MUTATIONS)
        data = step(rng, data)
        applied.append(step.__name__)
    return data, "+".join(applied)
