"""Project configuration for the gate: ``ignore:`` and ``per-file-ignores:`` in the nearest
``.hipify-py.yaml`` (its ``mappings:`` key is read by ``mappings.user``), and rule-ID patterns.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from .findings import Finding
from .rules import RULES, load_rules

CONFIG_NAME = ".hipify-py.yaml"


class ConfigFileError(ValueError):
    """A problem in a project configuration file (one line, naming the file)."""


def split_ids(values: Iterable[str]) -> tuple[str, ...]:
    out = []
    for value in values:
        out += [v.strip().upper() for v in value.split(",") if v.strip()]
    return tuple(out)


def matches_rule(rule: str, patterns: Sequence[str]) -> bool:
    """``HZ1`` matches every HZ1xx rule; ``HZ101`` matches only itself; ``ALL`` everything."""
    return any(p == "ALL" or rule.upper().startswith(p) for p in patterns)


def unknown_pattern(patterns: Sequence[str]) -> str | None:
    load_rules()
    return next(
        (p for p in patterns if p != "ALL" and not any(r.startswith(p) for r in RULES)), None
    )


class Config:
    """``ignore:`` and ``per-file-ignores:`` from the nearest ``.hipify-py.yaml``."""

    def __init__(
        self,
        path: Path | None = None,
        ignore: Sequence[str] = (),
        per_file: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.path = path
        self.ignore = tuple(ignore)
        self.per_file = per_file or {}

    @classmethod
    def find(cls, start: Path) -> Config:
        start = start.resolve()
        directory = start if start.is_dir() else start.parent
        for d in (directory, *directory.parents):
            candidate = d / CONFIG_NAME
            if candidate.is_file():
                return cls.load(candidate)
        return cls()

    @classmethod
    def load(cls, path: Path) -> Config:
        """Read ``path``; every problem is a one-line ConfigError (exit 2) naming the file."""
        from .mappings.user import not_utf8

        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except UnicodeDecodeError as exc:
            raise ConfigFileError(not_utf8(path, exc)) from None
        except OSError as exc:
            raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise ConfigFileError(
                f"cannot read {path}: invalid YAML: {' '.join(str(exc).split())}"
            ) from None
        if not isinstance(data, dict):
            raise ConfigFileError(f"{path}: expected a mapping at the top level")
        ignore = data.get("ignore") or []
        per_file = data.get("per-file-ignores") or {}
        if not isinstance(ignore, list) or not isinstance(per_file, dict):
            raise ConfigFileError(
                f"{path}: `ignore` must be a list of rule IDs and "
                f"`per-file-ignores` a mapping of glob -> IDs"
            )
        ignore_ids = split_ids(str(i) for i in ignore)
        cls._check_ids(path, "ignore", ignore_ids)
        table = {}
        for glob, ids in per_file.items():
            ids = [ids] if isinstance(ids, str) else list(ids or [])
            table[str(glob)] = split_ids(str(i) for i in ids)
            cls._check_ids(path, f"per-file-ignores[{glob!r}]", table[str(glob)])
        return cls(path, ignore_ids, table)

    @staticmethod
    def _check_ids(path: Path, key: str, ids: Sequence[str]) -> None:
        bad = unknown_pattern(ids)
        if bad is not None:
            raise ConfigFileError(
                f"{path}: `{key}`: no rule ID starts with {bad!r} (see `hipify-py rules`)"
            )

    def ignored(self, finding: Finding) -> bool:
        return self.ignores_rule(finding.rule, finding.path)

    def ignores_rule(self, rule: str, path: str, *, exact: bool = False) -> bool:
        """Whether ``rule`` is ignored for the file at (display) ``path``; ``exact``: only by
        its full ID (not by a prefix or ALL)."""

        def hit(ids: Sequence[str]) -> bool:
            return rule in ids if exact else matches_rule(rule, ids)

        if hit(self.ignore):
            return True
        if not self.per_file or self.path is None:
            return False
        try:
            rel = Path(os.path.relpath(Path(path).resolve(), self.path.parent.resolve()))
        except ValueError:
            rel = Path(path)
        rel_s = rel.as_posix()
        for glob, ids in self.per_file.items():
            if (fnmatch.fnmatch(rel_s, glob) or fnmatch.fnmatch(rel.name, glob)) and hit(ids):
                return True
        return False
