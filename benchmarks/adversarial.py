"""Inputs built to cost time or memory, for ``fuzz_campaign.py``: each input number picks one
generator and a size, so any failure is reproduced from its number.

- ``macro_bomb``: nested object-like macros, each twice the one before (2**depth tokens), or a
  function-like macro that repeats its argument, called nested; a kernel after it;
- ``unclosed_launch``: ``k<<<`` repeated, never closed;
- ``backslash_run``: a run of backslash-newlines (a macro continued for ever);
- ``one_line``: a whole file on one line (declarations, launches, calls), up to ``max_bytes``;
- ``spaced_launch``: launches as clang-format may leave them (``k << <g, b >> > (x)``).
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


def macro_bomb(rng: random.Random, max_bytes: int) -> bytes:
    depth = rng.randint(20, 60)
    if rng.random() < 0.5:
        lines = ["#define A0 x,"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, depth)]
        use = f"int v[] = {{A{depth - 1}}};"
    else:
        lines = ["#define D(x) x x"]
        use = "int v[] = {" + "D(" * depth + "1," + ")" * depth + "};"
    return ("\n".join(lines) + "\n" + use + "\n" + KERNEL).encode()


def unclosed_launch(rng: random.Random, max_bytes: int) -> bytes:
    n = rng.randint(1, max(1, max_bytes // 4))
    return (KERNEL + "k<<<" * n + "\n").encode()


def backslash_run(rng: random.Random, max_bytes: int) -> bytes:
    n = rng.randint(1, max(1, max_bytes // 2))
    head = rng.choice(["#define X ", "int x = 1; ", "#if 1 ", ""])
    return (KERNEL + head + "\\\n" * n + "x\n").encode()


def one_line(rng: random.Random, max_bytes: int) -> bytes:
    piece = rng.choice(
        [
            "int a{i} = {i}; ",
            "k<<<{i}, 64>>>(p); ",
            "cudaMalloc(&p, {i}); ",
            "float f{i}(float x) {{ return x * {i}; }} ",
            "({i} + ",
        ]
    )
    size = rng.randint(1, max_bytes)
    out, total, i = [KERNEL.rstrip("\n"), " "], 0, 0
    while total < size:
        part = piece.format(i=i)
        out.append(part)
        total += len(part)
        i += 1
    return ("".join(out) + "\n").encode()


def spaced_launch(rng: random.Random, max_bytes: int) -> bytes:
    launches = [
        "k << <g, b >> > (p);",
        "k << <(n >> 1) > 0 ? 1 : 2, b >> > (p);",
        "x = a << b; y = a >> b;",
        "std::vector<std::vector<std::pair<int, int>> > v;",
        "k << <g, b, 0, s >> > (p);",
        "k << <g",  # cut short
    ]
    body = " ".join(rng.choice(launches) for _ in range(rng.randint(1, 50)))
    return (KERNEL + "void f(float* p, int n, int a, int b) {\n" + body + "\n}\n").encode()


GENERATORS: list[Callable[[random.Random, int], bytes]] = [
    macro_bomb,
    unclosed_launch,
    backslash_run,
    one_line,
    spaced_launch,
]


def generate(number: int, max_bytes: int) -> tuple[bytes, str]:
    """The adversarial input with this number, and its generator's name."""
    rng = random.Random(number)
    make = rng.choice(GENERATORS)
    return make(rng, max_bytes), make.__name__
