"""Directories a CMake tree's default configuration leaves out: one its parent adds only
behind an option that is off by default and names an NVIDIA architecture (chiendb97's
`if (ENABLE_HOPPER) add_subdirectory(hopper) endif ()` with `option(ENABLE_HOPPER "Enable
Hopper (SM90+) kernels" OFF)`, round 51: 9 false findings on its TMA and WGMMA code), or only
in a comment (longer-is-better's `# add_subdirectory(test_operators)`, round 51: 2 false
HZ300; Legion's `cuda_arrays_gpu.cu`, round 5).  A port to AMD builds neither, so their
findings are nobody's (``project_backends.not_the_projects``).

Read conservatively: a parent that adds directories through a variable or globs sources
recursively may reach any of its subdirectories, and an option some build text or preset names
again may be switched on, so neither leaves anything out.  Pure: the texts come from the
caller."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path

CMAKE_LISTS = "CMakeLists.txt"

# `#[[ ... ]]` bracket comments, `"..."` arguments, `# ...` line comments, in that order
_LEXEME = re.compile(r'#\[(=*)\[.*?\]\1\]|"(?:[^"\\]|\\.)*"|#[^\n]*', re.S)
_COMMAND = re.compile(r"\b([A-Za-z_]\w*)[ \t]*\(")
_OPTION = re.compile(r'^\s*(\w+)\s+"([^"]*)"\s*(\w+)?\s*$', re.S)
# what names an NVIDIA architecture or its own instructions in an option's name or text
_NVIDIA_ARCH = re.compile(
    r"(?i)hopper|blackwell|ampere|volta|turing|(?<![a-z])sm_?[0-9]{2,3}a?(?![0-9])|wgmma"
)
_WORD = re.compile(r"\w+")
_COMMENTED_SUBDIRECTORY = re.compile(r"(?im)^[ \t]*#+[ \t]*add_subdirectory[ \t]*\([ \t]*([\w.-]+)")


def _code(text: str) -> str:
    """``text`` with its comments blanked (quoted arguments kept)."""
    return _LEXEME.sub(lambda m: m.group() if m.group().startswith('"') else " ", text)


Command = tuple[str, str]  # a CMake command's name, lower case, and its arguments as written


def _commands(code: str) -> Iterator[Command]:
    """Each command of CMake ``code`` (comments removed): its name, lower case, and its
    arguments as written (nested parentheses kept)."""
    at = 0
    while m := _COMMAND.search(code, at):
        depth, k = 1, m.end()
        while depth and k < len(code):
            depth += {"(": 1, ")": -1}.get(code[k], 0)
            k += 1
        yield m.group(1).lower(), code[m.end() : k - 1]
        at = k


def _off_options(
    commands: Mapping[Path, list[Command]], others: AbstractSet[str]
) -> frozenset[str]:
    """The options the tree declares off by default whose name or text names an NVIDIA
    architecture, that no CMake `set` and no other build text (``others``) names again."""
    off: set[str] = set()
    set_again: set[str] = set()
    for name, args in (command for listed in commands.values() for command in listed):
        m = _OPTION.match(args) if name == "option" else None
        if m and (m.group(3) or "OFF").upper() in ("OFF", "FALSE", "0", "NO"):
            if _NVIDIA_ARCH.search(m.group(1)) or _NVIDIA_ARCH.search(m.group(2)):
                off.add(m.group(1))
        elif name == "set" and args.split():
            set_again.add(args.split()[0])
    return frozenset(off - set_again - others)


def _added(commands: list[Command], off: frozenset[str]) -> tuple[str, str] | None:
    """The arguments of the ``commands`` of a file the default configuration runs, and of
    those it runs only with an option of ``off`` on; None when the file may add any of its
    subdirectories (`add_subdirectory(${dir})`, `file(GLOB_RECURSE ...)`)."""
    runs: list[str] = []
    skipped: list[str] = []
    gated: list[bool] = []  # per open `if`: whether its branch now runs only with an option on
    for name, args in commands:
        if name == "if":
            gated.append(args.strip() in off)
        elif name in ("elseif", "else") and gated:
            gated[-1] = False
        elif name == "endif" and gated:
            gated.pop()
        elif (name == "add_subdirectory" and "$" in args) or "GLOB_RECURSE" in args:
            return None
        else:
            (skipped if any(gated) else runs).append(args)
    return " ".join(runs), " ".join(skipped)


def _names(args: str, name: str) -> bool:
    return re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w-])", args) is not None


def unbuilt_dirs(texts: Mapping[Path, str], others: AbstractSet[str]) -> frozenset[str]:
    """The directories (absolute) among those that hold a CMakeLists.txt of ``texts`` (each
    CMakeLists.txt's absolute path and text) that their parent adds only behind an
    architecture option off by default or only in a comment; ``others``: the words of the
    tree's other build texts (presets, scripts, Makefiles), which may switch an option on."""
    commands = {path: list(_commands(_code(text))) for path, text in texts.items()}
    off = _off_options(commands, others)
    subdirectories: dict[Path, set[str]] = {}
    for path in texts:
        subdirectories.setdefault(path.parent.parent, set()).add(path.parent.name)
    out: set[str] = set()
    for path, listed in commands.items():
        added = _added(listed, off)
        if added is None:
            continue
        runs, skipped = added
        commented = {m.group(1) for m in _COMMENTED_SUBDIRECTORY.finditer(texts[path])}
        for sub in subdirectories.get(path.parent, ()):
            left_out = sub in commented or _names(skipped, sub)
            if left_out and not _names(runs, sub):
                out.add(str(path.parent / sub))
    return frozenset(out)


class BuildTexts:
    """Collects, build file by build file, the tree's CMakeLists.txt texts and the words of
    its other build texts; ``unbuilt`` then names the directories its CMake leaves out.  A
    collection cut short (``give_up``) leaves nothing out: an unread text may switch an
    option on."""

    def __init__(self) -> None:
        self.cmake: dict[Path, str] = {}
        self.words: set[str] = set()
        self.complete = True

    def add(self, path: Path, data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        if path.name == CMAKE_LISTS:
            self.cmake[path.absolute()] = text
        else:
            self.words.update(_WORD.findall(text))

    def give_up(self) -> None:
        self.complete = False

    def unbuilt(self) -> frozenset[str]:
        return unbuilt_dirs(self.cmake, self.words) if self.complete else frozenset()
