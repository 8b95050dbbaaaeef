"""Writing one file safely: the only place hipify-py changes the file system.

* A regular file (or a new path) is replaced atomically: a temporary file in the same
  directory, renamed over the target.  A reader sees the old or the new file, never half of
  one, and a kill or a full disk leaves the old file.  When there is an old file the temporary
  one is flushed to disk (fsync) before the rename, so a power cut cannot leave it empty
  either; a new file has nothing to protect and skips that (a new output tree of a thousand
  files would otherwise spend most of its write time waiting for the disk).
* Nothing that is not a regular file is ever renamed over.  A FIFO, a character device
  (``/dev/null``) or a symlink named explicitly (``-o /dev/stdout``) is written *through*;
  inside an output tree (``root``) such a target is refused instead.
* With ``root``, the target and every directory created for it must stay under ``root`` once
  symlinks are resolved.
* The caches (the per-file records, the mapping index) are replaced the same way, without the
  flush: a lost cache write only makes the next run rebuild it (``replace_cache_file``).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import itertools
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from .untrusted import UntrustedInputError, is_under, read_regular

BACKUP_SUFFIX = ".prehip"
READ_BACK_LIMIT = 1 << 31


class WriteError(OSError):
    """A file that could not, or must not, be written (one line)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_file(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    root: Path | None = None,
    durable: bool = False,
) -> None:
    """Write ``data`` to ``path`` (see the module doc); ``mode`` sets the permission bits of a
    replaced or new file; ``durable`` flushes a new file to disk too (a backup must be on disk
    before the original it keeps is replaced)."""
    if root is not None:
        _prepare_under(path, root)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is None or stat.S_ISREG(info.st_mode):
        _replace(path, data, mode, info, durable=durable or info is not None)
        return
    if root is not None:
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        raise WriteError(f"refusing to replace {path}: {kind}")
    _write_through(path, data)


