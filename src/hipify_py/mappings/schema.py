"""Schema of a mapping YAML file, and its validation.

A file is a mapping::

    family: runtime            # required: default family of its entries
    title: CUDA Runtime API    # required
    source: <where the data comes from>   # required
    enabled: always | auto     # optional; auto = opt-in family (e.g. pytorch)
    priority: 0                # optional int; higher wins over same-named entries of other files
    generated: true            # optional; written by generate.py
    entries:                   # required list
      - {cuda: cudaMalloc, hip: hipMalloc, kind: function, status: supported, ...}

Entry keys are the ``Entry`` field names: ``cuda``, ``kind`` and ``status`` are required; every
other key is optional and omitted when empty.  Version values are strings ("7.0", not 7.0).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from .index import KINDS, STATUSES

SCHEMA_VERSION = 1

FILE_KEYS = frozenset({"family", "title", "source", "enabled", "priority", "generated", "entries"})
FILE_REQUIRED = ("family", "entries")
ENABLED_VALUES = ("always", "auto")

ENTRY_REQUIRED = ("cuda", "kind", "status")
ENTRY_STR_KEYS = (
    "cuda",
    "hip",
    "kind",
    "family",
    "status",
    "roc",
    "hip_legacy",
    "section",
    "note",
)
ENTRY_VERSION_KEYS = (
    "cuda_added",
    "cuda_deprecated",
    "cuda_removed",
    "hip_added",
    "hip_deprecated",
    "hip_removed",
    "hip_experimental",
    "hip_checked",
    "hip_legacy_until",
)
# space-separated versions, e.g. "11.3 11.4" (a table cell may list several)
ENTRY_VERSION_LIST_KEYS = ("cuda_changed", "hip_changed", "hip_unsupported_cuda")
_VERSION_KEYS = ENTRY_VERSION_KEYS + ENTRY_VERSION_LIST_KEYS
ENTRY_KEYS = frozenset(ENTRY_STR_KEYS + _VERSION_KEYS)

# ``cuda`` names: a C/C++ identifier, possibly namespace-qualified (``at::cuda::CUDAStream``); for
# kind ``header`` an include path as written between <> or "" (``cub/cub.cuh``).
CUDA_NAME_RE = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", re.ASCII)
HEADER_PATH_RE = re.compile(r"[\w.+-]+(?:/[\w.+-]+)*", re.ASCII)


class MappingError(ValueError):
    """A mapping file is malformed; the message is one line naming file, entry and field."""


def _where(path: str, index: int | None = None, cuda: Any = None, key: str | None = None) -> str:
    parts = [path]
    if index is not None:
        parts.append(f"entry {index}" + (f" ({cuda})" if isinstance(cuda, str) else ""))
    if key is not None:
        parts.append(f"field {key!r}")
    return ": ".join(parts)


def validate_file(doc: Any, path: str) -> None:
    """Raise MappingError for the first problem in a parsed mapping file."""
    if not isinstance(doc, Mapping):
        raise MappingError(f"{path}: top level must be a mapping with 'family' and 'entries'")
    _check_file_keys(doc, path)
    entries = doc["entries"]
    if not isinstance(entries, list):
        raise MappingError(f"{_where(path, key='entries')}: must be a list")
    seen: dict[tuple[bool, str], int] = {}
    for i, entry in enumerate(entries):
        validate_entry(entry, path, i, KINDS, STATUSES)
        key = (entry["kind"] == "header", entry["cuda"])
        if key in seen:
            raise MappingError(
                f"{_where(path, i, entry['cuda'], 'cuda')}: duplicate of entry {seen[key]}"
            )
        seen[key] = i


def _check_file_keys(doc: Mapping[Any, Any], path: str) -> None:
    """The file's own keys (all but ``entries``' contents): known, present, of their type."""
    for key in doc:
        if key not in FILE_KEYS:
            allowed = ", ".join(sorted(FILE_KEYS))
            raise MappingError(f"{_where(path, key=str(key))}: unknown key (allowed: {allowed})")
    for key in FILE_REQUIRED:
        if key not in doc:
            raise MappingError(f"{_where(path, key=key)}: missing required key")
    if not isinstance(doc["family"], str) or not doc["family"]:
        raise MappingError(f"{_where(path, key='family')}: must be a non-empty string")
    for key in ("title", "source"):
        if key in doc and not isinstance(doc[key], str):
            raise MappingError(f"{_where(path, key=key)}: must be a string")
    if "enabled" in doc and doc["enabled"] not in ENABLED_VALUES:
        raise MappingError(
            f"{_where(path, key='enabled')}: {doc['enabled']!r} is not one of {ENABLED_VALUES}"
        )
    if "priority" in doc and (type(doc["priority"]) is not int):
        raise MappingError(f"{_where(path, key='priority')}: must be an integer")


def validate_entry(
    entry: Any, path: str, index: int, kinds: tuple[str, ...], statuses: tuple[str, ...]
) -> None:
    """Raise MappingError for the first problem in one entry of a mapping file."""
    if not isinstance(entry, Mapping):
        raise MappingError(f"{_where(path, index)}: must be a mapping, got {type(entry).__name__}")
    _check_fields(entry, path, index)
    where = functools.partial(_where, path, index, str(entry["cuda"]))
    _check_choice(entry, "kind", kinds, where)
    _check_cuda_name(entry, where)
    _check_choice(entry, "status", statuses, where)
    if entry["status"] != "unsupported" and not entry.get("hip"):
        raise MappingError(f"{where('hip')}: required when status is {entry['status']!r}")
    _check_versions(entry, where)


def _check_fields(entry: Mapping[Any, Any], path: str, index: int) -> None:
    """The required fields are there; every field is known and a string (or empty)."""
    cuda = entry.get("cuda")
    for key in ENTRY_REQUIRED:
        if key not in entry or entry[key] in (None, ""):
            raise MappingError(f"{_where(path, index, cuda, key)}: missing required field")
    for key, value in entry.items():
        if key not in ENTRY_KEYS:
            raise MappingError(f"{_where(path, index, cuda, str(key))}: unknown field")
        if value is not None and not isinstance(value, str):
            hint = " (quote version numbers)" if key in _VERSION_KEYS else ""
            raise MappingError(
                f"{_where(path, index, cuda, key)}: must be a string, "
                f"got {type(value).__name__} {value!r}{hint}"
            )


def _check_choice(
    entry: Mapping[Any, Any], key: str, allowed: tuple[str, ...], where: Callable[[str], str]
) -> None:
    if entry[key] not in allowed:
        raise MappingError(f"{where(key)}: {entry[key]!r} is not one of {', '.join(allowed)}")


def _check_cuda_name(entry: Mapping[Any, Any], where: Callable[[str], str]) -> None:
    """``cuda`` is an include path for a header, a (qualified) C/C++ identifier otherwise."""
    cuda = str(entry["cuda"])  # required, and a string: checked before
    if entry["kind"] == "header":
        if not HEADER_PATH_RE.fullmatch(cuda) or ".." in cuda.split("/"):
            raise MappingError(
                f"{where('cuda')}: not a header path like cuda_runtime.h or cub/cub.cuh"
            )
    elif not CUDA_NAME_RE.fullmatch(cuda):
        raise MappingError(
            f"{where('cuda')}: not a C/C++ identifier (e.g. cudaMalloc, at::cuda::CUDAStream)"
        )


def _check_versions(entry: Mapping[Any, Any], where: Callable[[str], str]) -> None:
    """Version fields hold dotted numbers (a list of them, space-separated, for some)."""
    for key in _VERSION_KEYS:
        value = entry.get(key)
        if not value:
            continue
        for version in value.split() if key in ENTRY_VERSION_LIST_KEYS else [value]:
            if not all(part.isdigit() for part in version.split(".")):
                raise MappingError(f"{where(key)}: not a version: {value!r}")
