"""Project-level user mapping rules.

Two places are looked for, walking up from the input path to the filesystem root (the nearest
directory that has either file wins):

* ``.hipify-py.yaml`` with a ``mappings:`` key: either a list of entries (same keys as the table
  files) or a list of paths to mapping YAML files (relative to the config file);
* ``pyproject.toml`` with ``[tool.hipify-py] mappings = ["rules.yaml", ...]``.

Inline entries are written to a small generated YAML file in the cache dir so they go through
the same loader and schema validation as every other file.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

from .load import cache_dir
from .schema import MappingError, validate_file

CONFIG_NAME = ".hipify-py.yaml"


def not_utf8(path: Path, exc: UnicodeDecodeError) -> str:
    """The one-line message for a config/mapping file that is not UTF-8."""
    byte = exc.object[exc.start : exc.start + 1].hex()
    return f"cannot read {path}: not UTF-8 (byte 0x{byte} at offset {exc.start})"


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise MappingError(not_utf8(path, exc)) from None
    except (OSError, ValueError) as exc:
        raise MappingError(f"{path}: cannot read: {exc}") from None


def _from_pyproject(path: Path) -> list[Path] | None:
    tool = _load_toml(path).get("tool", {}).get("hipify-py")
    if not isinstance(tool, dict) or "mappings" not in tool:
        return None
    value = tool["mappings"]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MappingError(f"{path}: [tool.hipify-py] field 'mappings': must be a list of paths")
    return [(path.parent / v).resolve() for v in value]


def _from_config(path: Path) -> list[Path]:
    import yaml

    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError as exc:
        raise MappingError(not_utf8(path, exc)) from None
    except (OSError, yaml.YAMLError) as exc:
        raise MappingError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from None
    if not isinstance(doc, dict):
        raise MappingError(f"{path}: top level must be a mapping")
    value = doc.get("mappings")
    if value is None:
        return []
    if not isinstance(value, list):
        raise MappingError(f"{path}: field 'mappings': must be a list of entries or paths")
    if all(isinstance(v, str) for v in value):
        return [(path.parent / v).resolve() for v in value]
    if all(isinstance(v, dict) for v in value):
        return [_inline_file(path, value)]
    raise MappingError(f"{path}: field 'mappings': mix of paths and entries; use one or the other")


def _inline_file(config: Path, entries: list[dict[str, Any]]) -> Path:
    """Materialize inline entries as a mapping file (validated later like any other)."""
    import yaml

    doc = {"family": "user", "title": f"rules from {config}", "source": str(config)}
    doc["entries"] = entries  # type: ignore[assignment]
    # Validate here, so an error names the config file the user wrote, not the generated copy.
    validate_file(doc, f"{config}: field 'mappings'")
    text = f"# generated from {config}\n" + yaml.safe_dump(doc, sort_keys=False)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    for base in (cache_dir() / "user-rules", Path("/tmp") / "hipify-py-user-rules"):
        try:
            base.mkdir(parents=True, exist_ok=True)
            out = base / f"{config.name}-{digest}.yaml"
            if not out.exists():
                out.write_text(text, encoding="utf-8")
            return out
        except OSError:
            continue
    raise MappingError(f"{config}: cannot write inline mapping rules to a cache dir")


def find_project_mapping_files(start: Path, *, config_file: bool = True) -> list[Path]:
    """User mapping files for an input path: nearest .hipify-py.yaml or pyproject.toml wins.

    ``config_file=False`` skips ``.hipify-py.yaml`` files (``check --no-config``).
    """
    start = Path(start).resolve()
    directory = start if start.is_dir() else start.parent
    for d in (directory, *directory.parents):
        config = d / CONFIG_NAME
        if config_file and config.is_file():
            return _from_config(config)
        pyproject = d / "pyproject.toml"
        if pyproject.is_file():
            found = _from_pyproject(pyproject)
            if found is not None:
                return found
    return []
