"""Convert one file: tokens + AST -> rule proposals -> edits applied once -> result.

Pure: text in, ``FileResult`` out.  No files, processes or terminal here, so every rule and
every option is testable on a string.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Container, Iterable
from dataclasses import replace
from functools import partial
from typing import TypeVar

from .buildfiles.unit import BuildFile
from .context import Context, pytorch_enabled
from .edits import Edit, EditConflict, apply_edits
from .findings import Finding
from .frontend.conditions import hip_written_in, inactive_in
from .frontend.density import too_dense
from .frontend.directives import CONDITIONAL_NEXT, CONDITIONAL_OPEN
from .frontend.directives import lines as directive_lines
from .frontend.hip_build import HIP_RUNTIME_HEADERS
from .frontend.lexer import Kind
from .frontend.unit import Unit
from .not_ported import not_ported
from .policy import kept_in_file
from .portable.source import portable_edits
from .project_backends import hip_build_only
from .result import FileResult, conversions_of
from .rewrite._names_only import names_only
from .root_causes import one_per_root_cause
from .rules import passes
from .uncalled_code import uncalled_in

_T = TypeVar("_T")


def _locate(finding: Finding, unit: Unit | BuildFile) -> Finding:
    line, col = unit.lines.position(finding.start)
    return replace(finding, path=unit.path, line=line, column=col)


def run_rules(
    unit: Unit, ctx: Context, phases: tuple[str, ...]
) -> tuple[list[Edit], list[Finding], list[str]]:
    """Every pass's proposals, with the findings the file reports (``policy.kept_in_file``:
    not suppressed, not ignored by the project, not in code the HIP build never compiles, not
    in a file that is not the project's to port),
    repeats of one diagnosis folded into one (``root_causes``)."""
    edits, findings, problems = proposals_of(unit, ctx, phases)
    if "ast" in unit.__dict__ and unit.ast is None:  # a rule asked, and got no answer
        problems.append(
            f"not analysed: libclang could not parse the file ({unit._ast_error}), so the "
            "rules that need its syntax tree did not run"
        )
    inactive = inactive_in(unit)
    moot = not_ported(unit, ctx.mappings, inactive, ctx.project) if findings else None
    kept = kept_in_file(
        findings,
        unit,
        ctx.ignores,
        inactive,
        moot,
        _hip_written(unit, ctx),
        ctx.options.enabled,
        uncalled_in(unit, ctx.project) if findings else None,
    )
    return edits, one_per_root_cause(kept), problems


def _hip_written(unit: Unit, ctx: Context) -> Container[int]:
    """The offsets of the code only the project's HIP build compiles: a file of its own HIP
    backend or a HIP twin whole, else the branches its CUDA build skips."""
    if hip_build_only(unit.path, ctx.project):
        return range(len(unit.text) + 1)
    return hip_written_in(unit)


def proposals_of(
    unit: Unit | BuildFile, ctx: Context, phases: tuple[str, ...]
) -> tuple[list[Edit], list[Finding], list[str]]:
    """Every pass's proposals, findings located and in file order (none dropped yet: that is
    ``policy.kept_in_file``'s); a pass that crashes is reported and skipped, never fatal."""
    edits: list[Edit] = []
    findings: list[Finding] = []
    problems: list[str] = []
    for phase in phases:
        for rule_pass in passes(phase):
            try:
                proposals = list(rule_pass.check(unit, ctx))
            except Exception as exc:  # a rule bug must not cost the user their output
                problems.append(f"internal error in rule pass '{rule_pass.name}': {exc!r}")
                continue
            for proposal in proposals:
                if isinstance(proposal, Edit):
                    inserts = proposal.start == proposal.end  # only their order needs a rank
                    edits.append(replace(proposal, rank=rule_pass.order) if inserts else proposal)
                else:
                    findings.append(_locate(proposal, unit))
    findings.sort(key=lambda f: (f.start, f.rule))
    return edits, findings, problems


