"""No import circle between hipify_py's modules (issue 27): every import counts, those inside
functions and under ``TYPE_CHECKING`` too, because a circle hidden in a function is still a
circle in the design (each side must know the other)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "hipify_py"


def _modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``package``."""
    out: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The package's modules that module ``name`` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import x` may name a module
                sub = f"{target}.{alias.name}"
                yield sub if sub in modules else target
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def import_circles(package: Path) -> list[list[str]]:
    """The import graph's strongly connected components of more than one module (Tarjan)."""
    modules = _modules(package)
    graph = {m: {d for d in _imports(m, p, modules) if d in modules} for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = [stack.pop()]
            while component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from .a import y\n")
    assert import_circles(pkg) == [["pkg.a", "pkg.b"]]


def test_no_module_imports_itself_back() -> None:
    assert import_circles(PACKAGE) == []
