"""The rule registry: rewrite passes that propose edits, hazard checks that report findings.

A rule module registers itself when imported (``load_rules`` imports every module in
``rewrite/``, ``hazards/`` and ``buildfiles/``), so adding a rule is adding one file.  Finding
IDs carry a rule page (``RuleInfo.doc``) that ``hipify-py explain`` prints and SARIF ships as
help text.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .edits import Edit
from .findings import Finding, Severity

if TYPE_CHECKING:
    from .context import Context

Proposal = Edit | Finding
# a pass sees a source ``Unit`` (phases rewrite, hazard) or a ``BuildFile`` (build:<kind>)
Check = Callable[[Any, "Context"], Iterable[Proposal]]


@dataclass(frozen=True, slots=True)
class RuleInfo:
    id: str
    name: str
    severity: Severity
    summary: str
    doc: str  # the rule page: What it detects / Why it breaks on AMD / Example / How to fix


@dataclass(frozen=True, slots=True)
class Pass:
    name: str
    phase: str  # "rewrite" or "hazard"
    check: Check
    order: int


RULES: dict[str, RuleInfo] = {}
PASSES: list[Pass] = []


def register_rule(id: str, name: str, severity: Severity, summary: str, doc: str) -> RuleInfo:
    if id in RULES:
        raise ValueError(f"rule ID {id} registered twice")
    info = RuleInfo(id, name, severity, summary, _dedent(doc))
    RULES[id] = info
    return info


def rewrite_pass(name: str, order: int = 50) -> Callable[[Check], Check]:
    """Register a pass that proposes edits (and may report findings about what it saw)."""
    return _pass(name, "rewrite", order)


def hazard_pass(name: str, order: int = 50) -> Callable[[Check], Check]:
    """Register a pass that reports findings (its fixes are applied only with --fix)."""
    return _pass(name, "hazard", order)


def build_pass(kind: str, name: str, order: int = 50) -> Callable[[Check], Check]:
    """Register a pass over build files of one kind (``cmake``, ``make``, ``setuptools``)."""
    return _pass(name, f"build:{kind}", order)


def _pass(name: str, phase: str, order: int) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
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
    for package in ("hipify_py.rewrite", "hipify_py.hazards", "hipify_py.buildfiles"):
        pkg = importlib.import_module(package)
        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{package}.{mod.name}")
    _loaded = True


def passes(phase: str) -> list[Pass]:
    load_rules()
    return [p for p in PASSES if p.phase == phase]


def _dedent(doc: str) -> str:
    import textwrap

    return textwrap.dedent(doc).strip()
