"""The rule registry: rewrite passes that propose edits, hazard checks that report findings.

A rule module registers itself when imported (``load_rules`` imports every module in
``rewrite/``, ``hazards/`` and ``buildfiles/``), so adding a rule is adding one file.  A finding
ID is declared once, with its name, default severity, summary and rule page (``RuleInfo.doc``,
which ``hipify-py explain`` prints and SARIF ships as help text); every finding of the rule is
made by that declaration's ``report``, so the ID is never spelled twice.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .edits import Edit
from .findings import Finding, Fix, Severity

if TYPE_CHECKING:
    from .context import Context
    from .frontend.unit import Unit

Proposal = Edit | Finding
# a pass sees a source ``Unit`` (phases rewrite, hazard) or a ``BuildFile`` (build:<kind>;
# buildfiles/ imports this module, so build passes are not typed more narrowly here)
Check = Callable[[Any, "Context"], Iterable[Proposal]]
SourceCheck = Callable[["Unit", "Context"], Iterable[Proposal]]


COMPILED, EMITTED, INSTANTIATED, RUN = "compiled", "emitted", "instantiated", "run"
BITES = (COMPILED, EMITTED, INSTANTIATED, RUN)


@dataclass(frozen=True, slots=True)
class RuleInfo:
    id: str
    name: str
    severity: Severity  # the default; one finding may say more or less (``report(severity=)``)
    summary: str
    doc: str  # the rule page: What it detects / Why it breaks on AMD / Example / How to fix
    # the finding is about CUDA code being ported, so code the project wrote for its own HIP
    # build (``conditions.hip_written_in``) never has it (policy step c)
    cuda_premise: bool = False
    # reported only where the user enables it (``--enable``, the config's ``enable:``, or its
    # full ID in ``--select``; policy step b): an advisory rule fewer than half of whose
    # findings judged on held-out projects at first contact were worth acting on
    # (docs/hazard-precision.md, "Opt-in rules")
    opt_in: bool = False
    # when the hazard bites: COMPILED (where the compiler reads the code: an undeclared API,
    # PTX constraints), EMITTED (where the compiler emits the function: a PTX instruction, which
    # the assembler meets only in code it emits), INSTANTIATED (where a template is
    # instantiated: HIP's 64-bit mask static_assert, an unavailable texture fetch) or RUN (where
    # the code runs: wave-size arithmetic, a barrier); code nothing calls (``uncalled_code``)
    # escapes the last three as far as it is never emitted, instantiated or run.  A finding may
    # say more for itself (``extra["bites"]``: PTX operand constraints AMDGPU rejects)
    bites: str = "compiled"

    @property
    def report(self) -> Report:
        return Report(self)

    @property
    def page(self) -> str:
        """The rule page as Markdown, as ``hipify-py explain`` and the porting report show it:
        a title line with ID, name and severity, the summary, then ``doc`` without its title."""
        title, _, rest = self.doc.partition("\n")
        header = f"# {self.id} {self.name} ({self.severity.value})\n\n{self.summary}\n"
        if self.opt_in:
            header += f"\nOpt-in: reported only with `--enable {self.id}` (or config `enable:`).\n"
        return header + (rest if title.strip().startswith(self.id) else self.doc)


@dataclass(frozen=True, slots=True)
class Report:
    """Makes the findings of one rule, and the edits of their fixes, without spelling its ID:
    ``report(start, end, message, fix=Fix((report.edit(s, e, text),), "what it does"))``."""

    rule: RuleInfo

    def __call__(
        self,
        start: int,
        end: int,
        message: str,
        *,
        fix: Fix | None = None,
        severity: Severity | None = None,
        extra: dict | None = None,
    ) -> Finding:
        """A finding of the rule over characters [start, end) of the text the pass saw."""
        rule = self.rule
        return Finding(
            rule.id, severity or rule.severity, start, end, message, fix, extra=extra or {}
        )

    def edit(self, start: int, end: int, text: str) -> Edit:
        """An edit of a fix of the rule: applied only with --fix, and not counted as a
        conversion (its tag is ``fix:ID``)."""
        return Edit(start, end, text, f"fix:{self.rule.id}")


class RuleCheck(Protocol):
    """A hazard rule's check: a pass over one source unit that also gets the ``report`` of the
    rule it implements.  ``hazard_rule`` takes only this signature, so mypy checks every rule
    module's ``check`` against it (the parameters are positional: their names are free)."""

    def __call__(
        self, unit: Unit, ctx: Context, report: Report, /
    ) -> Iterable[Proposal]: ...  # pragma: no cover - a signature, never called


@dataclass(frozen=True, slots=True)
class Pass:
    name: str
    phase: str  # "rewrite" or "hazard"
    check: Check
    order: int


@dataclass(frozen=True, slots=True)
class Tally:
    """A count a pass adds to the run summary, declared beside the pass so that the summary,
    ``--json`` and the README name every kind of edit without a list of their own: the edits
    tagged ``tag`` (every tag under it when ``tag`` ends in ``/``), shown as ``label`` and
    named ``key`` in ``--json``.  ``counts`` says which edits count when one conversion is
    several edits (a launch is counted at its one ``hipLaunchKernelGGL(`` insertion)."""

    tag: str
    key: str
    label: str
    counts: Callable[[Edit], bool] | None = None

    def matches(self, tag: str) -> bool:
        return tag == self.tag or (self.tag.endswith("/") and tag.startswith(self.tag))


