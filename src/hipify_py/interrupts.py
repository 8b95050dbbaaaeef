"""Ctrl-C, remembered: a KeyboardInterrupt can be swallowed where Python cannot raise it (a
finalizer, a callback of the process pool as it starts: "Exception ignored ... KeyboardInterrupt"),
and a run that lost it went on to rewrite every file and exit 0.  The handler records the
request before raising; the runner stops at the next file and the command exits 130 whatever
happened to the exception."""

from __future__ import annotations

import signal
import threading
from types import FrameType

_requested = threading.Event()


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    _requested.set()
    raise KeyboardInterrupt


def watch() -> None:
    """Install the handler (main thread, where SIGINT is not ignored: a background job of a
    shell that ignores it keeps ignoring it)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)


def requested() -> bool:
    return _requested.is_set()