def _prepare_under(path: Path, root: Path) -> None:
    """Create ``path``'s directories, refusing any step that leads out of ``root``."""
    real_root = _real_root(os.path.abspath(root))
    missing = []
    parent = os.path.dirname(path)
    while not os.path.exists(parent) and parent != os.path.dirname(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    if not is_under(os.path.realpath(parent), real_root):
        raise WriteError(f"refusing to write {path}: it leads outside {root}")
    for directory in reversed(missing):
        try:
            os.mkdir(directory)
        except FileExistsError:
            pass
        except OSError as exc:  # no permission, a full disk, a file where a folder must be
            raise WriteError(f"cannot create {directory}: {exc.strerror}") from None
        if not is_under(os.path.realpath(directory), real_root):
            raise WriteError(f"refusing to write {path}: it leads outside {root}")


@functools.lru_cache(maxsize=16)
def _real_root(root: str) -> str:
    """``root``'s real path, resolved once per process: the directory a run chose stays the one
    it writes into.  Should a symlink replace that path during the run, the real paths of the
    directories written into no longer lie under it, and the writes are refused."""
    return os.path.realpath(root)


def replace_cache_file(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace a cache file atomically, unflushed; it takes ``mode`` (set before any byte is
    written), else a new file's permissions, never the old file's."""
    _replace(path, data, mode, None, durable=False)


def _replace(
    path: Path, data: bytes, mode: int | None, old: os.stat_result | None, *, durable: bool
) -> None:
    """Replace ``path`` (``old`` is its lstat, None when it is new) through a temporary file
    renamed over it.  The file keeps ``old``'s permission bits, or takes ``mode``; a new file
    without ``mode`` is created as any new file is, 0o666 less the umask."""
    with _interrupts_held():  # Ctrl-C lands after the temporary file is renamed or removed
        _replace_now(path, data, mode, old, durable=durable)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM (in the main thread) while a temporary file exists beside the
    file it replaces: an interrupt taken in between left an empty ``.NAME.PID-N.tmp`` in the
    source tree of an ``--in-place`` run.  Writing a regular file does not block, so the wait
    is short; a FIFO (written through) is never written with them held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _replace_now(
    path: Path, data: bytes, mode: int | None, old: os.stat_result | None, *, durable: bool
) -> None:
    try:
        fd, tmp = _temporary(path)
    except WriteError:
        raise
    except OSError as exc:  # a read-only or vanished directory
        raise WriteError(f"cannot write {path}: {exc.strerror}") from None
    try:
        try:
            if mode is None and old is not None:
                mode = stat.S_IMODE(old.st_mode)
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            # a full disk, a quota: named by the file the user asked for, not the temporary one
            raise WriteError(f"cannot write {path}: {exc.strerror}") from None
        raise


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_temp_serial = itertools.count()
# what ``_temporary`` names a temporary file for a file named ``name``
TEMPORARY_NAME = re.compile(r"\.(?P<name>.+)\.[0-9]+-[0-9]+\.tmp")


def _temporary(path: Path) -> tuple[int, str]:
    """Open a new file beside ``path`` that no one else has opened (``O_EXCL``); its name
    starts with a dot and ends in ``.tmp``, and the process id keeps parallel workers apart."""
    for _ in range(100):
        name = f".{path.name}.{os.getpid()}-{next(_temp_serial)}.tmp"
        tmp = os.path.join(os.path.dirname(path), name)
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise WriteError(f"cannot write {path}: no free temporary name beside it")


def _write_through(path: Path, data: bytes) -> None:
    """Write into what ``path`` is (a FIFO, a device, a file behind a symlink) without
    replacing it; a FIFO nobody reads is an error, not a hang."""
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise WriteError(f"cannot write {path}: it is a directory")
    if stat.S_ISREG(info.st_mode):
        flags |= os.O_TRUNC
    elif not (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        raise WriteError(f"refusing to write {path}: not a regular file, FIFO or character device")
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise WriteError(f"cannot write {path}: no process is reading the FIFO") from None
        raise WriteError(f"cannot write {path}: {exc.strerror}") from None
    try:
        os.set_blocking(fd, True)
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is out (a pipe or a full disk takes part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def backup_original(path: Path, original: bytes) -> Path:
    """Keep the first original of ``path`` as ``path.prehip``: written once, atomically, and
    read back to verify it.  An existing backup is trusted only if it is a whole file: a copy
    that is a strict prefix of today's file (left truncated by an older version or a full
    disk) is replaced."""
    saved = path.with_name(path.name + BACKUP_SUFFIX)
    if saved.is_symlink():
        raise WriteError(f"refusing to use {saved} as the backup: it is a symlink")
    try:
        existing = read_regular(saved, READ_BACK_LIMIT, root=path.parent)
    except UntrustedInputError:
        existing = None
    if existing is not None and not (
        len(existing) < len(original) and original.startswith(existing)
    ):
        return saved
    write_file(
        saved, original, mode=stat.S_IMODE(os.stat(path).st_mode), root=path.parent, durable=True
    )
    try:
        again = read_regular(saved, READ_BACK_LIMIT)
    except UntrustedInputError as exc:
        raise WriteError(f"backup not verified: {exc}") from None
    if again != original:
        raise WriteError(f"backup {saved} does not match {path}; not rewritten")
    return saved


def file_stamp(path: Path) -> list[int] | None:
    """Size, inode, mtime and ctime of a regular file: equal stamps mean the file was not
    touched since (ctime cannot be set back by any tool), so a re-run need not read it to know
    it still holds the bytes convert wrote.  None for anything else.  Kept in the per-user
    cache, never in the output tree's manifest (which must not change from machine to
    machine)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def holds(path: Path, digest: str, limit: int, *, root: Path | None = None) -> bool:
    """Whether ``path`` is a regular file whose bytes hash to ``digest``, read (at most
    ``limit`` bytes, inside ``root`` when given) and hashed."""
    try:
        return sha256(read_regular(path, limit, root=root)) == digest
    except UntrustedInputError:
        return False
