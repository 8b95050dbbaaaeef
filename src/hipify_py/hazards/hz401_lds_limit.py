"""HZ401 lds-over-64k

## What it detects
Kernels whose shared memory exceeds the 64 KiB LDS of an MI300X compute unit: the static
`__shared__` arrays declared in one kernel add up to more than 65,536 bytes; a launch
(`<<<g, b, SHMEM>>>` or `hipLaunchKernelGGL(k, g, b, SHMEM, ...)`) whose constant dynamic size
plus the kernel's static shared memory exceeds it; or
`cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, N)` with N above 64 KiB.
Sizes are evaluated from literals, `sizeof` of basic types and the file's integer constants.
A size above the 227 KiB that the largest NVIDIA GPUs give a block is not reported: it fails
on CUDA as well. Nor is an array its kernel never names again: the compiler drops it.

## Why it breaks on AMD
MI300X (gfx942) has **64 KiB** of LDS per CU (MI355X / gfx950 has 160 KiB); NVIDIA's opt-in
sizes (up to 227 KiB on H100) have no equivalent. HIP 7.0 launch APIs return
`hipErrorInvalidValue` when the shared-memory size exceeds the limit, and a static excess fails
at compile/link time.

## Example
```cuda
__shared__ float tile[128][129];          // 66,048 bytes: HZ401
cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);   // HZ401
```

## How to fix
Shrink the tile (smaller blocks, fewer pipeline stages), keep part of the data in registers,
or query `hipDeviceProp_t::sharedMemPerBlock` at run time and pick a kernel variant.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

from ..analysis.calls import calls
from ..analysis.cursor import cursor_at, declared_size
from ..analysis.functions import function_at
from ..analysis.launches import launched_name
from ..analysis.tokens import match, statement_bounds
from ..analysis.type_sizes import SIZEOF
from ..analysis.values import evaluate
from ..context import Context
from ..findings import Finding, Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule

LDS_BYTES = 64 * 1024
# the most shared memory any NVIDIA GPU gives a block (H100, B200: 227 KiB opt-in); a size
# above it fails on CUDA as well, a bug of the code rather than of the port (AkshDesai04/CUDA's
# `<<<1, N, N * sizeof(float)>>>` for N = 2^20, round 40); static arrays too: nvcc -arch=sm_90a
# takes up to that much, not cuda_irregular_ops' 2 MiB `sram[528384]` (round 44)
CUDA_MOST_BYTES = 227 * 1024

# function name -> (bytes, (start, end) of its first declaration) of its static __shared__ arrays
_Static = dict[str, tuple[int, tuple[int, int] | None]]


def _static_shared(unit: Unit) -> _Static:
    """function name -> (bytes, (start, end)) of the static __shared__ arrays it declares."""
    toks = unit.tokens
    out: _Static = {}
    for i in unit.identifier_positions.get("__shared__", ()):
        if toks[i].in_directive:
            continue
        a, b = statement_bounds(toks, i, 0, len(toks) - 1)
        if any(x.text == "extern" for x in toks[a:b]):
            continue  # dynamic shared memory
        name = next(
            (
                toks[k - 1]
                for k in range(i + 1, b)
                if toks[k].text == "[" and toks[k - 1].kind is Kind.IDENT
            ),
            None,
        )
        if name is None:
            continue
        at = toks.index(name, i)
        func = function_at(unit, i)
        if func is not None and not _named_after(unit, name.text, b, func.close):
            continue  # never used: the compiler drops it (cuda-kernel-uv's flash_fwd, round 44)
        size = _token_size(unit, toks, i, at, b)
        if size is None and not _undefined_dimension(unit, at + 1, b):
            # not computable from tokens: ask libclang (costs a parse)
            cur = cursor_at(unit, name.start)
            ok = cur is not None and cur.kind.name == "VAR_DECL"
            size = declared_size(unit, cur) if cur is not None and ok else -1
        if size is None or size <= 0:
            continue
        key = func.name if func is not None else ""
        total, span = out.get(key, (0, None))
        out[key] = (total + size, span or (toks[a].start, toks[b - 1].end))
    return out


def _named_after(unit: Unit, name: str, start: int, end: int) -> bool:
    """Token indexes [start, end) name ``name``."""
    positions = unit.identifier_positions.get(name, ())
    at = bisect.bisect_left(positions, start)
    return at < len(positions) and positions[at] < end


def _undefined_dimension(unit: Unit, first: int, end: int) -> bool:
    """An array dimension in tokens [first, end) names something this file never defines
    (`s[BLOCK_SIZE]` with BLOCK_SIZE from a header or -D), directly or through the constants
    it is computed from (`const int n = 1024 / WARP_SIZE; ... s[n]`): a hermetic parse cannot
    know it either (clang's error recovery answers the element size), so it is not worth one."""
    if not unit.hermetic:
        return False  # the parse sees the include directories
    return _names_undefined(unit, first, end, set())


def _names_undefined(unit: Unit, first: int, end: int, seen: set[str]) -> bool:
    toks = unit.tokens
    positions = unit.identifier_positions
    for t in toks[first:end]:
        if t.kind is not Kind.IDENT or t.text in _EVALUATED_WORDS or t.text in seen:
            continue
        seen.add(t.text)  # a name met again (or a cycle) counts as defined: parse when unsure
        definitions = [k for k in positions.get(t.text, ()) if _defines(toks, k)]
        if all(_computed_from_undefined(unit, k, seen) for k in definitions):
            return True  # no definition, or only constants computed from undefined names
    return False


def _computed_from_undefined(unit: Unit, k: int, seen: set[str]) -> bool:
    """The definition at token k is `NAME = expression` and the expression (up to its first
    `;` or `,`) names something undefined; any other definition counts as defined."""
    toks = unit.tokens
    if toks[k + 1].text != "=":
        return False
    end = k + 2
    while end < len(toks) and toks[end].text not in (";", ",") and end - k < _EXPRESSION_LIMIT:
        end += 1
    return _names_undefined(unit, k + 2, end, seen)


_EXPRESSION_LIMIT = 200  # tokens of a constant's initializer that are looked at


# words ``evaluate`` reads itself
_EVALUATED_WORDS = frozenset({"sizeof", "static_cast", "size_t"})


def _defines(toks: Sequence[Token], k: int) -> bool:
    """Token k is the name in a definition: `#define NAME`, `NAME = ...` (a constant or an
    enumerator), `NAME {` (a type, a brace initialiser), `T NAME(` (a function)."""
    if k == 0 or k + 1 >= len(toks):
        return False
    before, after = toks[k - 1], toks[k + 1].text
    return (
        before.text == "define" or after in ("=", "{") or after == "(" and before.kind is Kind.IDENT
    )


def _token_size(unit: Unit, toks: Sequence[Token], shared: int, name: int, end: int) -> int | None:
    """Bytes of ``__shared__ T name[d1][d2]...`` from tokens, -1 when the size depends on a
    template parameter (unknowable before instantiation), None when tokens cannot tell."""
    type_words = [
        t.text
        for t in toks[shared + 1 : name]
        if t.text not in ("volatile", "static", "const", "alignas", "__align__")
    ]
    func = function_at(unit, shared)
    params = _template_params(toks, func.open if func is not None else shared)
    elem = SIZEOF.get(" ".join(type_words))
    if elem is None:
        return -1 if set(type_words) & params else None
    size = elem
    k = name + 1
    while k < end and toks[k].text == "[":
        close = match(toks, k)
        if close is None or close > end:
            return None
        if any(t.text in params for t in toks[k + 1 : close]):
            return -1
        dim = evaluate(unit, k + 1, close)
        if dim is None:
            return None
        size *= dim
        k = close + 1
    return size


def _angle_close(toks: Sequence[Token], opening: int) -> int | None:
    depth = 0
    for k in range(opening, min(len(toks), opening + 400)):
        text = toks[k].text
        depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
        if depth <= 0:
            return k
        if text in (";", "{"):
            return None
    return None


def _template_params(toks: Sequence[Token], index: int) -> set[str]:
    """Names declared by the ``template <...>`` heading the function that contains ``index``."""
    j = index
    while j > 0 and toks[j].text not in (";", "}") or j == index:
        if toks[j].text == "template" and j + 1 < len(toks) and toks[j + 1].text == "<":
            close = _angle_close(toks, j + 1)
            names: set[str] = set()
            for k in range(j + 2, close or j + 2):
                if toks[k].kind is Kind.IDENT and toks[k + 1].text in (",", ">", "=", "..."):
                    names.add(toks[k].text)
            return names
        j -= 1
    return set()


@hazard_rule(
    "HZ401",
    "lds-over-64k",
    Severity.ERROR,
    "static + dynamic shared memory above the 64 KiB LDS of MI300X",
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    text = unit.text
    if (
        "__shared__" not in text
        and "SharedMemorySize" not in text
        and "<<<" not in text
        and "hipLaunchKernelGGL" not in unit.identifiers
    ):
        return
    static = _static_shared(unit) if "__shared__" in text else {}
    for name, (size, span) in static.items():
        if LDS_BYTES < size <= CUDA_MOST_BYTES and span and name:
            yield report(
                span[0],
                span[1],
                f"kernel `{name}` declares {size:,} bytes of static __shared__ "
                f"memory; MI300X (gfx942) LDS is 65,536 bytes per CU",
            )
    yield from _chevron_launches(unit, report, static)
    toks = unit.tokens
    for c in calls(unit, {"hipLaunchKernelGGL"}):
        if len(c.args) >= 4:
            a, b = c.args[0]
            kernel = next((x.text for x in toks[a:b] if x.kind is Kind.IDENT), "")
            yield from _dynamic(unit, report, kernel, c.args[3], static)
    yield from _dynamic_size_attributes(unit, report)


def _chevron_launches(unit: Unit, report: Report, static: _Static) -> Iterator[Finding]:
    """Dynamic shared memory at ``kernel<<<grid, block, bytes>>>`` launches."""
    toks = unit.tokens
    ends = unit.launch_config_ends  # found once per file, in linear time
    for i in unit.launch_openers:
        stop = ends.get(i)
        if stop is None or i == 0:
            continue
        args = _launch_config(toks, i, stop, ends)
        if len(args) >= 3:
            yield from _dynamic(unit, report, launched_name(toks, i) or "", args[2], static)


def _launch_config(
    toks: Sequence[Token], opener: int, stop: int, ends: dict[int, int | None]
) -> list[tuple[int, int]]:
    """Token ranges of the arguments between the ``<<<`` at ``opener`` and its ``>>>`` at
    ``stop`` (a nested launch's commas are its own)."""
    k = opener + 1
    depth, args, start = 0, [], k
    while k < stop:
        x = toks[k].text
        if x in ("(", "[", "{"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
        elif x == "," and depth == 0:
            args.append((start, k))
            start = k + 1
        elif x == "<<<":
            k = ends.get(k) or k
        k += 1
    args.append((start, k))
    return args


def _dynamic_size_attributes(unit: Unit, report: Report) -> Iterator[Finding]:
    """``cudaFuncSetAttribute(k, ...MaxDynamicSharedMemorySize, bytes)`` asking for more
    than the LDS holds."""
    toks = unit.tokens
    for c in calls(unit, {"cudaFuncSetAttribute", "hipFuncSetAttribute"}):
        if len(c.args) != 3:
            continue
        a, b = c.args[1]
        if "MaxDynamicSharedMemorySize" not in unit.text[toks[a].start : toks[b - 1].end]:
            continue
        value = evaluate(unit, *c.args[2])
        if value is not None and LDS_BYTES < value <= CUDA_MOST_BYTES:
            yield report(
                toks[c.index].start,
                toks[c.close].end,
                f"`{c.name}` asks for {value:,} bytes of dynamic shared memory; "
                f"MI300X (gfx942) LDS is 65,536 bytes per CU",
            )


def _dynamic(
    unit: Unit, report: Report, kernel: str, arg: tuple[int, int], static: _Static
) -> Iterator[Finding]:
    toks = unit.tokens
    value = evaluate(unit, *arg)
    if value is None:
        return
    base = static.get(kernel, (0, None))[0]
    if LDS_BYTES < value + base <= CUDA_MOST_BYTES:
        what = f"{value:,} bytes dynamic" + (f" + {base:,} static" if base else "")
        a, b = arg
        yield report(
            toks[a].start,
            toks[b - 1].end,
            f"launch of `{kernel}` uses {what} shared memory; MI300X (gfx942) LDS is "
            f"65,536 bytes per CU (HIP 7 returns hipErrorInvalidValue)",
        )