def _parse_problems(unit: Unit) -> list[str]:
    """Syntax errors the user should know about: only those that say something of the file.

    libclang parses a file only when something needs it (a semantic hazard rule, or
    --skip-inactive), because a parse costs more than the whole token-based translation.
    When nothing did, a token-level structure check decides whether to parse just to report.
    A hermetic parse (no project headers) of a well-formed file fails on every type its
    headers declare; those errors change neither the token-based conversion nor anything a
    user can act on, so only a file that looks broken, or that could not be parsed at all,
    gets its parse problems reported.
    """
    if "ast" not in unit.__dict__ and not unit.looks_broken:
        return []
    ast = unit.ast
    if ast is None:
        return [f"libclang could not parse the file ({unit._ast_error}); converted from tokens"]
    if unit.hermetic and not unit.looks_broken:
        return []
    problems = []
    for diag in ast.diagnostics:
        if unit.hermetic and _is_hermetic_noise(diag.message):
            continue
        where = f"line {unit.lines.position(diag.offset)[0]}: " if diag.offset >= 0 else ""
        problems.append(f"{where}{diag.message}")
    return problems


_NOISE = (
    "undeclared identifier",
    "unknown type name",
    "no member named",
    "file not found",
    "no matching",
    "no type named",
    "not a class, namespace",
    "undeclared",
    "incomplete type",
    "cannot initialize",
    "no viable",
    "is not a template",
    "not a member",
    "does not refer to",
    "member reference",
    "invalid operands",
    "cannot convert",
    "no template named",
    "non-void function",
    "excess elements",
    "is not a type",
    "is not a class",
    "ambiguous",
    "too many arguments",
    "too few arguments",
    "indirection requires",
    "subscripted value",
    "deduce",
    "of incomplete",
    "does not provide",
    "requires a type",
    "invalid use of",
    "unknown",
    "expected namespace name",
    "called object type",
    "__hipify_",  # a stub declaration of the hermetic parse met the file's own
)


def _is_hermetic_noise(message: str) -> bool:
    return any(part in message for part in _NOISE)


def for_file(ctx: Context, text: str) -> Context:
    """The context for one file: opt-in mapping families (PyTorch) switched on when they apply."""
    if pytorch_enabled(ctx.options, text):
        return replace(ctx, mappings=ctx.mappings.with_families(("pytorch",)))
    return ctx


def convert_text(text: str, path: str, ctx: Context, *, with_hazards: bool = True) -> FileResult:
    """Translate one CUDA file's text to HIP and collect the findings about it."""
    dense = too_dense(text)
    if dense is not None:
        return _names_converted(text, path, for_file(ctx, text), dense)
    return _on_unit(text, path, ctx, partial(_converted, with_hazards=with_hazards))


def _names_converted(text: str, path: str, ctx: Context, why: str) -> FileResult:
    """A file too dense for the token pipeline: its names renamed, and "not analysed" said
    (a check fails on it, the summary lists it with the parse problems)."""
    result = FileResult(path=path, original=text, text=text, rule_errors=[why])
    result.parse_problems = [why]
    # --portable keeps the CUDA text building with nvcc: renames in place would break that
    applied = apply_edits(text, [] if ctx.options.portable else names_only(text, ctx))
    result.applied = applied
    result.text = applied.text
    result.edits = applied.edits
    result.conversions = conversions_of(applied.edits)
    return result


def _on_unit(text: str, path: str, ctx: Context, work: Callable[[Unit, Context], _T]) -> _T:
    """``work`` on the file's Unit (in the file's context), with the cyclic collector off.

    A file's tokens are a million small tuples that hold no reference cycles; with the
    collector on, its collections re-walk them all the time (15% of a whole-tree conversion,
    more for one large file).  The unit is released (``Unit.release``) and dropped before the
    collector is back on, so the collection of the cycles made meanwhile does not walk the
    tokens either."""
    ctx = for_file(ctx, text)
    settings = ctx.project.hip_settings(path)
    collecting = gc.isenabled()
    gc.disable()
    try:
        unit = Unit(
            path,
            text,
            ctx.mappings,
            clang_args=_clang_args(ctx),
            hermetic=_hermetic(ctx),
            project_defines=settings[0],
            project_undefined=settings[1],
            warp_size_namespaces=ctx.project.warp_size_namespaces,
            tree_warp_constants=ctx.project.warp_constants,
            tree_block32_functions=ctx.project.block32_functions,
            tree_member_types=ctx.project.member_types,
            hip_includers=ctx.project.include_graph.reached_from(
                ctx.project.include_graph.node(path), HIP_RUNTIME_HEADERS
            ),
        )
        try:
            return work(unit, ctx)
        finally:
            unit.release()
            del unit
    finally:
        if collecting:
            gc.enable()


