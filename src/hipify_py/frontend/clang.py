"""Parse one translation unit with libclang, hermetically unless the user gave real flags.

Hermetic mode blanks everything that can open a file (``hermetic.py``; offsets stay exact) and
feeds the stub from ``stub.py`` as a forced include, so no CUDA SDK, clang install or resource
directory is needed, and nothing on disk is read.  With ``-I``/``--cuda-path``/
compile_commands.json flags the user's includes are kept, except those naming something that
is not a regular file.  Parse problems never stop a conversion: they become ``diagnostics``
the report shows.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import resource
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import clang.cindex as ci

from ..mappings import MappingIndex
from .hermetic import blank_file_access, regular_files
from .lexer import Lexed
from .stub import stub_for

STUB_NAME = "/__hipify_py__/stub.h"
_index: ci.Index | None = None


def _clang_index() -> ci.Index:
    global _index
    if _index is None:
        _index = ci.Index.create()
    return _index


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" or "warning" or "fatal"
    offset: int  # character offset in the unit's text (-1 when not in this file)
    message: str


class Ast:
    """A parsed translation unit plus offset conversion between libclang bytes and our chars."""

    def __init__(self, tu: ci.TranslationUnit, text: str, filename: str) -> None:
        self.tu = tu
        self.filename = filename
        self._ascii = text.isascii()
        self._byte_to_char: list[int] | None = None
        if not self._ascii:
            table: list[int] = []
            for i, ch in enumerate(text):
                table.extend([i] * len(ch.encode("utf-8")))
            table.append(len(text))
            self._byte_to_char = table

    @property
    def cursor(self) -> ci.Cursor:
        return self.tu.cursor

    def offset(self, location: ci.SourceLocation) -> int:
        """Character offset of a libclang location in this file (-1 if in another file)."""
        if location.file is None or location.file.name != self.filename:
            return -1
        if self._byte_to_char is None:
            return location.offset
        return self._byte_to_char[min(location.offset, len(self._byte_to_char) - 1)]

    def span(self, cursor: ci.Cursor) -> tuple[int, int]:
        return self.offset(cursor.extent.start), self.offset(cursor.extent.end)

    def walk(self, cursor: ci.Cursor | None = None) -> Iterator[ci.Cursor]:
        """Every cursor in this file (pre-order), skipping the stub's declarations."""
        stack = [cursor or self.tu.cursor]
        while stack:
            node = stack.pop()
            yield node
            children = [
                c
                for c in node.get_children()
                if c.location.file is None or c.location.file.name == self.filename
            ]
            stack.extend(reversed(children))

    def skipped_ranges(self) -> list[tuple[int, int]]:
        """Character ranges of this file the preprocessor skipped (inactive #if branches)."""
        lib = _skipped_range_api()
        if lib is None:
            return []
        main = self.tu.get_file(self.filename)
        ranges = lib.clang_getSkippedRanges(self.tu, main)
        if not ranges:
            return []
        try:
            out = []
            for k in range(ranges.contents.count):
                rng = ranges.contents.ranges[k]
                start, end = self.offset(rng.start), self.offset(rng.end)
                if start >= 0 and end >= 0:
                    out.append((start, end))
            return out
        finally:
            lib.clang_disposeSourceRangeList(ranges)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        out = []
        for d in self.tu.diagnostics:
            if d.severity < ci.Diagnostic.Error:
                continue
            sev = "fatal" if d.severity >= ci.Diagnostic.Fatal else "error"
            out.append(Diagnostic(sev, self.offset(d.location), d.spelling))
        return out


