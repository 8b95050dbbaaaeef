"""HZ104 warpsize-constexpr

## What it detects
`warpSize` used where C++ needs a compile-time constant: a `constexpr` initializer, a
`static_assert`, a template argument, an array bound (`__shared__ float s[warpSize]`), an
`enum` value; and the deprecated `__AMDGCN_WAVEFRONT_SIZE` macros used the same way. A name
the file `#define`s itself as a number (`#define C10_WARP_SIZE 32`) is the file's constant,
not the run-time warp size (HZ107 reports a warp size of 32); one finding per line.
PyTorch's `C10_WARP_SIZE` counts only outside device code: on ROCm it calls an overload that
is `constexpr` (64 on gfx9) in `__device__`/`__global__` functions and a run-time query on
the host (torch/headeronly/macros/Macros.h).  A function that declares a `warpSize` of its own
(`constexpr int warpSize = 32;`, as NCCL's device code does) uses that constant, not HIP's;
so does a class template that takes a `warpSize` parameter (RAFT's reduction policies).

Also `warpSize` (directly or through a macro) read in a host-only function, such as a launch
configuration `<<<n, 4 * WARP_SIZE>>>`.

## Why it breaks on AMD
Since HIP 7.0 `warpSize` is **not** `constexpr` (one binary may serve wave32 RDNA and wave64
CDNA). `constexpr int W = warpSize;` fails with "constexpr variable 'W' must be initialized by a
constant expression", and `__shared__ float s[warpSize]` is rejected as a variable-length
array with static storage. It is a `__device__` object, so host code that reads it does not
compile ("reference to __device__ function ... in __host__ function"); the host asks the device
(`hipDeviceAttributeWarpSize`). `__AMDGCN_WAVEFRONT_SIZE` is deprecated.

## Example
```cuda
constexpr int kWarp = warpSize;            // HZ104 (unsafe fix: const int kWarp = warpSize;)
__shared__ float partial[warpSize];        // HZ104
```

## How to fix
On the host, query `hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, dev)` or use a fixed
maximum such as 64. Inside a device function, read it at run time (`const int kWarp =
warpSize;`); that is the unsafe fix offered when the name is never needed as a constant.
Where a constant is needed (shared array sizes, template arguments), size for the largest
wave you target, e.g. a project constant `kMaxWarp = 64` (wave64 on gfx9/CDNA; RDNA waves are
32 wide), and keep `warpSize` for the run-time lane math. PyTorch extensions can use
`C10_WARP_SIZE`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..analysis.functions import Func, declaration_head, function_at
from ..analysis.namespaces import project_warp_size
from ..analysis.own_constants import class_template_parameter, shadowed, template_parameter
from ..analysis.tokens import cached, enclosing_paren, match, match_back, occurrences, one_per_line
from ..context import Context
from ..findings import Finding, Fix, Severity
from ..frontend.directives import define_of, lines
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import Proposal, Report, hazard_rule

_NAMES = frozenset(
    {"warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__", "C10_WARP_SIZE"}
)


def _names(unit: Unit) -> dict[str, str]:
    """Name -> the run-time warp size it stands for: the built-ins, and object-like macros
    whose body uses one (`#define WARP_SZ warpSize`), followed through macro chains."""
    names = {n: n for n in _NAMES & unit.identifiers}
    defines = _object_like_defines(unit)
    for macro, body in defines:
        if macro in names and not any(b in _NAMES for b in body):
            del names[macro]  # `#define C10_WARP_SIZE 32`: the file's own constant (HZ107's)
    for _ in range(3):
        for macro, body in defines:
            if macro not in names:
                hit = next((b for b in body if b in names), None)
                if hit is not None:
                    names[macro] = names[hit]
    return names


def _object_like_defines(unit: Unit) -> list[tuple[str, list[str]]]:
    """Each ``#define NAME body`` of the file without parameters: (NAME, body token texts)."""
    toks = unit.tokens
    defines: list[tuple[str, list[str]]] = []
    for d in unit.directives:
        if d + 3 < len(toks) and toks[d + 1].text == "define" and toks[d + 2].in_directive:
            name = toks[d + 2]
            if unit.text[name.end : name.end + 1] == "(":
                continue
            body: list[str] = []
            k = d + 3
            while k < len(toks) and toks[k].in_directive and toks[k].kind is not Kind.DIRECTIVE:
                body.append(toks[k].text)
                k += 1
            defines.append((name.text, body))
    return defines


