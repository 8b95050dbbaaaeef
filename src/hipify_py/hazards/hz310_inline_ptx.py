"""HZ310 inline-ptx

## What it detects
Inline assembly (`asm(...)`, `asm volatile(...)`, `__asm__`) whose template is PTX: dotted
instruction names (`mov.u32`, `shfl.sync.bfly.b32`, `ld.global.nc`), PTX special registers
(`%laneid`, `%%warpid`, `%clock`), `trap;`, `membar`, `bar.sync`. AMD GCN/CDNA assembly
(`s_waitcnt`, `v_mov_b32`, ...) in a HIP source is not reported.

## Why it breaks on AMD
HIP-Clang accepts only AMDGPU ISA in inline assembly; **PTX is not supported** and does not
assemble. `asm("trap;")` is often replaced by `abort()`, but on HIP `abort()` kills the whole
application, whereas CUDA's trap only ends the kernel dispatch.

## Example
```cuda
asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));   // HZ310
```

## How to fix
Replace the instruction with the HIP intrinsic that does the same (`__lane_id()`,
`__builtin_amdgcn_*`, `clock64()`, `__threadfence()`, `__ldg`), or keep the PTX under
`#if defined(__CUDA_ARCH__)`/`__HIP_PLATFORM_NVIDIA__` and write the AMD path separately.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..analysis.tokens import match
from ..context import Context
from ..findings import Severity
from ..frontend.lexer import Kind, Token
from ..frontend.unit import Unit
from ..rules import COMPILED, EMITTED, Proposal, Report, hazard_rule

_ASM = frozenset({"asm", "__asm__", "__asm"})
# PTX instruction names (PTX ISA 8.x); a dotted instruction whose name is not one of them is
# another ISA's (RISC-V vector `flw.ps`, ARM `ld1.4s`), which a CUDA project may carry in a
# backend of its own
_PTX_OPCODES = frozenset(
    "abs activemask add addc and applypriority atom bar barrier bfe bfi bfind bmsk bra brev "
    "brkpt brx call clz cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a elect "
    "ex2 exit fence fma fns getctarank griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3 "
    "mad mad24 madc mapa match max mbarrier membar min mma mov movmatrix mul mul24 multimem "
    "nanosleep neg not or pmevent popc prefetch prefetchu prmt rcp red redux rem ret rsqrt sad "
    "selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore stacksave stmatrix "
    "sub subc suld suq sured sust szext tanh tcgen05 tensormap testp tex tld4 trap txq vabsdiff "
    "vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 "
    "vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor clusterlaunchcontrol".split()
)
_DOTTED = re.compile(r"\b([a-z][a-z0-9]+)(?:\.+[A-Za-z0-9_]+)+\b")
_PTX = re.compile(
    r"%%?(?:laneid|warpid|nwarpid|smid|clock|clock64|globaltimer|"
    r"lanemask_\w+|tid|ntid|ctaid|dynamic_smem_size)\b|\btrap\s*;|\bexit\s*;|\bmembar\b|"
    r"\bbar\.sync\b|\.reg\b"
)
# what PTX never writes and ARM does: `#` before an immediate (`subs %[K], %[K], #4`)
_ARM = re.compile(r"#-?\d")
_GCN = re.compile(r"\b[sv]_[a-z0-9_]+|\bds_[a-z]|\bbuffer_|\bglobal_load|\bflat_")


@hazard_rule(
    "HZ310",
    "inline-ptx",
    Severity.ERROR,
    "inline PTX assembly (HIP accepts only AMDGPU ISA)",
    bites=EMITTED,
)
def check(unit: Unit, ctx: Context, report: Report) -> Iterator[Proposal]:
    if not (_ASM & unit.identifiers):
        return
    toks = unit.tokens
    causes: dict[str, str] = {}  # PTX text -> the root cause its first finding names
    for i, t in enumerate(toks):
        parens = _asm_parens(toks, i)
        if parens is None:
            continue
        # the string literals joined: `"ld." #space ".global"` is `ld..global`
        text = _template(toks, *parens).replace('"', "").replace("\\n", " ").replace("\\t", " ")
        text = text if text.strip() else _included(toks, *parens)
        if not _is_ptx(text) or _GCN.search(text) or _never_expanded(unit, i, ctx):
            continue
        if _ARM.search(text) or any("w" in c for c in _constraints(toks, *parens)):
            continue  # ARM's: `#4` immediates, `"w"` NEON registers (MegEngine's armv7 kernels)
        snippet = " ".join(text.split())[:40]
        run = _macro_run(toks, i)
        # the same PTX again, or a block of PTX macros (VanitySearch's 19 carry-chain macros,
        # round 28): one replacement
        cause = causes.setdefault(snippet, snippet if run is None else f"#define@{run}")
        yield report(
            t.start,
            toks[parens[1]].end,
            f"inline PTX `{snippet}`: HIP-Clang does not accept PTX assembly "
            f"(use a HIP intrinsic or __builtin_amdgcn_*)",
            extra={"root_cause": cause, **_bites(toks, *parens)},
        )


# the operand constraints AMDGPU takes (clang-19): others (`l`, `h`, `f`, `d`, `c`) fail where
# the compiler reads the statement, in a function it never emits as well
_AMDGPU_CONSTRAINTS = frozenset("rnimgXvsa0123456789=+&")


def _bites(toks: Sequence[Token], open_: int, close: int) -> dict[str, str]:
    """``{"bites": COMPILED}`` when an operand constraint of the asm statement is one AMDGPU
    rejects (`"l"(ptr)`): the rule's EMITTED holds only for PTX text, which the assembler
    meets in emitted code alone (nvbio's unused `static __forceinline__` SIMD helpers with
    `"r"` operands compile for gfx942, round 31)."""
    if all(set(c) <= _AMDGPU_CONSTRAINTS for c in _constraints(toks, open_, close)):
        return {}
    return {"bites": COMPILED}


def _constraints(toks: Sequence[Token], open_: int, close: int) -> list[str]:
    """The operand constraints of the asm statement (`"=r"`, `"l"`)."""
    return [
        toks[k].text.strip('"')
        for k in range(open_ + 1, close)
        if toks[k].kind is Kind.STRING and toks[k + 1].text == "("
    ]


def _define_at(toks: Sequence[Token], i: int) -> int | None:
    """The `#` of the `#define` whose line holds token ``i``, or None."""
    if not toks[i].in_directive:
        return None
    d = i
    while d > 0 and toks[d].kind is not Kind.DIRECTIVE:
        d -= 1
    return d if d + 2 < len(toks) and toks[d + 1].text == "define" else None


def _macro_run(toks: Sequence[Token], i: int) -> int | None:
    """The first token of the run of adjacent `#define` lines that token ``i`` is in (no code
    between them), or None outside a `#define`."""
    d = _define_at(toks, i)
    while d is not None and d > 0 and toks[d - 1].in_directive:
        before = _define_at(toks, d - 1)
        if before is None:
            break
        d = before
    return d


def _never_expanded(unit: Unit, i: int, ctx: Context) -> bool:
    """Token ``i`` is in the body of a header's `#define` that no file of the tree names, so no
    code holds its PTX (``ProjectIndex.unused_names``: cuda_hgemm's `LDMATRIX_X1`, round 18).
    A source file's own unexpanded macros are no code for any rule (``uncalled_code``); a
    header checked on its own may be expanded by the files that include it."""
    d = _define_at(unit.tokens, i)
    return (
        d is not None and not unit.is_source and unit.tokens[d + 2].text in ctx.project.unused_names
    )


def _is_ptx(template: str) -> bool:
    """A PTX special register or statement, or a dotted instruction that PTX has (or an
    included PTX text, ``_included``)."""
    if template.startswith("#include") or _PTX.search(template):
        return True
    return any(m.group(1) in _PTX_OPCODES for m in _DOTTED.finditer(template))


def _asm_parens(toks: Sequence[Token], i: int) -> tuple[int, int] | None:
    """The ``(`` and ``)`` of the asm statement whose keyword is token ``i`` (its qualifiers
    ``volatile``/``goto``/``inline`` skipped)."""
    t = toks[i]
    if t.kind is not Kind.IDENT or t.text not in _ASM:
        return None
    j = i + 1
    while j < len(toks) and toks[j].text in ("volatile", "__volatile__", "goto", "inline"):
        j += 1
    if j >= len(toks) or toks[j].text != "(":
        return None
    close = match(toks, j)
    return None if close is None else (j, close)


# PTX's register constraints that no other ISA a CUDA project carries uses in device code:
# 16-bit `h`, 64-bit `l`, `f` and `d` floats
_PTX_REGISTERS = frozenset("hlfd")


def _included(toks: Sequence[Token], open_: int, close: int) -> str:
    """For an asm statement whose template is no literal of its own but an `#include` of the
    PTX text (FK20-CUDA's `cachehit.cu`, compile round 41: a silent TU), the include's line
    when its operands use PTX's register constraints; else ""."""
    found = _constraints(toks, open_, close)
    if not any(set(c) & _PTX_REGISTERS for c in found) or any("w" in c for c in found):
        return ""
    name = next(
        (
            k
            for k in range(open_ + 1, close)
            if toks[k].kind is Kind.STRING and _on_include_line(toks, k)
        ),
        None,
    )
    return f"#include {toks[name].text}" if name is not None else ""


def _on_include_line(toks: Sequence[Token], k: int) -> bool:
    """Token ``k`` is on an `#include` line (a file name, not assembler text)."""
    if not toks[k].in_directive:
        return False
    d = k
    while d > 0 and toks[d].kind is not Kind.DIRECTIVE:
        d -= 1
    return toks[d + 1].text == "include"


def _template(toks: Sequence[Token], open_: int, close: int) -> str:
    """The assembler template: the string literals before the first ``:`` (the operands)."""
    template = ""
    for k in range(open_ + 1, close):
        if toks[k].kind is Kind.STRING and not _on_include_line(toks, k):
            template += toks[k].text
        elif toks[k].text in (":", "::"):  # `::"n"(N)`: no outputs, then the inputs
            break
    return template
