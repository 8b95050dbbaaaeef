"""Which findings a run reports: decided here, in one ordered place, for convert, check and every
report format (as flake8's style guide decides for every plugin).

1. Per file, where the file is analysed (a worker; the per-file cache keeps the answer), so a
   finding turned off is neither reported, nor fixed, nor annotated, by convert and check alike:
   a. an inline ``// hipify-py: ignore[ID]`` on its line or the line before;
   b. the project config's ``ignore:`` and ``per-file-ignores:``, and the opt-in rules
      (``RuleInfo.opt_in``) that ``--enable`` / ``enable:`` (or ``check --select`` by full ID)
      do not turn on;
   c. code the HIP build never compiles (an inactive ``#if`` branch: no hazard of the port;
      a function no file of the tree calls, or a source file's macro it never expands,
      ``uncalled_code``), and, for rules about
      CUDA code being ported (``RuleInfo.cuda_premise``), code only the project's own HIP
      build compiles (``#ifdef USE_ROCM``: the project wrote it for AMD);
   d. a file that is not the project's to port (``not_ported``): a copy of a CUDA library the
      conversion replaces with its ROCm counterpart reports nothing, a TensorRT source only
      the finding that says TensorRT has no ROCm port.
2. Per run, over a check's report:
   e. ``--select`` / ``--ignore``;
   f. the baseline: findings it knows are hidden, and counted.
3. ``--fail-on``: which of the findings left fail the run.

Stale HIP output (HZ001) is found per run, not per file: only its full ID in ``--ignore``,
``ignore:`` or the CUDA source's ``per-file-ignores:`` hides it (a prefix such as ``--ignore HZ``
does not undo ``--in-sync``), and no baseline records it.

Patterns match rule IDs case-insensitively and by prefix (``HZ1`` is every HZ1xx rule) or
``ALL``, in suppressions, the config and the command line alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Container, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .findings import Finding, Severity
from .rules import EMITTED, INSTANTIATED, RUN

if TYPE_CHECKING:
    from .buildfiles.unit import BuildFile
    from .context import RuleFilter
    from .frontend.unit import Unit
    from .not_ported import NotPorted
    from .report.findings_common import CheckReport
    from .uncalled_code import Uncalled


def matches_rule(rule: str, patterns: Sequence[str] | Collection[str]) -> bool:
    """``HZ1`` matches every HZ1xx rule; ``HZ101`` only itself; ``ALL`` everything."""
    rule = rule.upper()
    return any(p == "ALL" or rule.startswith(p) for p in patterns)


def kept_in_file(
    findings: list[Finding],
    unit: Unit | BuildFile,
    ignores: RuleFilter | None,
    inactive: Container[int] = (),
    not_ported: NotPorted | None = None,
    hip_written: Container[int] = (),
    enabled: Sequence[str] = (),
    uncalled: Uncalled | None = None,
) -> list[Finding]:
    """Steps a-d: the findings of one file that its suppressions, the project config, the
    opt-in rules ``enabled`` (patterns), its inactive branches (offsets of code the HIP build
    skips), its uncalled functions, its code written for HIP (offsets only
    the project's HIP build compiles) and what the file is leave."""
    from .rules import RULES  # the registry, filled by the passes that made the findings
    from .suppress import suppressed_rules  # only files with findings need it

    if not_ported is not None:
        family = not_ported.kept_family
        findings = [f for f in findings if family and f.extra.get("family") == family]
    if not findings:
        return findings
    table = suppressed_rules(unit)
    kept = []
    for f in findings:
        if f.start in inactive or (ignores is not None and ignores.ignores_rule(f.rule, unit.path)):
            continue
        info = RULES.get(f.rule)
        bites = f.extra.get("bites") or (info.bites if info is not None else None)
        if uncalled is not None and (
            f.start in uncalled.macros or bites is not None and _escapes(f.start, bites, uncalled)
        ):
            continue
        if info is not None and info.opt_in and not matches_rule(f.rule, enabled):
            continue
        if info is not None and info.cuda_premise and f.start in hip_written:
            continue
        line = unit.lines.position(f.start)[0]
        if line in table and (table[line] is None or matches_rule(f.rule, table[line] or ())):
            continue
        kept.append(f)
    return kept


def _escapes(at: int, bites: str, uncalled: Uncalled) -> bool:
    """A hazard that bites where code runs, in a function nothing calls; one that bites where
    the compiler emits code, in an uncalled function it never emits; or one that bites where a
    template is instantiated, in a template nothing calls."""
    if bites == RUN:
        return at in uncalled.functions
    if bites == EMITTED:
        return at in uncalled.discardable
    return bites == INSTANTIATED and at in uncalled.templates


@dataclass(frozen=True)
class RunPolicy:
    """Steps e, f and 3 for one ``check`` run."""

    config: RuleFilter
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: Severity = Severity.WARNING
    # the baseline file's known findings, and its path (its paths are relative to its folder)
    baseline: tuple[Counter, Path] | None = None

    def wanted(self, f: Finding) -> bool:
        """Step e (and b again for stale output, which is not found per file)."""
        # imported here: the project config imports this module at every start-up, and the
        # report package (with the rule registry) is only needed once findings are judged
        from .report.findings_common import STALE_RULE

        if f.rule == STALE_RULE:
            source = f.extra["source"]
            return STALE_RULE not in self.ignore and not self.config.ignores_rule(
                STALE_RULE, source, exact=True
            )
        return (not self.select or matches_rule(f.rule, self.select)) and not matches_rule(
            f.rule, self.ignore
        )

    def apply(self, report: CheckReport) -> bool:
        """Leave in ``report`` the findings the run reports; True when the run fails (a
        finding at or above ``fail_on``, or a file that could not be checked)."""
        from .report import findings_baseline  # only with --baseline

        report.findings = [f for f in report.findings if self.wanted(f)]
        report.fixed = [f for f in report.fixed if self.wanted(f)]
        if self.baseline is not None:
            known, base = self.baseline
            findings_baseline.apply(report, known, base)
        threshold = self.fail_on.rank
        return bool(report.failures) or any(f.severity.rank >= threshold for f in report.findings)