def _converted(unit: Unit, ctx: Context, with_hazards: bool) -> FileResult:
    text, path = unit.text, unit.path
    phases = ("rewrite", "hazard") if with_hazards else ("rewrite",)
    edits, findings, problems = run_rules(unit, ctx, phases)
    result = FileResult(path=path, original=text, text=text)
    result.rule_errors = problems
    for finding in findings:
        fix = finding.fix
        if fix and ctx.options.fix and (fix.safe or ctx.options.unsafe_fixes):
            # a fix never overrides a rewrite: one that touches rewritten text is left unapplied
            if not any(_overlap(f, e) for f in fix.edits for e in edits):
                edits.extend(fix.edits)
    if ctx.options.skip_inactive:  # fixes included: nothing in a skipped branch changes
        edits = _outside_skipped(edits, unit)
    # after --skip-inactive, which may be what parsed the file
    result.parse_problems = problems + [p for p in _parse_problems(unit) if p not in problems]
    if ctx.options.portable:  # the edits folded back onto the CUDA text, guarded
        edits = portable_edits(unit, edits)
    if ctx.options.annotate:
        made = {(e.start, e.end, e.text) for e in edits}
        open_ = [f for f in findings if not _holds_fix(f, made)]
        edits.extend(_annotations(open_, unit, edits))
    try:
        applied = apply_edits(text, edits)
    except EditConflict as exc:
        result.error = f"internal rule conflict: {exc}"
        result.findings = findings
        return result
    result.applied = applied
    result.text = applied.text
    result.edits = applied.edits
    result.findings = mark_fixed(findings, applied.edits)
    result.conversions = conversions_of(applied.edits)
    return result


def _holds_fix(finding: Finding, made: set[tuple[int, int, str]]) -> bool:
    fix = finding.fix
    if fix is None or not fix.edits:
        return False
    return all((e.start, e.end, e.text) in made for e in fix.edits)


def mark_fixed(findings: list[Finding], edits: Iterable[Edit]) -> list[Finding]:
    """Findings whose fix is among ``edits`` (a default conversion made it, or --fix) get
    ``fixed=True``: reports count them apart from the open ones."""
    made = {(e.start, e.end, e.text) for e in edits}
    return [replace(f, fixed=True) if _holds_fix(f, made) else f for f in findings]


def convert_build_text(text: str, path: str, ctx: Context, kind: str) -> FileResult:
    """Rewrite one build file (``kind``: cmake, make, setuptools) with its build system's
    passes: the same Edit/Finding flow as a source, so diffs and the summary show it too."""
    unit = BuildFile(path, text, kind)
    phase = f"build:portable-{kind}" if ctx.options.portable else f"build:{kind}"
    edits, findings, problems = proposals_of(unit, ctx, (phase,))
    findings = kept_in_file(findings, unit, ctx.ignores, enabled=ctx.options.enabled)
    result = FileResult(path=path, original=text, text=text, findings=findings)
    result.rule_errors = problems
    result.parse_problems = list(problems)
    try:
        applied = apply_edits(text, edits)
    except EditConflict as exc:
        result.error = f"internal rule conflict: {exc}"
        return result
    result.applied = applied
    result.text = applied.text
    result.edits = applied.edits
    result.conversions = conversions_of(applied.edits)
    return result


def _overlap(a: Edit, b: Edit) -> bool:
    return a.start < b.end and b.start < a.end or (a.start == b.start and a.end == b.end)


