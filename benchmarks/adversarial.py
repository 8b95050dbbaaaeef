"""Inputs built to cost time or memory, for ``fuzz_campaign.py`` and ``bench_memory.py``: each
input number picks one generator and a size, so any failure is reproduced from its number.

Every generator takes ``(rng, size)`` and makes about ``size`` bytes (the macro bomb is small
whatever the size: its cost is the expansion):

- ``macro_bomb``: nested object-like macros, each twice the one before (2**depth tokens), or a
  function-like macro that repeats its argument, called nested; a kernel after it;
- ``unclosed_launch``: ``k<<<`` repeated, never closed;
- ``backslash_run``: a run of backslash-newlines (a macro continued for ever);
- ``one_line``: a whole file on one line (declarations, launches, calls);
- ``spaced_launch``: launches as clang-format may leave them (``k << <g, b >> > (x)``);
- ``dense_declarations``: ``int aN = N;`` on one line, five tokens in twelve bytes, every name new;
- ``semicolons``: ``;;;;``, one token per byte (the densest file there is);
- ``long_identifiers``: a few identifiers thousands of characters long, used again and again;
- ``many_launches``: a kernel launched once per line, with runtime calls between;
- ``deep_nesting``: brackets nested thousands deep, then closed;
- ``many_ifs``: ``#if``/``#else``/``#endif`` groups, nested and in a row, each branch a launch.
"""

from __future__ import annotations

import random
from collections.abc import Callable

# a mask in a variable: the warp-mask rule asks libclang for its declaration
KERNEL = (
    "__global__ void k(float* p) {\n"
    "  unsigned m = 0xffffffff;\n"
    "  p[0] = __shfl_xor_sync(m, 1.f, 1);\n"
    "}\n"
)


def _repeat(head: str, piece: str, size: int, tail: str = "\n") -> bytes:
    """``head``, then ``piece.format(i=...)`` for i = 0, 1, ... until about ``size`` bytes."""
    out, total, i = [head], len(head), 0
    while total < size:
        part = piece.format(i=i)
        out.append(part)
        total += len(part)
        i += 1
    return ("".join(out) + tail).encode()


def macro_bomb(rng: random.Random, size: int) -> bytes:
    depth = rng.randint(20, 60)
    if rng.random() < 0.5:
        lines = ["#define A0 x,"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, depth)]
        use = f"int v[] = {{A{depth - 1}}};"
    else:
        lines = ["#define D(x) x x"]
        use = "int v[] = {" + "D(" * depth + "1," + ")" * depth + "};"
    return ("\n".join(lines) + "\n" + use + "\n" + KERNEL).encode()


def unclosed_launch(rng: random.Random, size: int) -> bytes:
    return (KERNEL + "k<<<" * max(1, size // 4) + "\n").encode()


def backslash_run(rng: random.Random, size: int) -> bytes:
    head = rng.choice(["#define X ", "int x = 1; ", "#if 1 ", ""])
    return (KERNEL + head + "\\\n" * max(1, size // 2) + "x\n").encode()


def one_line(rng: random.Random, size: int) -> bytes:
    piece = rng.choice(
        [
            "int a{i} = {i}; ",
            "k<<<{i}, 64>>>(p); ",
            "cudaMalloc(&p, {i}); ",
            "float f{i}(float x) {{ return x * {i}; }} ",
            "({i} + ",
        ]
    )
    return _repeat(KERNEL.rstrip("\n") + " ", piece, size)


def spaced_launch(rng: random.Random, size: int) -> bytes:
    launches = [
        "k << <g, b >> > (p);",
        "k << <(n >> 1) > 0 ? 1 : 2, b >> > (p);",
        "x = a << b; y = a >> b;",
        "std::vector<std::vector<std::pair<int, int>> > v;",
        "k << <g, b, 0, s >> > (p);",
        "k << <g",  # cut short
    ]
    body = " ".join(rng.choice(launches) for _ in range(rng.randint(1, max(1, size // 25))))
    return (KERNEL + "void f(float* p, int n, int a, int b) {\n" + body + "\n}\n").encode()


def dense_declarations(rng: random.Random, size: int) -> bytes:
    return _repeat(KERNEL, "int a{i} = {i}; ", size)


def semicolons(rng: random.Random, size: int) -> bytes:
    return (KERNEL + ";" * size + "\n").encode()


def long_identifiers(rng: random.Random, size: int) -> bytes:
    names = ["v" + str(n) * rng.randint(1000, 5000) for n in range(3)]
    piece = "{} = {} + {};\n".format(*names)
    body = piece * max(1, size // len(piece))
    return (KERNEL + "void f() { float " + ", ".join(names) + ";\n" + body + "}\n").encode()


def many_launches(rng: random.Random, size: int) -> bytes:
    head = KERNEL + "void f(float* p, cudaStream_t s) {\n"
    piece = "  k<<<{i}, 256, 0, s>>>(p); cudaMemsetAsync(p, 0, {i}, s);\n"
    return _repeat(head, piece, size, "}\n")


def deep_nesting(rng: random.Random, size: int) -> bytes:
    depth = max(1, size // 2)
    opener, closer = rng.choice([("(", ")"), ("[", "]"), ("{", "}")])
    return (KERNEL + "int x = " + opener * depth + "1" + closer * depth + ";\n").encode()


def many_ifs(rng: random.Random, size: int) -> bytes:
    piece = (
        "#if defined(A{i})\nk<<<1, {i}>>>(p);\n#elif B{i} > 2\n"
        "#ifdef C{i}\ncudaFree(p);\n#endif\n#else\nk<<<2, 64>>>(p);\n#endif\n"
    )
    return _repeat(KERNEL + "void f(float* p) {\n", piece, size, "}\n")


GENERATORS: list[Callable[[random.Random, int], bytes]] = [
    macro_bomb,
    unclosed_launch,
    backslash_run,
    one_line,
    spaced_launch,
    dense_declarations,
    semicolons,
    long_identifiers,
    many_launches,
    deep_nesting,
    many_ifs,
]
BY_NAME = {make.__name__: make for make in GENERATORS}


def generate(number: int, max_bytes: int) -> tuple[bytes, str]:
    """The adversarial input with this number (at most about ``max_bytes``), and its
    generator's name."""
    rng = random.Random(number)
    make = rng.choice(GENERATORS)
    return make(rng, rng.randint(1, max_bytes)), make.__name__


def sized(name: str, size: int, seed: int = 0) -> bytes:
    """Generator ``name``'s input of about ``size`` bytes."""
    return BY_NAME[name](random.Random(seed), size)