def constant_context(toks: Sequence[Token], i: int) -> str | None:
    """Why token i sits where a constant expression is required, or None."""
    # walk out of brackets to the statement start
    j = i - 1
    depth = 0  # parentheses open between the statement start and an array bound's `[`
    called = False  # token i is inside a call's parentheses (`static_cast<T>(warpSize)`)
    colon = False  # a `:` lies between: a `case X:` before it labels the statement, not token i
    while j >= 0:
        t = toks[j]
        if t.in_directive != toks[i].in_directive:
            break
        x = t.text
        called = called or x == "("
        colon = colon or x == ":"
        if x == "case" and colon:
            return None  # `case ATTR_WARP_SIZE: *v = prop.warpSize;` (cuda-metal, round 39)
        if x in (")", "]", "}"):
            k = match_back(toks, j)
            if k is None or (x == "}" and _ends_block(toks, k)):
                return None
            j = k - 1
            continue
        if x in (";", "{", "}") and t.kind is Kind.PUNCT:
            return "an enum value" if x == "{" and _opens_enum(toks, j) else None
        if x == "[" and t.kind is Kind.PUNCT:
            bound, depth = _array_bound(toks, j, depth)
            if bound:
                return "an array bound"
        why = _constant_marker(toks, i, j, depth, called)
        if why is not None:
            return why
        j -= 1
    return None


_BEFORE_BLOCK = frozenset(
    {")", ";", "{", "}", "else", "do", "try", "const", "noexcept", "override"}
)


def _ends_block(toks: Sequence[Token], open_brace: int) -> bool:
    """The braces opening at ``open_brace`` are a body or block, not a braced initializer
    (`Foo{1, 2}`): the walk back from a use ends there, at the previous statement.  Walking on
    reached the head of the function before it (era-bellman-cuda's `int width = warpSize`
    default argument read as the initializer of an earlier `constexpr` function, round 30)."""
    return open_brace == 0 or toks[open_brace - 1].text in _BEFORE_BLOCK


def _opens_enum(toks: Sequence[Token], j: int) -> bool:
    """The ``{`` at ``j`` opens an enum's body (``enum {`` or ``enum Name {``)."""
    return (j > 0 and toks[j - 1].text == "enum") or (j > 1 and toks[j - 2].text == "enum")


def _array_bound(toks: Sequence[Token], j: int, depth: int) -> tuple[bool, int]:
    """Whether the ``[`` at ``j`` bounds an array being declared (``T name[...]``, not an
    index), and the parentheses open before it in its statement (``depth`` if not looked at)."""
    close = match(toks, j)
    if (
        close is not None
        and j > 1
        and toks[j - 1].kind is Kind.IDENT
        and (toks[j - 2].kind is Kind.IDENT or toks[j - 2].text in ("*", "]"))
        and toks[j - 2].text not in ("return", "case", "else", "do", "delete")
    ):
        head = toks[_stmt_start(toks, j) : j]
        depth = sum((x2.text == "(") - (x2.text == ")") for x2 in head)
        return depth == 0 and not any(x2.text == "=" for x2 in head), depth
    return False, depth


_CALL_CONTEXTS = {
    "static_assert": "a static_assert",
    "__launch_bounds__": "a __launch_bounds__ argument",
}


def _constant_marker(toks: Sequence[Token], i: int, j: int, depth: int, called: bool) -> str | None:
    """The constant-requiring context token ``j`` opens for token ``i``, if any; ``called``:
    token ``i`` is inside parentheses after ``j`` (`static_cast<T>(warpSize)`: the `<...>` is
    not around it)."""
    x = toks[j].text
    before = toks[j - 1] if j > 0 else None
    if x == "(" and before is not None and before.text in _CALL_CONTEXTS:
        return _CALL_CONTEXTS[before.text]
    if x == "constexpr" and before is not None and before.text == "if":
        return "an `if constexpr` condition"
    if x == "<" and before is not None and before.kind is Kind.IDENT and depth == 0 and not called:
        if _closes_angle(toks, i + 1):
            return "a template argument"
    if x in ("constexpr", "constinit") and toks[j].kind is Kind.IDENT:
        return "a constexpr initializer"
    if x == "case":
        return "a case label"
    return None


def _closes_angle(toks: Sequence[Token], k: int) -> bool:
    """A `>` closes the `<` before token ``k`` within its statement and its parentheses: in
    CGBN's `if(TPI<warpSize) x=x>>(a^b);` the `)` after warpSize ends the condition, so the
    `<` there compares (round 35: 4 false HZ104)."""
    parens = 0
    while k < len(toks) and toks[k].text not in (";", "{", ">", ">>"):
        parens += (toks[k].text == "(") - (toks[k].text == ")")
        if parens < 0:
            return False
        k += 1
    return k < len(toks) and toks[k].text in (">", ">>")


