"""Shared by the porting-report tests: a tree whose file names and code try to inject markup,
a parse of a page's DOM into elements that know the report file they sit in, and a browser
driven over the DevTools protocol."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner, Result

from hipify_py.cli import root

# a real CUDA file (nvcc -arch=sm_90 -c accepts it: the markup is in comments and a string)
# whose text, name and findings carry markup: the report must show it, never run it
HOSTILE_NAME = 'x"><img src=y onerror=alert(3)>.cu'
HOSTILE_CODE = """// </script><script>alert(1)</script><img src=x onerror=alert(2)>
#include <cuda_runtime.h>
__global__ void k(int* o) {
  const char* s = "</script><script>alert(4)</script>";
  o[threadIdx.x & 31] = s[0] + warpSize;
  asm volatile("membar.gl;");
}
"""
INJECTED = ("alert(1)", "alert(2)", "alert(3)", "alert(4)")


def hostile_tree(root_dir: Path) -> Path:
    src = root_dir / "hostile"
    src.mkdir()
    (src / HOSTILE_NAME).write_text(HOSTILE_CODE)
    return src


def report(*args: str) -> Result:
    return CliRunner().invoke(root, ["report", *args], catch_exceptions=False)


VOID = {"meta", "link", "br", "hr", "img", "input", "col", "wbr", "source", "area", "base"}


class Dom(HTMLParser):
    """Elements as (tag, attributes, data-path of the report file they are in), and text
    pieces with the same owner."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], str | None]] = []
        self.texts: list[tuple[str, str | None]] = []
        self._stack: list[tuple[str, str | None]] = []
        self.feed(text)

    def _owner(self) -> str | None:
        return self._stack[-1][1] if self._stack else None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        is_file = tag == "details" and "file" in a.get("class", "").split()
        owner = a.get("data-path") if is_file else self._owner()
        self.elements.append((tag, a, owner))
        if tag not in VOID:
            self._stack.append((tag, owner))

    def handle_endtag(self, tag: str) -> None:
        while self._stack and self._stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        self.texts.append((data, self._owner()))

    def find(self, tag: str, cls: str = "") -> list[tuple[str, dict[str, str], str | None]]:
        return [
            e
            for e in self.elements
            if e[0] == tag and (not cls or cls in e[1].get("class", "").split())
        ]

    def files(self) -> dict[str, dict[str, str]]:
        """The report's file entries by path, with their attributes."""
        return {a["data-path"]: a for _, a, _ in self.find("details", "file")}

    def text_of(self, owner: str) -> str:
        return "".join(t for t, o in self.texts if o == owner)


class DevTools:
    """A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-
    pipe``: JSON messages ending in NUL, the browser reading fd 3 and writing fd 4), stdlib
    only.  ``evaluate`` runs JavaScript in the opened page and returns its value."""

    def __init__(self, chromium: str, profile: Path, url: str) -> None:
        ends = os.pipe() + os.pipe()  # (browser reads, we write), (we read, browser writes)
        # close-on-exec copies above 2: the browser gets only the two dup2'ed onto 3 and 4
        self._fds = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in ends]
        for fd in ends:
            os.close(fd)
        theirs_in, self._out, self._in, theirs_out = self._fds

        def onto_3_and_4() -> None:
            os.dup2(theirs_in, 3)
            os.dup2(theirs_out, 4)

        self.proc = subprocess.Popen(  # a fixed command line
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            preexec_fn=onto_3_and_4,  # only dup2, no locks
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(theirs_in)
        os.close(theirs_out)
        self._buffer = b""
        self._id = 0
        target = self.send("Target.createTarget", {"url": url})["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        self._session = attached["sessionId"]
        self._wait_for(url)

    def _wait_for(self, url: str) -> None:
        """Until ``url`` has loaded (the first document of a new tab is about:blank)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.evaluate("location.href + ' ' + document.readyState") == f"{url} complete":
                    return
            except RuntimeError:  # the context of the blank page went away: navigation
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{url} did not load")

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    raise RuntimeError(f"the browser closed the pipe (during {method})")
                self._buffer += chunk
            raw, _, self._buffer = self._buffer.partition(b"\0")
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression: str) -> object:
        """The value of ``expression`` (a promise is awaited) in the page."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        result = self.send("Runtime.evaluate", params, self._session)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def close(self) -> None:
        try:
            self.send("Browser.close")
        finally:
            self.proc.wait(timeout=30)
            os.close(self._out)
            os.close(self._in)
