"""Map a compiler error in a converted HIP file back to the line of the CUDA file it came from.

The exact map is the conversion's own edit list (``FileResult.applied``).  ``verify`` on a tree
written earlier by ``convert`` rebuilds it by converting the CUDA file again in memory; when the
result is not byte-for-byte the HIP file (different options, or the file was edited since) the
lines are aligned with difflib instead and the mapping is marked inexact.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..discover import C_LIKE_SUFFIXES, CUDA_SUFFIXES
from ..edits import Applied, LineIndex

if TYPE_CHECKING:
    from ..context import Context

# what the CUDA file of a converted file may be called: CUDA suffixes first
_SOURCE_SUFFIXES = (*sorted(CUDA_SUFFIXES), *sorted(C_LIKE_SUFFIXES - {".hip"}))


@dataclass
class SourceMap:
    hip_path: str
    hip_text: str
    cuda_path: str
    cuda_text: str
    applied: Applied | None = None  # exact map when not None
    note: str | None = None

    def __post_init__(self) -> None:
        self._hip_lines = LineIndex(self.hip_text)
        self._cuda_lines = LineIndex(self.cuda_text)
        self._cuda_src = self.cuda_text.splitlines()
        self._line_map: list[int] | None = None
        if self.applied is None:
            self._line_map = _align_lines(self.hip_text.splitlines(), self._cuda_src)

    @property
    def exact(self) -> bool:
        return self.applied is not None

    def to_cuda(self, line: int, column: int) -> dict:
        """{"path", "line", "column", "source", "exact"} for a 1-based HIP position."""
        if self.applied is not None:
            offset = self._hip_lines.offset(line, column)
            orig = self.applied.original_offset(offset)
            cline, ccol = self._cuda_lines.position(orig)
        else:
            assert self._line_map is not None
            idx = max(0, min(line - 1, len(self._line_map) - 1))
            cline = self._line_map[idx] + 1 if self._line_map else line
            ccol = 0
        source = self._cuda_src[cline - 1] if 0 < cline <= len(self._cuda_src) else ""
        return {
            "path": self.cuda_path,
            "line": cline,
            "column": ccol,
            "source": source,
            "exact": self.exact,
        }


def _align_lines(new: Sequence[str], old: Sequence[str]) -> list[int]:
    """For each new line, the 0-based old line it most likely came from."""
    out = [0] * len(new)
    matcher = difflib.SequenceMatcher(None, new, old, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(i1, i2):
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                out[k] = j1 + (k - i1)
            else:  # inserted lines or an uneven replacement: the start of the old block
                out[k] = min(j1 + (k - i1), max(j2 - 1, j1))
    if old:
        out = [min(max(v, 0), len(old) - 1) for v in out]
    return out


def find_cuda_source(hip_file: Path, hip_root: Path, cuda_root: Path) -> Path | None:
    """The CUDA file a converted file came from: same relative path, or a CUDA suffix/name."""
    try:
        rel = hip_file.resolve().relative_to(hip_root.resolve())
    except ValueError:
        rel = Path(hip_file.name)
    candidates = [cuda_root / rel]
    stem = rel.with_suffix("")
    names = {
        stem.name,
        stem.name.replace("hip", "cuda"),
        stem.name.replace("_hip", ""),
        stem.name.replace("hip", "cu"),
    }
    for name in names:
        for suffix in _SOURCE_SUFFIXES:
            candidates.append(cuda_root / stem.parent / f"{name}{suffix}")
    for cand in candidates:
        if cand.is_file() and cand.resolve() != hip_file.resolve():
            return cand
    if (cuda_root / rel).is_file():
        return cuda_root / rel
    return None


def rebuild(hip_path: str, hip_text: str, cuda_path: str, ctx: Context) -> SourceMap:
    """Convert ``cuda_path`` again in memory; exact map when it reproduces ``hip_text``."""
    from ..pipeline import convert_text

    with open(cuda_path, encoding="utf-8", errors="surrogateescape") as fh:
        cuda_text = fh.read()
    try:
        result = convert_text(cuda_text, cuda_path, ctx)
    except Exception as exc:  # a broken rule must not break verify
        return SourceMap(
            hip_path,
            hip_text,
            cuda_path,
            cuda_text,
            note=f"re-conversion failed ({exc}); mapped by line only",
        )
    if result.error is None and result.applied is not None and result.text == hip_text:
        return SourceMap(hip_path, hip_text, cuda_path, cuda_text, applied=result.applied)
    if result.error is None and result.applied is None and cuda_text == hip_text:
        return SourceMap(
            hip_path, hip_text, cuda_path, cuda_text, applied=Applied(cuda_text, (), (), ())
        )
    return SourceMap(
        hip_path,
        hip_text,
        cuda_path,
        cuda_text,
        note="re-converting the CUDA file does not reproduce this HIP file byte for "
        "byte (other convert options, or edited since); mapped by line only",
    )
