"""Where a mapping comes from and from which ROCm release it holds (for `mappings show`)."""

from __future__ import annotations

from .index import Entry
from .load import ConversionOptions, hip_name, is_convertible, needs_newer_hip, no_hip_library

HAND_WRITTEN = {"headers.yaml", "warp_sync.yaml", "extras.yaml", "pytorch.yaml"}


def origin(entry: Entry) -> str:
    """AMD table, header check, reviewed override, hand-written file or user rule."""
    source = entry.source
    if source == "overrides.yaml":
        return f"reviewed override (overrides.yaml): {entry.note}"
    if source == "header_check.yaml":
        return f"header check: declared by the ROCm {entry.hip_checked} headers (header_check.yaml)"
    if source.startswith("cuda_"):
        return f"AMD HIPIFY table ({source})"
    if source in HAND_WRITTEN:
        return f"hand-written ({source})"
    return f"user rule ({source})"


AMD_TABLE = "AMD table"


def origin_tag(entry: Entry) -> str:
    """A short origin for counting conversions: AMD table, header check, override, ..."""
    source = entry.source
    if source.startswith("cuda_"):
        return AMD_TABLE
    if source == "header_check.yaml":
        return f"header check (ROCm {entry.hip_checked})"
    if source == "overrides.yaml":
        return "reviewed override"
    return "hand-written" if source in HAND_WRITTEN else "user rule"


def rename_rule(entry: Entry) -> str:
    """The tag of a rename's edit: ``rename/<family>``, plus ``@<origin>`` when the mapping is
    not an AMD table row (the summary counts renames by it)."""
    origin = origin_tag(entry)
    return f"rename/{entry.family}" + ("" if origin == AMD_TABLE else f"@{origin}")


def holds_from(entry: Entry) -> str | None:
    """The ROCm release the HIP name is known to hold from."""
    if entry.hip_added:
        return f"ROCm {entry.hip_added} (hip_added)"
    if entry.hip_checked:
        return f"checked in ROCm {entry.hip_checked}"
    return None


def emitted_for(entry: Entry, options: ConversionOptions) -> str:
    """What the conversion does with the name for these options, in one line."""
    target = ".".join(str(t) for t in options.target_rocm)
    library = no_hip_library(entry, options)
    if library:
        with_miopen = f"; with --miopen: {entry.roc}" if entry.roc else "; MIOpen has none"
        return f"left and reported (HZ300): {library}{with_miopen}"
    if is_convertible(entry, options):
        return f"{hip_name(entry, options)} (--target-rocm {target})"
    if needs_newer_hip(entry, options):
        return f"left and reported (HZ302): needs ROCm {entry.hip_added}, target is {target}"
    if entry.status == "experimental":
        return "left and reported (HZ301) unless --experimental"
    return "left and reported (HZ300)"