def _outside_skipped(edits: list[Edit], unit: Unit) -> list[Edit]:
    """Drop edits in branches the preprocessor skips (--skip-inactive), as libclang sees them.

    The ``#if``/``#elif`` lines that open or close a skipped range are evaluated by every build,
    so their edits (a version gate's rewrite) stay."""
    ast = unit.ast
    skipped = ast.skipped_ranges() if ast is not None else []
    if not skipped:
        return edits
    evaluated = [
        (line.start, line.end)
        for line in directive_lines(unit.tokens, unit.directives)
        if line.word in CONDITIONAL_OPEN or line.word in CONDITIONAL_NEXT
    ]
    return [
        e
        for e in edits
        if not any(s <= e.start < end for s, end in skipped)
        or any(s <= e.start < end for s, end in evaluated)
    ]


def check_result(text: str, path: str, ctx: Context) -> FileResult:
    """Hazards and unsupported APIs in one file, without converting it, and the rule errors
    that make the check incomplete (findings the conversion itself fixes are marked ``fixed``)."""
    dense = too_dense(text)
    if dense is not None:
        return FileResult(path, text, text, rule_errors=[dense])
    edits, findings, problems = _on_unit(text, path, ctx, _all_rules)
    findings = mark_fixed(findings, edits)
    return FileResult(path, text, text, findings=findings, rule_errors=problems)


def _all_rules(unit: Unit, ctx: Context) -> tuple[list[Edit], list[Finding], list[str]]:
    return run_rules(unit, ctx, ("rewrite", "hazard"))


def _annotations(findings: list[Finding], unit: Unit, edits: list[Edit]) -> list[Edit]:
    """``// hipify-py[ID] severity: message`` above each finding's line, once per line and rule.

    A finding inside a multi-line macro goes above the ``#define`` (a comment line inside the
    body would end the macro), and an annotation already present is not written again.
    """
    by_line: dict[int, list[Finding]] = {}
    for f in findings:
        by_line.setdefault(_statement_line(unit, f), []).append(f)
    out = []
    inserts = {e.start: e for e in edits if e.start == e.end}
    for line, items in sorted(by_line.items()):
        start, _ = unit.lines.line_span(line)
        text = unit.line_text(line)
        indent = text[: len(text) - len(text.lstrip())]
        present = _comment_block_above(unit, line)
        comment = ""
        for rule in dict.fromkeys(f.rule for f in items):
            # one annotation per rule and line: a message that reads differently on the HIP
            # output (hipMalloc for cudaMalloc) must not be added a second time
            if any(text.startswith(f"// hipify-py[{rule}]") for text in present):
                continue
            f = next(x for x in items if x.rule == rule)
            sev = f.severity.value
            comment += f"{indent}// hipify-py[{rule}] {sev}: {f.message}{unit.newline}"
        if not comment:
            continue
        other = inserts.get(start)
        if other is not None:  # e.g. the hip_runtime.h include goes to the same place
            edits.remove(other)
            out.append(Edit(start, start, other.text + comment, other.rule))
        else:
            out.append(Edit(start, start, comment, "annotate"))
    return out


def _statement_line(unit: Unit, finding: Finding) -> int:
    """The line to annotate: the finding's own, or the first line of the macro it is in."""
    i = unit.token_covering(finding.start)
    if i < 0 or not unit.tokens[i].in_directive:
        return finding.line
    while i > 0 and unit.tokens[i].kind is not Kind.DIRECTIVE:
        i -= 1
    return unit.lines.position(unit.tokens[i].start)[0]


def _comment_block_above(unit: Unit, line: int) -> set[str]:
    """The stripped ``//`` comment lines directly above ``line``."""
    found: set[str] = set()
    k = line - 1
    while k >= 1:
        text = unit.line_text(k).strip()
        if not text.startswith("//"):
            break
        found.add(text)
        k -= 1
    return found


def _hermetic(ctx: Context) -> bool:
    opts = ctx.options
    return not (opts.include_dirs or opts.extra_clang_args)


def _clang_args(ctx: Context) -> tuple[str, ...]:
    opts = ctx.options
    return (
        *(f"-I{d}" for d in opts.include_dirs),
        *(f"-D{d}" for d in opts.defines),
        *opts.extra_clang_args,
    )
