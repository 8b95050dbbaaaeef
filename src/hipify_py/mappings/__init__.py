"""The CUDA -> HIP mapping tables: loaded from YAML once, indexed by CUDA name.

Data lives in the top-level ``mappings/*.yaml`` (shipped in the wheel); this package only
loads, validates and indexes it.  See ``schema.py`` for the entry format, ``index.py`` for the
data model.
"""

from __future__ import annotations

from .index import KINDS, STATUSES, Entry, MappingIndex
from .load import (
    MappingError,
    hip_name,
    is_convertible,
    load_index,
    needs_newer_hip,
    no_hip_library,
    tables_dir,
)

__all__ = [
    "KINDS",
    "STATUSES",
    "Entry",
    "MappingError",
    "MappingIndex",
    "hip_name",
    "is_convertible",
    "load_index",
    "needs_newer_hip",
    "no_hip_library",
    "tables_dir",
]
