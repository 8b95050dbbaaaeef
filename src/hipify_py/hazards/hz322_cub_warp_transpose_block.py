"""HZ322 cub-warp-transpose-block

## What it detects
A CUB `BlockLoad`/`BlockStore` with a warp-transpose algorithm (`BLOCK_LOAD_WARP_TRANSPOSE`,
`BLOCK_STORE_WARP_TRANSPOSE` and their `_TIMESLICED` forms) whose block size is not a
multiple of 64: a literal such as `BlockLoad<int, 32, 4, BLOCK_LOAD_WARP_TRANSPOSE>`, or a
template parameter that the file instantiates with such a value (`Test<32, 32, ...>()` of a
template whose `BLOCK_THREADS` reaches the `BlockLoad`). Reported at the `BlockLoad`, with the
instantiation in the message. An instantiation in code the HIP build never compiles (a
32-thread launch under `#ifndef USE_ROCM`, whose `#else` launches 64) is not one.

## Why it breaks on AMD
hipCUB's warp-transpose algorithms are rocPRIM's, which transpose a whole hardware wavefront
at a time: rocPRIM's `block_load` and `block_store` `static_assert` that the block size is a
multiple of the wavefront (64 on gfx942). CUB needs only a multiple of 32, so a 32-, 96- or
160-thread block that is right on NVIDIA does not compile for AMD.

## Example
```cpp
template <int BLOCK_THREADS>
__global__ void k(const int* in) {
  typedef cub::BlockLoad<int, BLOCK_THREADS, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;  // HZ322
  ...
}
k<32><<<1, 32>>>(in);
```

## How to fix
Use a block size that is a multiple of 64 for these kernels, or pick a load/store algorithm
that does not transpose through a warp on AMD (`BLOCK_LOAD_TRANSPOSE`, `BLOCK_LOAD_DIRECT`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..context import Context
from ..findings import Severity
from ..frontend.conditions import inactive_in
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_WAVE = 64
_ALGORITHMS = frozenset(
    f"BLOCK_{kind}_WARP_TRANSPOSE{suffix}"
    for kind in ("LOAD", "STORE")
    for suffix in ("", "_TIMESLICED")
)
_TEMPLATES = frozenset({"BlockLoad", "BlockStore"})
_LIST_TOKENS = 64  # a template argument list longer than this is not one we read


def _arguments(toks: Sequence[Token], open_at: int) -> tuple[list[list[Token]], int] | None:
    """The arguments of the template argument list opened by ``<`` at ``open_at``, split at
    top-level commas, and the index of its ``>``; None if it does not close nearby."""
    args: list[list[Token]] = [[]]
    depth = 0
    for k in range(open_at + 1, min(len(toks), open_at + _LIST_TOKENS)):
        text = toks[k].text
        if text in ("<", "(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}") or (text == ">" and depth > 0):
            depth -= 1
        elif text == ">":
            return args, k
        elif text == ">>" or text == ";":
            return None
        elif text == "," and depth == 0:
            args.append([])
            continue
        args[-1].append(toks[k])
    return None


def _int(arg: list[Token]) -> int | None:
    if len(arg) != 1 or arg[0].kind is not Kind.NUMBER:
        return None
    try:
        return int(arg[0].text.rstrip("uUlL"), 0)
    except ValueError:
        return None


def _parameter_positions(unit: Unit, name: str) -> dict[str, int]:
    """Templates of the file with a parameter called ``name``: template name -> its index."""
    toks, found = unit.tokens, {}
    for i in unit.identifier_positions.get("template", ()):
        if i + 1 >= len(toks) or toks[i + 1].text != "<":
            continue
        parsed = _arguments(toks, i + 1)
        if parsed is None:
            continue
        params, close = parsed
        names = [next((t.text for t in reversed(p) if t.kind is Kind.IDENT), "") for p in params]
        if name in names and (declared := _declared_name(toks, close)) is not None:
            found[declared] = names.index(name)
    return found


def _declared_name(toks: Sequence[Token], close: int) -> str | None:
    """The name a template declares: the identifier before its ``(``, ``{`` or ``:``."""
    for k in range(close + 1, min(len(toks) - 1, close + _LIST_TOKENS)):
        if toks[k].kind is Kind.IDENT and toks[k + 1].text in ("(", "{", ":", ";"):
            return toks[k].text
        if toks[k].text in (";", "{", "}"):
            return None
    return None


def _bad_instantiation(unit: Unit, name: str) -> tuple[str, int, int] | None:
    """A template of the file instantiated with a value of parameter ``name`` that is not a
    multiple of the wavefront: (template, value, line).  An instantiation the HIP build never
    compiles (the CUDA side of ``#ifndef USE_ROCM``) instantiates nothing on AMD."""
    toks = unit.tokens
    inactive = inactive_in(unit)
    for template, index in _parameter_positions(unit, name).items():
        for i in unit.identifier_positions.get(template, ()):
            if i + 1 >= len(toks) or toks[i + 1].text != "<" or toks[i].start in inactive:
                continue
            parsed = _arguments(toks, i + 1)
            if parsed is None or index >= len(parsed[0]):
                continue
            value = _int(parsed[0][index])
            if value is not None and value % _WAVE:
                return template, value, unit.lines.position(toks[i].start)[0]
    return None


@hazard_rule(
    "HZ322",
    "cub-warp-transpose-block",
    Severity.ERROR,
    "CUB warp-transpose load/store with a block size that is not a multiple of 64 (rocPRIM "
    "asserts it)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not _ALGORITHMS & unit.identifiers:
        return
    toks = unit.tokens
    for template in _TEMPLATES & unit.identifiers:
        for i in unit.identifier_positions[template]:
            if i + 1 >= len(toks) or toks[i + 1].text != "<":
                continue
            parsed = _arguments(toks, i + 1)
            if parsed is None or len(parsed[0]) < 4:
                continue
            args = parsed[0]
            if not any(t.text in _ALGORITHMS for t in args[3]):
                continue
            message = _why(unit, args[1])
            if message is not None:
                yield report(toks[i].start, toks[i].end, f"{template} {message}")


def _why(unit: Unit, block: list[Token]) -> str | None:
    value = _int(block)
    if value is not None:
        return None if value % _WAVE == 0 else _message(f"a block of {value} threads")
    if len(block) != 1 or block[0].kind is not Kind.IDENT:
        return None
    bad = _bad_instantiation(unit, block[0].text)
    if bad is None:
        return None
    template, value, line = bad
    return _message(f"`{block[0].text}` = {value} (`{template}<{value}, ...>` at line {line})")


def _message(what: str) -> str:
    return (
        f"transposes through a warp with {what}: rocPRIM (hipCUB on AMD) requires a multiple "
        f"of the {_WAVE}-lane wavefront and fails to compile; use a multiple of 64 or a "
        "direct/transpose algorithm"
    )
