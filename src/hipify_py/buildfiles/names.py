"""``.cu`` names in build files follow the ``.cu`` -> ``.hip`` renames of the conversion.

A name is renamed when the file it points at is one the run renames: resolved against the
build file's directory, or (for a name behind a variable such as ``${SRC_DIR}/k.cu``) by its
tail.  Patterns (``%.cu``, ``*.cu``) and bare suffixes (``.cu.o:``, ``$(SRCS:.cu=.o)``) follow
when the tree has renamed ``.cu`` files at all.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from .unit import BuildFile

# a file name or pattern ending in .cu: path characters and $(VAR)/${VAR} references
_CU_NAME = re.compile(r"(?P<name>(?:\$[({][^(){}\s]*[)}]|\$\w|[\w./%*?+~@-])*)\.cu(?![\w])")
_PATTERN = re.compile(r"[%*?]")
_VARIABLE = re.compile(r".*[)}]|\$\w")


def renamed(name: str, unit: BuildFile, ctx: Context) -> bool:
    """Does the conversion write the file ``name + '.cu'`` (as written in the build file)
    under a ``.hip`` name?"""
    if ctx.options.keep_names:
        return False
    files = ctx.renames.files
    if files is None:
        return True
    if not files:
        return False
    if not name or _PATTERN.search(name):
        pattern = (name.replace("%", "*").rsplit("/", 1)[-1] or "*") + ".cu"  # ".cu": any
        return any(fnmatch.fnmatch(os.path.basename(f), pattern) for f in files)
    tail = _VARIABLE.sub("", name, count=1) if "$" in name else name
    if "$" not in name and not os.path.isabs(name):
        if os.path.normpath(unit.base_dir / f"{name}.cu") in files:
            return True
    tail = tail.lstrip("/")
    if not tail:
        return True
    return any(f.endswith(f"/{tail}.cu") for f in files)


def rename_edits(
    unit: BuildFile, ctx: Context, rule: str, start: int = 0, end: int | None = None
) -> Iterator[Edit]:
    """``.cu`` -> ``.hip`` for every renamed name in ``text[start:end]`` outside comments."""
    text = unit.text
    for m in _CU_NAME.finditer(text, start, len(text) if end is None else end):
        if unit.in_comment(m.start()):
            continue
        if renamed(m.group("name"), unit, ctx):
            yield Edit(m.end() - 3, m.end(), ".hip", rule)
