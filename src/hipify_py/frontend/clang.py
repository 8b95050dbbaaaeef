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
import re
import resource
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn

import clang.cindex as ci

from ..mappings import MappingIndex
from .hermetic import blank_file_access, regular_files
from .lexer import Lexed
from .stub import stub_for

STUB_NAME = "/__hipify_py__/stub.h"
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # what surrogateescape made of undecodable bytes
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


def crash_of(attempt: Callable[[], Ast], size: int) -> str | None:
    """Parse (and walk) in a forked child first: why libclang died there, or None if it lived.

    libclang crashes on some broken inputs (SIGSEGV, or a stack overflow its crash recovery
    cannot catch), and a crash in our process would end the whole run.  The child does what
    the rules will do (diagnostics, every cursor's kind and extent) and exits; only a file
    that survives is parsed in this process.  The child may take PARSE_SECONDS of CPU time and
    ``parse_memory(size)`` more bytes than the parent holds (a file of ``size`` characters),
    and may sleep (wait on something) for PARSE_SECONDS in a row.  Without ``fork`` the parse
    is not isolated.
    """
    if not hasattr(os, "fork"):
        return None
    extra = parse_memory(size)
    _clang_index()  # libclang is loaded here, so the child's cap is for the parse alone
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        _probe_in_child(attempt, extra)
    status, asleep = _wait(pid)
    if asleep:
        return f"libclang hung (asleep for {PARSE_SECONDS} s)"
    return _verdict(status, extra)


def _wait(pid: int) -> tuple[int, bool]:
    """The child's wait status, and whether it was killed for sleeping PARSE_SECONDS in a row.

    A child that sleeps that long waits on something that will not come (a FIFO, a lock).  A
    child that runs, however slowly on a loaded machine, is left to its CPU limit: a wall-clock
    limit would cut parses by the load, and the same file would convert differently from run
    to run.  Where /proc cannot tell (not Linux), the child's own alarm ends a hang.
    """
    asleep_since: float | None = None
    pause = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        now = time.monotonic()
        if not _sleeping(pid):
            asleep_since = None
        elif asleep_since is None:
            asleep_since = now
        elif now - asleep_since > PARSE_SECONDS:
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1], True
        time.sleep(pause)
        pause = min(2 * pause, 0.05)  # a quick parse is seen at once, a slow one costs no CPU


def _sleeping(pid: int) -> bool:
    """Whether every thread of the process is asleep (S: waiting for an event; D: in
    uninterruptible I/O is not counted: paging on a full machine is not a hang).

    Every thread, not the process's first: libclang parses on a thread of its own while the
    first one waits for it, so a long parse looked asleep and was cut after PARSE_SECONDS of
    wall time, parsed or not with the machine's load."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    states = [_state(f"/proc/{pid}/task/{task}/stat") for task in tasks]
    return bool(states) and all(state == "S" for state in states)


def _state(stat: str) -> str:
    """The state letter of a /proc ``stat`` file ('' if it cannot be read: a thread that
    just ended)."""
    try:
        with open(stat, encoding="ascii", errors="replace") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return ""
    return fields[0] if fields else ""


def _probe_in_child(attempt: Callable[[], Ast], extra: int) -> NoReturn:  # pragma: no cover
    """The child's work: parse under the limits, touch what the rules will, exit with a code
    ``_verdict`` reads."""
    code = 0
    faulthandler.disable()  # the parent reports the crash; no dump on its stderr
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # nor libclang's own crash report
    try:
        signal.alarm(_LAST_RESORT_SECONDS)  # where the parent cannot see a hang (no /proc)
        _limit_child(extra)
        ast = attempt()
        ast.diagnostics  # noqa: B018 - evaluated for its side effect on libclang
        for node in ast.walk():
            node.kind, node.extent  # noqa: B018
    except MemoryError:
        code = _OUT_OF_MEMORY
    except BaseException:
        code = 1
    os._exit(code)


def _verdict(status: int, extra: int) -> str | None:
    """Why the child with wait ``status`` died, or None if its parse passed."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return f"libclang took over {PARSE_SECONDS} s of CPU time"
        if sig == signal.SIGALRM:
            return f"libclang hung (no result after {_LAST_RESORT_SECONDS} s)"
        return f"libclang crashed ({signal.Signals(sig).name})"
    if os.WEXITSTATUS(status) == _OUT_OF_MEMORY:
        return f"libclang needed over {extra >> 20:,} MiB"
    if os.WEXITSTATUS(status):
        # the parse raised under the limits: libclang's crash recovery turns an allocation that
        # hit the cap into a plain parse error, and the same parse here would have no cap
        return f"libclang failed under its limits ({extra >> 20:,} MiB, {PARSE_SECONDS} s)"
    return None


# Real files within the parse limit take ~1 s.  A parse that passes here runs once more in
# the parent, so a file's conversion stays under 10 s of CPU time.  The limit is on CPU time,
# not wall time: with more jobs than cores, a wall-clock limit cut parses by the machine's load
# and the same file converted differently from run to run.
PARSE_SECONDS = 4
_OUT_OF_MEMORY = 3  # the child's exit code when its parse ran out of its memory limit
_LAST_RESORT_SECONDS = 300  # wall time; far above any parse the CPU limit lets through


def parse_memory(size: int) -> int:
    """Bytes a parse of a ``size``-character file may add to the process: 1 GiB, plus 64 per
    character of a large file."""
    return (1 << 30) + 64 * size


def _limit_child(extra: int) -> None:  # pragma: no cover - runs in the child
    """Cap the child's address space at what it holds now plus ``extra`` bytes, and its CPU
    time at PARSE_SECONDS: a parse over either ends the child, not the machine."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        held = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (held + extra, held + extra))
    resource.setrlimit(resource.RLIMIT_CPU, (PARSE_SECONDS, PARSE_SECONDS + 5))


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


_range_api: ctypes.CDLL | bool | None = None  # False: this libclang lacks the API


def _skipped_range_api() -> ctypes.CDLL | None:
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
    return _range_api if isinstance(_range_api, ctypes.CDLL) else None


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
    # bytes that were not UTF-8 (a Latin-1 comment) are lone surrogates here: libclang gets a
    # '?' for each, so offsets stay those of the text and the file is still analysed
    text = _NOT_UTF8.sub("?", text)
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
