"""HZ348 rand-state-storage

## What it detects
A `__device__`, `__constant__`, `__shared__` or `__managed__` variable (or array) of a cuRAND
device generator state: `curandState`, `curandStatePhilox4_32_10_t`, `curandStateMRG32k3a`
(or the `hiprandState...` names they become). A pointer to states, a state in a local
variable or a parameter, and an `extern __shared__` array are fine.

## Why it breaks on AMD
hipRAND's states are rocRAND's engines, whose default constructor seeds the engine (ROCm 7.2.4's
`rocrand_device::xorwow_engine()`): a variable of one has dynamic initialization, which HIP
rejects in device memory ("dynamic initialization is not supported for __device__, __constant__,
__shared__, and __managed__ variables"; for `__shared__`: "initialization is not supported").
CUDA's states are plain structs, so the same declaration compiles with nvcc (taichi's
`__device__ curandState_t states[1024 * 1024];`, compile round 32).

## Example
```cuda
__device__ curandState_t states[1 << 20];          // HZ348
__global__ void k() { __shared__ curandState s[64]; }  // HZ348
```

## How to fix
Allocate the states with `hipMalloc` and pass a pointer (as most code does), or keep raw storage
of the same size and alignment and use it through a pointer:
`alignas(hiprandState_t) __shared__ unsigned char raw[64 * sizeof(hiprandState_t)];
hiprandState_t* s = reinterpret_cast<hiprandState_t*>(raw);` (`hiprand_init` sets each state).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_STORAGE = frozenset({"__device__", "__constant__", "__shared__", "__managed__"})
# the state types whose rocRAND engines construct themselves (checked against ROCm 7.2.4)
_STATE = re.compile(r"^(?:cu|hip)randState(?:XORWOW|Philox4_32_10|MRG32k3a)?(?:_t)?$")
# words that may stand between the storage keyword and the type
_QUALIFIERS = frozenset({"static", "volatile", "const", "inline"})


@hazard_rule(
    "HZ348",
    "rand-state-storage",
    Severity.ERROR,
    "cuRAND state in a __device__/__shared__ variable: hipRAND's states have constructors",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not any(_STATE.match(name) for name in unit.identifiers):
        return
    toks = unit.tokens
    places = sorted(k for word in _STORAGE for k in unit.identifier_positions.get(word, ()))
    for i in places:  # the storage keywords' places, not every token
        t = toks[i]
        if t.in_directive or (i and toks[i - 1].text == "extern"):
            continue
        j = i + 1
        while j < len(toks) and toks[j].text in _QUALIFIERS:
            j += 1
        if j + 2 >= len(toks) or not _STATE.match(toks[j].text):
            continue
        name, after = toks[j + 1], toks[j + 2].text
        if name.kind is not Kind.IDENT or after not in ("[", ";", "=", ",", "{"):
            continue  # a pointer, a reference, a function returning a state
        yield report(
            toks[j].start,
            name.end,
            f"`{t.text} {toks[j].text} {name.text}`: hipRAND's states construct themselves "
            f"(a seeded rocRAND engine), and HIP rejects dynamic initialization of {t.text} "
            "variables; allocate the states with hipMalloc or use raw storage through a pointer",
        )
