"""User mapping rules: from the project config (``mappings:`` in ``.hipify-py.yaml`` or
``[tool.hipify-py]``) and from ``--mapping FILE``.

User rules are untrusted input: each file is read once (regular files only, size and nesting
limited, no YAML aliases) and every emitted name (``hip:``/``roc:``) must be a C/C++ identifier
or header path, so a rule cannot put code into the output.  Rules travel as ``RulesText`` (label
and bytes) to the worker processes, in memory: nothing is written to a temp file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import Config, ConfigFileError
from ..untrusted import UntrustedInputError, load_yaml, read_regular
from .load import RulesText
from .schema import CUDA_NAME_RE, HEADER_PATH_RE, MappingError, validate_file

RULES_LIMIT = 16 * 1024 * 1024  # bytes in one user mapping file
EMITTED_KEYS = ("hip", "roc")


def check_emitted_names(doc: dict[str, Any], label: str) -> None:
    """Every ``hip:``/``roc:`` value is an identifier (a header path for headers)."""
    for i, entry in enumerate(doc.get("entries") or []):
        pattern = HEADER_PATH_RE if entry.get("kind") == "header" else CUDA_NAME_RE
        for key in EMITTED_KEYS:
            value = entry.get(key)
            if value is None:
                continue
            bad = not pattern.fullmatch(value) or (
                entry.get("kind") == "header" and ".." in value.split("/")
            )
            if bad:
                what = "a header path" if entry.get("kind") == "header" else "a C/C++ identifier"
                raise MappingError(
                    f"{label}: entry {i} ({entry.get('cuda')}): field '{key}': "
                    f"{value!r} is not {what}"
                )


def read_rules(path: Path) -> RulesText:
    """One user mapping file, read once and validated."""
    try:
        data = read_regular(path, RULES_LIMIT)
        doc = load_yaml(path, data)
    except UntrustedInputError as exc:
        raise MappingError(str(exc)) from None
    validate_file(doc, str(path))
    check_emitted_names(doc, str(path))
    return RulesText(str(path), data)


def inline_rules(config: Config) -> RulesText:
    """``mappings:`` entries written in the config itself, as an in-memory mapping file."""
    import yaml

    assert config.path is not None
    label = f"{config.path}: field 'mappings'"
    doc = {"family": "user", "title": f"rules from {config.path}", "source": str(config.path)}
    doc["entries"] = list(config.inline_mappings)  # type: ignore[assignment]
    # Validated here, so an error names the config file the user wrote.
    validate_file(doc, label)
    check_emitted_names(doc, label)
    return RulesText(str(config.path), yaml.safe_dump(doc, sort_keys=False).encode("utf-8"))


def user_rules(config: Config, extra: Sequence[Path] = ()) -> list[RulesText]:
    """Every user rule that applies: the project config's, then ``--mapping`` files (which
    win over the config's)."""
    out = [read_rules(p) for p in config.mapping_paths]
    if config.inline_mappings:
        out.append(inline_rules(config))
    return out + [read_rules(p) for p in extra]


def find_project_mapping_files(start: Path, *, config_file: bool = True) -> list[Path | RulesText]:
    """The project config's mapping sources for an input path: files named in it, or its
    inline entries (in memory); ``config_file=False`` (``check --no-config``) gives none."""
    if not config_file:
        return []
    try:
        config = Config.find(Path(start))
    except ConfigFileError as exc:
        raise MappingError(str(exc)) from None
    if config.inline_mappings:
        return [inline_rules(config)]
    return list(config.mapping_paths)