def _stmt_start(toks: Sequence[Token], j: int) -> int:
    while j > 0 and toks[j - 1].text not in (";", "{", "}"):
        j -= 1
    return j


def _fix(unit: Unit, toks: Sequence[Token], i: int, report: Report) -> Fix | None:
    """`constexpr T NAME = warpSize;` in a function -> `const T NAME = warpSize;` (unsafe)."""
    if function_at(unit, i) is None or toks[i].text != "warpSize":
        return None
    if i < 2 or toks[i - 1].text != "=" or toks[i + 1].text != ";":
        return None
    name = toks[i - 2]
    start = _stmt_start(toks, i - 2)
    head = [t.text for t in toks[start : i - 2]]
    if not head or head[0] != "constexpr" or any(h not in _TYPE_WORDS for h in head[1:]):
        return None
    # the constant must not be needed as a constant anywhere else in the file
    for k, t in enumerate(toks):
        if (
            t.kind is Kind.IDENT
            and t.text == name.text
            and k != i - 2
            and constant_context(toks, k)
        ):
            return None
    kw = toks[start]
    return Fix(
        (report.edit(kw.start, kw.end, "const"),),
        f"read warpSize at run time: `const ... {name.text} = warpSize;`",
        safe=False,
    )


_TYPE_WORDS = frozenset(
    {
        "int",
        "unsigned",
        "const",
        "static",
        "auto",
        "uint32_t",
        "int32_t",
        "size_t",
        "long",
        "short",
        "unsigned int",
    }
)