def crash_of(attempt: Callable[[], Ast], size: int, *, walk: bool = True) -> str | None:
    """Parse (and with ``walk`` visit) in a forked child first, under a time and memory limit:
    why libclang died or was stopped there, or None if it lived.

    libclang crashes on some broken inputs (SIGSEGV, or a stack overflow its crash recovery
    cannot catch), and a few hundred bytes of nested macros can make it expand for minutes
    into gigabytes; neither can be stopped inside our process.  The child gets
    ``PARSE_SECONDS`` of CPU time (``WALL_FACTOR`` times that of wall time) and
    ``PARSE_MEMORY`` bytes of address space beyond what it inherited (plus 20 times the file's
    size), does what the rules will do
    (diagnostics; with ``walk`` every cursor's kind and extent) and exits; only a file that
    lived is parsed in this process.  Without ``fork`` the parse is not isolated.
    """
    if not hasattr(os, "fork"):
        return None
    budget = PARSE_MEMORY + 20 * size
    _clang_index()  # libclang loaded here: the child's memory cap is for the parse alone
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_end)
        code = 0
        faulthandler.disable()  # the parent reports the crash; no dump on its stderr
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # nor libclang's own crash report
        try:
            _limit_child(budget)
            ast = attempt()
            ast.diagnostics  # noqa: B018 - evaluated for its side effect on libclang
            if walk:
                for node in ast.walk():
                    node.kind, node.extent  # noqa: B018
        except MemoryError:
            code = _OUT_OF_MEMORY
        except BaseException as exc:  # what the parse here would raise, or a limit's effect
            os.write(write_end, f"{type(exc).__name__}: {exc}".encode()[:500])
            code = 1
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        raised = pipe.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(pid, 0)
    memory = f"libclang ran out of its {budget >> 20} MiB memory limit"
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        if code == _OUT_OF_MEMORY or (code and usage.ru_maxrss * 1024 >= budget // 2):
            return memory  # libclang's crash recovery turned a failed allocation into an error
        return None if code == 0 else raised or f"the parse child exited with status {code}"
    sig = os.WTERMSIG(status)
    if sig == signal.SIGALRM:
        return f"libclang took over {WALL_FACTOR * PARSE_SECONDS} s of wall time (the limit)"
    if sig in (signal.SIGXCPU, signal.SIGKILL):
        return f"libclang took over {PARSE_SECONDS} s (the limit)"
    if usage.ru_maxrss * 1024 >= budget // 2:  # allocation failed near the cap: abort/crash
        return memory
    return f"libclang crashed ({signal.Signals(sig).name})"


def _limit_child(budget: int) -> None:
    """In the parse child: a wall-clock alarm, a CPU limit, and an address-space cap of
    ``budget`` bytes above what the child inherited (its Python and libclang mappings)."""
    signal.alarm(WALL_FACTOR * PARSE_SECONDS)  # a hang ends the child, not the run
    resource.setrlimit(resource.RLIMIT_CPU, (PARSE_SECONDS, PARSE_SECONDS + 1))
    try:
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * resource.getpagesize()
    except OSError:
        return  # no way to know what is mapped: time limits only
    resource.setrlimit(resource.RLIMIT_AS, (mapped + budget, mapped + budget))


PARSE_SECONDS = 4  # of CPU time
# wall time allowed, in CPU limits: a busy CI machine must not make a good file "not analysed"
WALL_FACTOR = 3
PARSE_MEMORY = 512 << 20
_OUT_OF_MEMORY = 3


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


_range_api: object | None = None


def _skipped_range_api():  # noqa: ANN202 - a ctypes library handle
    """libclang's clang_getSkippedRanges, which the Python bindings do not wrap."""
    global _range_api
    if _range_api is None:
        try:
            lib = ci.conf.lib
            lib.clang_getSkippedRanges.restype = ctypes.POINTER(_RangeList)
            lib.clang_getSkippedRanges.argtypes = [ci.TranslationUnit, ci.File]
            lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
            lib.clang_disposeSourceRangeList.restype = None
            _range_api = lib
        except AttributeError:
            _range_api = False
    return _range_api or None


def parse(
    text: str,
    filename: str,
    names: Sequence[str],
    mappings: MappingIndex,
    *,
    hermetic: bool = True,
    args: Sequence[str] = (),
    lexed: Lexed | None = None,
) -> Ast:
    """Parse ``text`` as CUDA; raises only if libclang itself cannot load or parse."""
    if hermetic:
        source = blank_file_access(text, lexed)
    else:
        dirs = [a[2:] for a in args if a.startswith("-I") and len(a) > 2]
        source = blank_file_access(text, lexed, regular_files(filename, dirs))
    stub = stub_for(names, mappings)
    clang_args = [
        "-x",
        "cuda",
        "--cuda-host-only",
        "-nocudainc",
        "-nocudalib",
        "-std=c++17",
        "-fsyntax-only",
        "-Wno-everything",
        "-ferror-limit=0",
        "-include",
        STUB_NAME,
        *args,
    ]
    tu = _clang_index().parse(
        filename,
        args=clang_args,
        unsaved_files=[(filename, source), (STUB_NAME, stub)],
        options=ci.TranslationUnit.PARSE_INCOMPLETE
        | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
    )
    return Ast(tu, text, filename)