RULES: dict[str, RuleInfo] = {}
PASSES: list[Pass] = []
TALLIES: dict[str, Tally] = {}  # by tag, in the order the passes declared them
# Rule IDs that no longer report (their premise stopped holding): a config or command line that
# still names one keeps working, since IDs are stable and a project cannot change in step.
RETIRED: dict[str, str] = {
    "HZ206": "__syncthreads_count/_and/_or are work-group reductions on AMD (ROCm 5.2-7.2.4)",
    "HZ503": "convert writes CUDA 12.0's version values, the branches HIP 7 needs: none of 11 "
    "gates judged on unseen code needed a user's action (docs/hazard-precision.md, rounds 4-5)",
    "HZ316": "device new/delete and virtual functions compile for gfx942 with ROCm 7.2.4 as they "
    "do for CUDA; try/throw nvcc rejects too; __prof_trigger is HZ300's (round 9: 0 of 2 true)",
    "HZ311": "texture references and hipBindTexture compile for gfx942 with ROCm 7.2.4 (deprecated,"
    " a warning); their reads, which gfx942 cannot compile, are HZ320's (round 10: 0 of 6 true)",
}


def declare_rule(
    id: str,
    name: str,
    severity: Severity,
    summary: str,
    doc: str,
    cuda_premise: bool = False,
    opt_in: bool = False,
    bites: str = "compiled",
) -> RuleInfo:
    """Declare finding ID ``id`` once; its ``report`` makes every finding of it.

    For a pass that reports several IDs (or an ID reported outside any pass); a hazard rule
    with a pass of its own uses ``hazard_rule``.
    """
    if id in RULES:
        raise ValueError(f"rule ID {id} registered twice")
    doc = textwrap.dedent(doc).strip()
    if bites not in BITES:
        raise ValueError(f"rule {id}: bites={bites!r} is none of {BITES}")
    info = RuleInfo(id, name, severity, summary, doc, cuda_premise, opt_in, bites)
    RULES[id] = info
    return info


def hazard_rule(
    id: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    cuda_premise: bool = False,
    opt_in: bool = False,
    bites: str = "compiled",
) -> Callable[[RuleCheck], RuleCheck]:
    """Declare hazard rule ``id`` and register the decorated ``check(unit, ctx, report)`` as
    its pass; ``report`` makes the rule's findings.  The rule page is the docstring of the
    module that defines the check (one rule per module).  ``cuda_premise``: the rule is about
    CUDA code being ported (a CUDA-only API, a compute-capability test), which code the project
    wrote for HIP does not have.  ``opt_in``: reported only where the user enables it.
    ``bites``: where the hazard shows (``RuleInfo.bites``)."""

    def register(check: RuleCheck) -> RuleCheck:
        doc = sys.modules[check.__module__].__doc__ or ""
        report = declare_rule(id, name, severity, summary, doc, cuda_premise, opt_in, bites).report

        def run(unit: Unit, ctx: Context) -> Iterable[Proposal]:
            return check(unit, ctx, report)

        _pass(id, "hazard", 50)(run)
        return check

    return register


def rewrite_pass(
    name: str, order: int = 50, tallies: Iterable[Tally] = ()
) -> Callable[[SourceCheck], SourceCheck]:
    """Register a pass that proposes edits (and may report findings about what it saw);
    ``tallies`` are the counts its edits add to the run summary."""
    return _pass(name, "rewrite", order, tallies)


def build_pass(
    kind: str, name: str, order: int = 50, tallies: Iterable[Tally] = ()
) -> Callable[[Check], Check]:
    """Register a pass over build files of one kind (``cmake``, ``make``, ``setuptools``)."""
    return _pass(name, f"build:{kind}", order, tallies)


def _pass(
    name: str, phase: str, order: int, tallies: Iterable[Tally] = ()
) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        for tally in tallies:  # several passes may share one (the build systems' edits)
            if TALLIES.setdefault(tally.tag, tally) != tally:
                raise ValueError(f"edit tag {tally.tag} tallied twice")
        PASSES.append(Pass(name, phase, check, order))
        PASSES.sort(key=lambda p: (p.phase, p.order, p.name))
        return check

    return register


_loaded = False


def load_rules() -> None:
    """Import every rule module once so that each registers itself."""
    global _loaded
    if _loaded:
        return
    packages = ("rewrite", "hazards", "buildfiles", "portable")  # portable: its build passes
    for package in (f"hipify_py.{name}" for name in packages):
        pkg = importlib.import_module(package)
        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{package}.{mod.name}")
    _loaded = True


def tallies() -> list[Tally]:
    """Every count the passes declared, in declaration order."""
    load_rules()
    return list(TALLIES.values())


def passes(phase: str) -> list[Pass]:
    load_rules()
    return [p for p in PASSES if p.phase == phase]
