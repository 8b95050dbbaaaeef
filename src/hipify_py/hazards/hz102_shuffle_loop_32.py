"""HZ102 shuffle-loop-32

## What it detects
Warp reductions and scans written for 32 lanes: a loop whose offset starts at 16 and halves
(`for (int off = 16; off > 0; off /= 2)`), or grows up to 32 (`for (d = 1; d < 32; d *= 2)`),
around a `__shfl*` call that has no explicit sub-warp `width`; and unrolled sequences that start
with a literal offset 16 (`__shfl_down_sync(mask, v, 16)`).

## Why it breaks on AMD
A wavefront on MI300X (gfx942) has 64 lanes and the shuffle's default width is `warpSize` (64).
Starting at offset 16 combines only lanes 0-31 with each other and lanes 32-63 with each
other: lane 0 ends up with half the wave's sum (cupy#9977 shipped this bug). Scans that stop
at 32 leave the upper half without the lower half's prefix.

## Example
```cuda
for (int off = 16; off > 0; off /= 2)       // HZ102
  v += __shfl_down_sync(0xffffffff, v, off);
```

A butterfly or reduction loop (`__shfl_xor`/`__shfl_down` by less than 32) in a helper that
neither it nor its callers in the file tie to the hardware wavefront (`warpSize`, a wavefront
vote, a lane picking ballot bits) is not reported: it stays in its 32-lane group, and callers
that keep 32-lane lane and warp ids (llm.c's `warpReduceSum`) get each group's result.
A file that defines its own overload of the shuffle with a default width of 32 (`float4
__shfl_down(float4 v, unsigned d, unsigned width = 32)`) has its calls without width read
within 32-lane groups: not reported.

## How to fix
Start at `warpSize / 2` (`for (int off = warpSize / 2; off > 0; off /= 2)`) and bound scans by
`warpSize`; or, if the algorithm is meant for 32-lane groups, pass `width = 32` explicitly and
combine the two halves afterwards. Not rewritten automatically.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from ..analysis.calls import SHUFFLES, Call, calls
from ..analysis.functions import function_at, functions
from ..analysis.group_scan import guarded_scan
from ..analysis.tokens import match, text_of
from ..analysis.values import evaluate, int_value
from ..analysis.warp_constants import reported_names
from ..analysis.warp_model import BLOCK32, GROUP32, HARDWARE, LANE32, model_at
from ..analysis.wavefronts import called_in_wavefronts
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import RUN, Proposal, Report, hazard_rule


def _full_width(unit: Unit, call: Call) -> bool:
    """True when the shuffle has no width argument or one that means a whole wavefront:
    `warpSize`, or a literal or constant of this file of at least 64.  A width named by a
    constant defined elsewhere (ggml's `WARP_SIZE`, 32) may mean a 32-lane group on purpose."""
    w = SHUFFLES[call.name]
    if len(call.args) <= w:
        default = _own_overload_width(unit, call.name)
        return default is None or default >= 64
    a, b = call.args[w]
    text = text_of(unit, a, b)
    if text in ("warpSize", "C10_WARP_SIZE"):
        return True
    value = evaluate(unit, a, b)
    return value is not None and value >= 64


def _own_overload_width(unit: Unit, name: str) -> int | None:
    """The default width of the file's own overload of shuffle ``name`` (dpid's
    `float4 __shfl_down(const float4 var, uint32_t srcLane, uint32_t width = 32)`), which a
    call without width on that type takes; None when the file defines no such overload."""
    toks = unit.tokens
    for f in functions(unit):
        lo, hi = f.params
        if f.name == name and hi - lo > 3 and toks[hi - 2].text == "=":
            return int_value(toks[hi - 1].text)
    return None


def loop_sites(unit: Unit) -> list[tuple[int, int, Call]]:
    """(for-token index, header text, shuffle call) for 32-lane shuffle loops."""
    toks = unit.tokens
    shuffles = [c for c in calls(unit, SHUFFLES) if _full_width(unit, c)]
    if not shuffles:
        return []
    shuffle_at = [c.index for c in shuffles]  # in token order
    out: list[tuple[int, int, Call]] = []
    for i in unit.identifier_positions.get("for", ()):
        if i + 1 >= len(toks) or toks[i + 1].text != "(":
            continue
        close = match(toks, i + 1)
        if close is None:
            continue
        header = toks[i + 2 : close]
        texts = [x.text for x in header]
        starts16 = False
        if "=" in texts and ";" in texts:
            eq, semi = texts.index("="), texts.index(";")
            if eq < semi:
                starts16 = evaluate(unit, i + 2 + eq + 1, i + 2 + semi) == 16
        ends32 = any(
            texts[k] in ("<", "<=")
            and k + 1 < len(header)
            and header[k + 1].kind is Kind.NUMBER
            and int_value(texts[k + 1]) in (32, 31)
            and (k + 2 >= len(header) or texts[k + 2] in (";",))
            for k in range(len(texts))
        )
        grows = any(x in ("*=", "<<=") for x in texts) or "<<" in texts or "*" in texts
        halves = any(x in ("/=", ">>=") for x in texts) or ">>" in texts or "/" in texts
        if not ((starts16 and halves) or (ends32 and grows)):
            continue
        last = body_end(toks, close)
        first = bisect_right(shuffle_at, close)
        if first < len(shuffles) and shuffles[first].index <= last:
            out.append((i, close, shuffles[first]))
    return out


def _agrees(unit: Unit, call: Call) -> bool:
    """The shuffle sits in a function of consistent 32-lane groups and stays inside its group
    on a 64-lane wavefront (HZ103 reports the ones that cross); or it is a butterfly or
    reduction step (an xor/down by less than 32 stays inside its 32-lane group) in a function
    that numbers lanes within 32 (`lane = tid & 31`), or in one that neither it nor its callers
    in the file tie to the hardware wavefront (a `warpReduceSum` helper whose callers keep
    32-lane lane and warp ids: lane 0 of each group holds that group's result, as on CUDA)."""
    model = model_at(unit, call.index)
    if model in (GROUP32, BLOCK32):
        return True
    if model != HARDWARE and guarded_scan(unit, call):
        return True  # a scan within 32-lane groups, guarded by the group lane id
    if not call.name.startswith(("__shfl_xor", "__shfl_down")):
        return False
    func = function_at(unit, call.index)
    return model == LANE32 or (
        model is None and func is not None and not called_in_wavefronts(unit, func)
    )


def _via_constant(unit: Unit, i: int, close: int) -> bool:
    """The loop header uses a warp-size constant HZ107 reports: its fix is that one."""
    names = reported_names(unit)
    return any(t.text in names for t in unit.tokens[i:close])


def body_end(toks: Sequence[Token], close: int) -> int:
    j = close + 1
    if j < len(toks) and toks[j].text == "{":
        return match(toks, j) or j
    while j < len(toks) and toks[j].text != ";":
        if toks[j].text in ("(", "[", "{"):
            j = match(toks, j) or j
        j += 1
    return j


@hazard_rule(
    "HZ102",
    "shuffle-loop-32",
    Severity.ERROR,
    "shuffle reduction/scan loop that covers only 32 lanes",
    opt_in=True,
    bites=RUN,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    toks = unit.tokens
    seen: set[int] = set()
    for i, close, call in loop_sites(unit):
        seen.update(range(i, body_end(toks, close) + 1))
        if _agrees(unit, call) or _via_constant(unit, i, close):
            continue
        yield report(
            toks[i].start,
            toks[close].end,
            f"`{text_of(unit, i, close + 1)}` around `{call.name}` covers only 32 lanes;"
            f" MI300X wavefronts have 64 (start at warpSize / 2)",
        )
    for call in calls(unit, SHUFFLES):
        if (
            call.index in seen
            or call.name in ("__shfl", "__shfl_sync")
            or not _full_width(unit, call)
            or _agrees(unit, call)
        ):
            continue
        off = 1 if call.name.endswith("_sync") else 0
        off += 1
        if len(call.args) > off:
            a, b = call.args[off]
            if b - a == 1 and toks[a].kind is Kind.NUMBER and int_value(toks[a].text) == 16:
                yield report(
                    toks[a].start,
                    toks[a].end,
                    f"`{call.name}` with offset 16 starts a 32-lane reduction; "
                    f"MI300X wavefronts have 64 lanes (start at warpSize / 2)",
                )