@hazard_rule(
    "HZ104",
    "warpsize-constexpr",
    Severity.ERROR,
    "warpSize used as a compile-time constant or read on the host (HIP 7.0)",
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    return one_per_line(_findings(unit, report), unit)


def _own_constant(unit: Unit, i: int, func: Func | None) -> bool:
    """The `warpSize` at token ``i`` is a constant of the project's: nccl's function-local
    `constexpr int warpSize = 32;`, flashinfer's `namespace ... { constexpr unsigned warpSize
    = 32; }`."""
    if unit.tokens[i].text != "warpSize":
        return False
    return (
        (func is not None and shadowed(unit.tokens, i, func))
        or bool(project_warp_size(unit, i))
        or class_template_parameter(unit, i)
    )


def _device_only(unit: Unit, i: int) -> bool:
    """Token ``i`` is in the body of a ``__global__``/``__device__`` (not ``__host__``)
    function, where PyTorch's ROCm ``C10_WARP_SIZE`` picks its constexpr device overload."""
    func = function_at(unit, i)
    return func is not None and func.is_device and not func.is_host


_HOST = "host code"


def _host_only(toks: Sequence[Token], i: int, func: Func | None) -> bool:
    """Token ``i`` is in the body of a host-only function, outside any `__device__` lambda of
    it: HIP 7.0's `warpSize` is a `__device__` object, which host code cannot read (deepmd-kit's
    `<<<nloc, KK * WARP_SIZE>>>` with `#define WARP_SIZE warpSize` for ROCm, rw27)."""
    if func is None or func.is_device or toks[i].in_directive or toks[i - 1].text in (".", "->"):
        return False  # `prop.warpSize` is the device property the host asked for
    params = _template_words(toks, func)
    if "constexpr" in func.specifiers or any(
        _macro_word(w) and w not in params for w in func.specifiers
    ):
        # clang compiles a constexpr function for both sides (QUDA's `constexpr int
        # warp_size() { return warpSize; }`); a macro of another file may spell __device__
        # (RAFT's `DI` in cuVS's fused_l2_knn.cuh)
        return False
    return not any(toks[k].text == "__device__" for k in range(func.open, i))


def _template_words(toks: Sequence[Token], func: Func) -> set[str]:
    """The words inside the `template <...>` of ``func``'s declaration (`typename FPTYPE`)."""
    out: set[str] = set()
    depth = 0
    for j in declaration_head(toks, func):
        text = toks[j].text
        if text == "<" and (depth or toks[j - 1].text == "template"):
            depth += 1
        elif text == ">" and depth:
            depth -= 1
        elif depth:
            out.add(text)
    return out


def _macro_word(word: str) -> bool:
    """A word spelled as a macro (`DI`, `HOST_DEVICE_INLINE`), not a type or keyword."""
    return len(word) > 1 and word.isupper()


def _findings(unit: Unit, report: Report) -> Iterator[Finding]:
    if not (_NAMES & unit.identifiers):
        return
    toks = unit.tokens
    names = _names(unit)
    for i in occurrences(unit, names):
        t = toks[i]
        if _not_a_use(unit, i):
            continue
        base = names[t.text]
        func = function_at(unit, i)
        why = constant_context(toks, i) or (
            _HOST if base == "warpSize" and _host_only(toks, i, func) else None
        )
        if why is None or template_parameter(toks, i):
            continue  # `template <int warpSize, ...>` declares a name of its own
        if _own_constant(unit, i, func):
            continue
        if base == "C10_WARP_SIZE" and _device_only(unit, i):
            continue  # PyTorch's device-side C10_WARP_SIZE is constexpr (64 on gfx9)
        if why == _HOST and _member_argument(unit, i):
            continue
        if why == _HOST:
            yield report(t.start, t.end, _message(t.text, base, why))
        else:
            fix = _fix(unit, toks, i, report)
            yield report(t.start, t.end, _message(t.text, base, why), fix=fix)


def _not_a_use(unit: Unit, i: int) -> bool:
    """Token ``i`` names no warp size read there: a test of the name (`#ifdef`), a macro's
    definition (its uses where a constant is needed count), a member (`prop.warpSize`: of
    the project's or HIP's device properties; cuda-metal's `cuDeviceGetAttribute`, round 39),
    or a variable being declared."""
    toks = unit.tokens
    before = toks[i - 1].text if i > 0 else ""
    if toks[i].in_directive and (
        before in ("ifdef", "ifndef", "defined", "(") or unit.directive_word(i) == "define"
    ):
        return True
    if before in (".", "->"):
        return True
    # the name being declared (chongchen1999's `inline constexpr int warpSize = 32;`, round 45:
    # 2 false rows): the project's own variable, which reads no warp size
    after = toks[i + 1].text if i + 1 < len(toks) else ""
    return toks[i - 1].kind is Kind.IDENT and before != "return" and after in ("=", "{")


def _member_argument(unit: Unit, i: int) -> bool:
    """Token ``i`` is a whole argument of a call to a function-like macro of the file whose
    parameter in that place names only members: Legion's `GET_DEVICE_PROP(warpSize, WarpSize)`
    expands to `info->warpSize = tmp;`, a field of the project's, not HIP's object."""
    toks = unit.tokens
    if toks[i - 1].text not in ("(", ",") or toks[i + 1].text not in (")", ","):
        return False
    open_ = enclosing_paren(toks, i, -1)
    if open_ is None or open_ == 0:
        return False
    members = cached(unit, "_hz104_member_parameters", lambda: _member_parameters(unit))
    places = members.get(toks[open_ - 1].text)
    if not places:
        return False
    place = sum(
        toks[k].text == "," and enclosing_paren(toks, k, open_ - 1) == open_
        for k in range(open_ + 1, i)
    )
    return place in places


def _member_parameters(unit: Unit) -> dict[str, frozenset[int]]:
    """Each function-like macro of the file -> the places of its parameters that its body uses
    only as member names (after `.` or `->`) or spells (`#NAME`)."""
    out: dict[str, frozenset[int]] = {}
    for line in lines(unit.tokens, unit.directives):
        define = define_of(line)
        params = define.params if define is not None else None
        if define is None or not params:
            continue
        name, body = define.name, define.body
        uses = [  # `#NAME` spells the argument, reading nothing (cutorch's SET_DEVN_PROP)
            (param, k > 0 and body[k - 1].text in (".", "->"))
            for k in range(len(body))
            for param in params
            if body[k].text == param and not (k > 0 and body[k - 1].text == "#")
        ]
        places = frozenset(
            n
            for n, param in enumerate(params)
            if any(u == param for u, _ in uses) and all(m for u, m in uses if u == param)
        )
        if places:
            out[name.text] = places
    return out


def _message(name: str, base: str, why: str) -> str:
    """What a finding says of ``name`` (standing for ``base``), used as ``why`` says."""
    if base == "warpSize":
        what = "`warpSize`" if name == base else f"`{name}` (warpSize)"
    elif base == "C10_WARP_SIZE":
        what = f"`{name}` (C10_WARP_SIZE, run-time on the ROCm host pass)"
    else:
        what = f"the deprecated `{base}`"
    if why == _HOST:
        return (
            f"{what} read in host code: since HIP 7.0 warpSize is a __device__ object the host "
            f"cannot read (query hipDeviceAttributeWarpSize, or use a fixed maximum such as 64)"
        )
    return (
        f"{what} used as {why}: warpSize is not constexpr since HIP 7.0 "
        f"(read it at run time or use a fixed maximum such as 64)"
    )
