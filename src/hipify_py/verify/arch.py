"""AMD GPU archs (gfx942, gfx90a:xnack+, gfx10-3-generic): their families, and the arch to fall
back to when a compiler does not know the one asked for (what a name looks like:
``arch_names``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .toolchain import ToolchainError

# For each GPU family, the archs worth falling back to, best first (data-center parts first).
_FAMILY_PREFERENCE = {
    "gfx9": ("gfx950", "gfx942", "gfx941", "gfx940", "gfx90a", "gfx908", "gfx906", "gfx900"),
    "gfx10": ("gfx1030", "gfx1010"),
    "gfx11": ("gfx1100", "gfx1101", "gfx1102"),
    "gfx12": ("gfx1201", "gfx1200"),
}
_ARCH_RE = re.compile(r"^gfx(\d+)([0-9a-f])([0-9a-f])$")


def base_arch(arch: str) -> str:
    """``gfx90a:xnack+`` -> ``gfx90a`` (the processor without target features)."""
    return arch.split(":", 1)[0]


class UnknownArchFamilyError(ToolchainError):
    """``--arch`` is well-formed but its GPU family is unknown to the compiler: a usage error."""

    def __init__(self, arch: str, compiler: str, families: Sequence[str]):
        self.arch, self.compiler, self.families = arch, compiler, tuple(families)
        super().__init__(
            f"{arch}: GPU family {arch_family(arch)} is unknown to {compiler} "
            f"(it knows {', '.join(self.families) or 'no AMD GPU family'})"
        )


_GENERIC_RE = re.compile(r"^gfx(\d+)(?:-\d)?-generic$")


def _split_arch(arch: str) -> tuple[str, str] | None:
    """``gfx942`` -> ("9", "42"), ``gfx1100`` -> ("11", "00"): the family digits and the rest.

    gfx9 and older have a 3-character suffix (family = its first character), gfx10 and newer a
    4-character one (family = its first two); a generic target (gfx10-3-generic) has rest "".
    """
    base = base_arch(arch)
    m = _GENERIC_RE.match(base)
    if m:
        return m.group(1), ""
    suffix = base[3:] if base.startswith("gfx") else ""
    if not suffix.isalnum() or not suffix[:1].isdigit():
        return None
    if len(suffix) == 3:
        return suffix[0], suffix[1:]
    if len(suffix) == 4 and suffix[:2].isdigit():
        return suffix[:2], suffix[2:]
    return None


def arch_key(arch: str) -> tuple[int, int]:
    """Order archs newest-first within a family: gfx942 > gfx940 > gfx90a > gfx908."""
    parts = _split_arch(arch)
    if parts is None:
        return (-1, -1)
    family, rest = parts
    return int(family), int(rest, 36) if rest else -1


def arch_family(arch: str) -> str:
    parts = _split_arch(arch)
    return f"gfx{parts[0]}" if parts else base_arch(arch)


def arch_families(known: Iterable[str]) -> list[str]:
    """The GPU families among ``known`` archs, oldest first (gfx8, gfx9, gfx10, ...)."""
    fams = {arch_family(a) for a in known if _ARCH_RE.match(a)}
    return sorted(fams, key=lambda f: int(f[3:]) if f[3:].isdigit() else -1)


def choose_fallback(
    requested: str, known: Sequence[str], compiler: str = "the compiler"
) -> str | None:
    """The arch to use when ``requested`` is unknown: the best known one of the same family.

    None when ``known`` is empty; UnknownArchFamilyError when no known arch is of that family.
    """
    known_set = {a for a in known if _ARCH_RE.match(a)}
    if not known_set:
        return None
    family = arch_family(requested)
    for arch in _FAMILY_PREFERENCE.get(family, ()):
        if arch in known_set and arch_key(arch) <= arch_key(requested):
            return arch
    same = sorted((a for a in known_set if arch_family(a) == family), key=arch_key, reverse=True)
    if not same:
        raise UnknownArchFamilyError(requested, compiler, arch_families(known_set))
    older = [a for a in same if arch_key(a) <= arch_key(requested)]
    return (older or same)[0]
