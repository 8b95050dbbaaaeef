"""Shared by the porting-report tests: a tree whose file names and code try to inject markup,
and a parse of a page's DOM into elements that know the report file they sit in."""

from __future__ import annotations

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
  o[threadIdx.x & 31] = s[0];
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
