"""The project configuration, loaded once into one ``Config``: ``ignore:``,
``per-file-ignores:``, ``mappings:`` and the keys command-line options declare (see
``cli/options.py``) from ``.hipify-py.yaml`` or ``[tool.hipify-py]`` in ``pyproject.toml``.

The file is looked for from the input upwards, but only up to the project root: the first
directory that holds ``.git``, ``.hipify-py.yaml`` or ``pyproject.toml``.  A directory others can
write to (``/tmp``) ends the search too, so a stranger's file above the project never applies.
Config files are untrusted input: size and nesting are limited and every key and value is
checked, each problem a one-line ``ConfigFileError`` naming the file.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .policy import matches_rule
from .rule_ids import split_ids
from .untrusted import (
    CONFIG_LIMIT,
    UntrustedInputError,
    is_under,
    load_toml,
    load_yaml,
    read_regular,
)

CONFIG_NAME = ".hipify-py.yaml"
PYPROJECT = "pyproject.toml"
MAX_ITEMS = 10_000  # entries in one list of a config


class ConfigFileError(ValueError):
    """A problem in a project configuration file (one line, naming the file)."""


@dataclass(frozen=True)
class ValueKind:
    """What a key an option declares holds: ``flag`` (true/false), ``text`` or ``list`` (of
    strings); ``choices`` limits the strings."""

    kind: str
    choices: tuple[str, ...] | None = None


# keys read into Config's own fields (their options, --ignore and --mapping, add to them);
# the options' other keys are declared by the options (cli/options.py) and kept in `values`
OWN_KEYS = ("ignore", "per-file-ignores", "mappings")
_DECLARED: dict[str, ValueKind] = {}


def declare_key(key: str, kind: ValueKind) -> None:
    """Make ``key`` a config key (an option that the config can set too declares it)."""
    if key not in OWN_KEYS:
        _DECLARED[key] = kind


def known_keys() -> tuple[str, ...]:
    return (*OWN_KEYS, *_DECLARED)


def unknown_pattern(patterns: Sequence[str]) -> str | None:
    from .rules import RETIRED, RULES, load_rules  # loads every rule module; rarely needed

    load_rules()
    known = [*RULES, *RETIRED]
    return next(
        (p for p in patterns if p != "ALL" and not any(r.startswith(p) for r in known)), None
    )


@dataclass
class Config:
    """What the project config says; an empty Config when there is none."""

    path: Path | None = None
    ignore: tuple[str, ...] = ()
    per_file: dict[str, tuple[str, ...]] = field(default_factory=dict)
    mapping_paths: tuple[Path, ...] = ()  # `mappings:` as a list of files (absolute)
    inline_mappings: tuple[dict[str, Any], ...] = ()  # `mappings:` as a list of entries
    values: dict[str, Any] = field(default_factory=dict)  # declared keys -> checked value

    @classmethod
    def find(cls, start: Path) -> Config:
        """The config that applies to ``start`` (a file or directory)."""
        found = find_config_file(start)
        return cls() if found is None else cls.load(found)

    @classmethod
    def load(cls, path: Path) -> Config:
        """Read ``path`` (a ``.hipify-py.yaml`` or a ``pyproject.toml``)."""
        try:
            data = read_regular(path, CONFIG_LIMIT)
            if path.name == PYPROJECT:
                table = load_toml(path, data).get("tool", {})
                doc = table.get("hipify-py", {}) if isinstance(table, dict) else {}
                where = f"{path}: [tool.hipify-py]"
            else:
                doc = load_yaml(path, data)
                where = str(path)
        except UntrustedInputError as exc:
            raise ConfigFileError(str(exc)) from None
        if doc is None:
            doc = {}
        if not isinstance(doc, dict):
            raise ConfigFileError(f"{where}: expected a mapping at the top level")
        return _parse(path, where, doc)

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


def find_config_file(start: Path) -> Path | None:
    """The config file for ``start``, searched up to the project root (see the module doc)."""
    start = start.resolve()
    directory = start if start.is_dir() else start.parent
    for d in (directory, *directory.parents):
        try:
            mode = d.stat().st_mode
        except OSError:
            return None
        if mode & stat.S_IWOTH:  # e.g. /tmp: anyone could have put a config there
            return None
        config, pyproject = d / CONFIG_NAME, d / PYPROJECT
        if config.exists():
            return config
        if pyproject.exists():
            return pyproject if _has_tool_table(pyproject) else None
        if (d / ".git").exists():
            return None
    return None


def _has_tool_table(pyproject: Path) -> bool:
    try:
        doc = load_toml(pyproject, read_regular(pyproject, CONFIG_LIMIT))
    except UntrustedInputError as exc:
        raise ConfigFileError(str(exc)) from None
    tool = doc.get("tool")
    return isinstance(tool, dict) and "hipify-py" in tool


def _parse(path: Path, where: str, doc: dict[Any, Any]) -> Config:
    keys = known_keys()
    for key in doc:
        if key not in keys:
            import difflib  # only to name the key a typo meant

            close = difflib.get_close_matches(str(key), keys, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigFileError(
                f"{where}: unknown key `{key}`{hint}; known keys: {', '.join(keys)}"
            )
    ignore = _ids(where, "ignore", doc.get("ignore") or [])
    per_file_raw = doc.get("per-file-ignores") or {}
    if not isinstance(per_file_raw, dict):
        raise ConfigFileError(f"{where}: `per-file-ignores` must be a mapping of glob -> rule IDs")
    per_file = {}
    for glob, ids in per_file_raw.items():
        if not isinstance(glob, str):
            raise ConfigFileError(f"{where}: `per-file-ignores`: {glob!r} is not a glob")
        per_file[glob] = _ids(where, f"per-file-ignores[{glob!r}]", ids or [], one=True)
    paths, inline = _mappings(path, where, doc.get("mappings"))
    values = {k: _value(where, k, v) for k, v in doc.items() if k in _DECLARED}
    return Config(path, ignore, per_file, paths, inline, values)


def _value(where: str, key: str, value: Any) -> Any:
    """The value of a key an option declared, checked against what the option takes."""
    kind = _DECLARED[key]
    if kind.kind == "flag":
        if not isinstance(value, bool):
            raise ConfigFileError(f"{where}: `{key}` must be true or false, not {_short(value)}")
        return value
    values = value if kind.kind == "list" and isinstance(value, list) else [value]
    if kind.kind == "list" and not isinstance(value, list) or len(values) > MAX_ITEMS:
        raise ConfigFileError(f"{where}: `{key}` must be a list of strings")
    for v in values:
        if not isinstance(v, str):
            raise ConfigFileError(f"{where}: `{key}`: {_short(v)} is not a string")
        if kind.choices is not None and v not in kind.choices:
            raise ConfigFileError(
                f"{where}: `{key}`: {v!r} is not one of {', '.join(kind.choices)}"
            )
    return values if kind.kind == "list" else value


def _ids(where: str, key: str, value: Any, *, one: bool = False) -> tuple[str, ...]:
    """Rule IDs or prefixes; ``one``: a single string is accepted too."""
    values = [value] if one and isinstance(value, str) else value
    if not isinstance(values, list) or len(values) > MAX_ITEMS:
        raise ConfigFileError(f"{where}: `{key}` must be a list of rule IDs")
    bad = next((v for v in values if not isinstance(v, str)), None)
    if bad is not None:
        raise ConfigFileError(
            f"{where}: `{key}`: {type(bad).__name__} {_short(bad)} is not a rule ID"
        )
    ids = split_ids(values)
    unknown = unknown_pattern(ids)
    if unknown is not None:
        raise ConfigFileError(
            f"{where}: `{key}`: no rule ID starts with {unknown!r} (see `hipify-py rules`)"
        )
    return ids


def _mappings(
    path: Path, where: str, value: Any
) -> tuple[tuple[Path, ...], tuple[dict[str, Any], ...]]:
    if value is None:
        return (), ()
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise ConfigFileError(f"{where}: `mappings` must be a list of entries or of paths")
    if all(isinstance(v, str) for v in value):
        # a pull request can edit the config: its files stay inside the project (the config's
        # folder), so it cannot have /proc/self/environ or /etc/passwd read and parsed
        project = os.path.realpath(path.parent)
        files = tuple((path.parent / v).resolve() for v in value)
        outside = next((f for f in files if not is_under(str(f), project)), None)
        if outside is not None:
            raise ConfigFileError(
                f"{where}: `mappings`: {outside} is outside the project folder {project}"
            )
        return files, ()
    if all(isinstance(v, dict) for v in value):
        return (), tuple(value)
    raise ConfigFileError(f"{where}: `mappings`: mix of paths and entries; use one or the other")


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "(huge number)"
    return text if len(text) <= 40 else text[:37] + "..."
