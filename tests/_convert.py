"""Helpers for conversion tests: run the pure pipeline on a string."""

from __future__ import annotations

from functools import lru_cache

from hipify_py.context import Context, Options
from hipify_py.mappings import load_index
from hipify_py.pipeline import FileResult, convert_text


@lru_cache(maxsize=1)
def _index():
    return load_index()


def ctx(**options) -> Context:
    return Context(Options(**options), _index())


def result(src: str, path: str = "t.cu", **options) -> FileResult:
    return convert_text(src, path, ctx(**options))


def hip(src: str, path: str = "t.cu", **options) -> str:
    """The converted text; also asserts that converting it again changes nothing."""
    out = result(src, path, **options).text
    again = result(out, path, **options).text
    assert again == out, "conversion is not idempotent"
    return out


def body(src: str, **options) -> str:
    """Converted text without the hip_runtime.h line a .cu file always gets."""
    return hip(src, **options).replace("#include <hip/hip_runtime.h>\n", "", 1)
