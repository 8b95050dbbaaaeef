"""What an AMD GPU arch name looks like (gfx942, gfx90a:xnack+, gfx10-3-generic): checked where
a user names one, for ``convert --offload-arch`` (an ``Options`` field) and ``verify --arch``.
A leaf module: the core reads it without loading the verifier."""

from __future__ import annotations

import re

# A processor (gfx + 3-4 digits/letters, e.g. gfx90a, gfx1100) or a generic target
# (gfx9-generic, gfx10-3-generic), then optional target features (:xnack+, :sramecc-).
ARCH_NAME_RE = re.compile(
    r"gfx(?:[0-9][0-9a-z]{2,3}|[0-9]{1,2}(?:-[0-9])?-generic)(?::[a-z][a-z0-9_-]*[+-])*",
    re.ASCII,
)


def arch_name_error(arch: str) -> str | None:
    """Why ``arch`` is not an AMD GPU name (None when it is well-formed, known or not)."""
    if ARCH_NAME_RE.fullmatch(arch):
        return None
    return (
        f"{arch!r} is not an AMD GPU arch (expected gfx followed by 3-4 digits/letters, "
        f"e.g. gfx942, gfx90a:xnack+, gfx1100)"
    )


def amd_arch(text: str) -> str:
    """``text`` when it is an AMD GPU name (an option's ``parse``: ValueError otherwise)."""
    error = arch_name_error(text)
    if error is not None:
        raise ValueError(error)
    return text
