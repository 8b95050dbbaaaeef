"""What a kernel's launch geometry says about its lanes: ``BLOCK32`` for blocks of at most 32
threads (`__launch_bounds__(32)`, or `<<<n, 32>>>` at every launch in the file, or in the tree
for a kernel the file does not launch: ``project_launches``), whose wavefront
has no lanes 32-63, so no wave-size hazard holds in them (fastllm's 32-thread RMSNorm kernels
drew false HZ102s, round 10); ``GROUP32`` for rows of 32 threads at every launch
(`dim3 threads(32, 4)`: threadIdx.x is the lane in its row, threadIdx.y the row).  The warp
model (``warp_model``) takes these as a kernel's model."""

from __future__ import annotations

from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from .calls import Call, calls
from .functions import Func, declaration_head, function_at
from .launches import launched_name
from .tokens import cached, split
from .values import evaluate

GROUP32 = "group32"
BLOCK32 = "block32"  # blocks of at most 32 threads: no lane of a wavefront is past 31


def block_model(unit: Unit, f: Func) -> str | None:
    """``BLOCK32`` for a kernel whose blocks hold at most 32 threads (its `__launch_bounds__`,
    or the block of every launch of it in the file), or a device function only such kernels
    of the tree call (``project_calls``), ``GROUP32`` for one launched in rows of
    32 threads at every launch, else None (not a kernel, not launched here, or a block this
    file does not fix)."""
    toks = unit.tokens
    header = declaration_head(toks, f)
    for c in _launch_bounds(unit):  # only a kernel has them (``Func.is_device``)
        if header.start <= c.index < header.stop and c.args:
            bound = evaluate(unit, *c.args[0])
            if bound is not None and bound <= 32:
                return BLOCK32
    if "__global__" not in f.specifiers:
        # a helper that only such kernels of the tree call, maybe from other files
        return BLOCK32 if f.name in unit.tree_block32_functions else None
    shapes = _launch_shapes(unit).get(f.name)
    if not shapes:
        if f.name in unit.tree_block32_functions:
            return BLOCK32  # launched from other files, all with blocks of at most 32
        return GROUP32 if _rows_of_warps(unit, f) else None
    if None in shapes:
        return None
    if all(rest is not None and x * rest <= 32 for x, rest in shapes):  # type: ignore[misc]
        return BLOCK32
    return GROUP32 if all(x == 32 for x, _rest in shapes) else None  # type: ignore[misc]


def fewest_threads(unit: Unit, f: Func) -> int | None:
    """The fewest threads a block of kernel ``f`` holds at its launches in the file; None when
    the file does not launch it or a launch's block is not a known constant."""
    threads: list[int] = []
    for shape in _launch_shapes(unit).get(f.name, ()):
        if shape is None or shape[1] is None:
            return None
        threads.append(shape[0] * shape[1])
    return min(threads, default=None)


def _rows_of_warps(unit: Unit, f: Func) -> bool:
    """A kernel the file does not launch that names its rows warps: `lane_id = threadIdx.x`
    and `warp_id = threadIdx.y` (HugeCTR's `multi_to_one_weight_warp_per_ev_vec4_network_kernel`,
    round 22): each row is one CUDA warp of 32 threads, as its launched siblings' are."""
    toks = unit.tokens
    named = set()
    for k in range(f.open + 1, f.close - 5):
        words = [t.text for t in toks[k + 1 : k + 6]]
        if toks[k].kind is not Kind.IDENT or words[:3] != ["=", "threadIdx", "."]:
            continue
        word = toks[k].text.lower()
        if words[3:] == ["x", ";"] and "lane" in word:
            named.add("lane")
        elif words[3:] == ["y", ";"] and "warp" in word:
            named.add("warp")
    return named == {"lane", "warp"}


def _launch_bounds(unit: Unit) -> list[Call]:
    """The file's `__launch_bounds__(...)`, found once for all its kernels."""
    return cached(unit, "_hz_launch_bounds", lambda: list(calls(unit, {"__launch_bounds__"})))


def _launch_shapes(unit: Unit) -> dict[str, list[tuple[int, int | None] | None]]:
    """The block shape (``_block_shape``) of each launch in the file, by kernel name: read
    once for all its kernels."""

    def read() -> dict[str, list[tuple[int, int | None] | None]]:
        toks = unit.tokens
        ends = unit.launch_config_ends
        out: dict[str, list[tuple[int, int | None] | None]] = {}
        for i in unit.launch_openers:
            stop = ends.get(i)
            name = launched_name(toks, i)
            if stop is None or name is None:
                continue
            args = split(toks, i + 1, stop)
            out.setdefault(name, []).append(_block_shape(unit, *args[1]) if len(args) > 1 else None)
        return out

    return cached(unit, "_hz_launch_shapes", read)


def _block_shape(unit: Unit, a: int, b: int) -> tuple[int, int | None] | None:
    """(x, y * z) of the launch's block argument ``tokens[a:b]``: a number, `dim3(x, y)`, or a `dim3
    name(x, y)` / `dim3 name = dim3(x, y)` / `dim3 name{x, y}` declared before it in the same
    function, or a `dim3 name;` whose sizes it then sets (``_assigned_sizes``); y * z None when
    y or z is not a known constant (rows of x threads all the same: flashinfer's `dim3
    block(warpSize, numWarps)`), None when it is none of these or x is not a known constant."""
    toks = unit.tokens
    value = evaluate(unit, a, b)
    if value is not None:
        return value, 1
    if b - a == 1 and toks[a].kind is Kind.IDENT:
        func = function_at(unit, a)
        lo = func.open if func is not None else 0
        decl = next(
            (
                k
                for k in reversed(unit.identifier_positions[toks[a].text])
                if lo < k < a and toks[k - 1].text == "dim3"
            ),
            None,
        )
        if decl is None:
            return None
        if toks[decl + 1].text == ";":
            return _assigned_sizes(unit, toks[a].text, decl, a)
        a = decl + 1
        if toks[a].text == "=" and toks[a + 1].text == "dim3":
            a += 2
    elif toks[a].text == "dim3":
        a += 1
    else:
        return None
    opener = toks[a].text if a < len(toks) else ""
    close = unit.lexed.brackets.get(a)
    if opener not in ("(", "{") or close is None:
        return None
    sizes = [evaluate(unit, *r) for r in split(toks, a + 1, close)]
    if not sizes or sizes[0] is None or len(sizes) > 3:
        return None
    rest: int | None = 1
    for v in sizes[1:]:
        rest = None if rest is None or v is None else rest * v
    return sizes[0], rest


def _assigned_sizes(unit: Unit, name: str, decl: int, launch: int) -> tuple[int, int | None] | None:
    """(x, y * z) of a `dim3 name;` (1x1x1) declared at token ``decl`` whose sizes the code
    before ``launch`` sets one by one, `name.x = 32;` (Magicube's SDDMM launches, round 36);
    None when one is set twice or to no known constant."""
    toks = unit.tokens
    sizes: dict[str, int | None] = {}
    for k in unit.identifier_positions[name]:
        if not decl < k < launch or toks[k + 1].text != ".":
            continue
        member, op = toks[k + 2].text, toks[k + 3].text
        if op == "==" or not op.endswith("="):
            continue  # read, not set
        end = next((j for j in range(k + 4, launch) if toks[j].text == ";"), None)
        if op != "=" or member not in ("x", "y", "z") or member in sizes or end is None:
            return None
        sizes[member] = evaluate(unit, k + 4, end)
    x, y, z = (sizes.get(m, 1) for m in ("x", "y", "z"))
    if x is None:
        return None
    return x, None if y is None or z is None else y * z
