"""No import circle between hipify_py's modules, nor between its packages (issue 27): every
import counts, those inside functions and under ``TYPE_CHECKING`` too, because a circle hidden
in a function is still a circle in the design (each side must know the other).

At package level each subpackage (``rewrite``, ``hazards``, ``analysis``, ``frontend``,
``mappings``, ``output``, ``report``, ``verify``, ``cli``, ``buildfiles``, ``portable``) is one
node and each top-level module is one node of its own, so the packages are layered in one
direction: ``analysis`` below ``rewrite`` below ``hazards``, the tables below the context that
holds their index, the report formats below ``verify``."""

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


def module_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports."""
    modules = _modules(package)
    return {m: {d for d in _imports(m, p, modules) if d in modules} for m, p in modules.items()}


def package_of(module: str) -> str:
    """``pkg.rewrite.launches`` -> ``pkg.rewrite``; a top-level module is its own node."""
    return ".".join(module.split(".")[:2])


def package_graph(package: Path) -> dict[str, set[str]]:
    """Package (or top-level module) -> those it imports, imports inside one package left out."""
    graph: dict[str, set[str]] = {}
    for module, deps in module_graph(package).items():
        node = package_of(module)
        graph.setdefault(node, set()).update(package_of(d) for d in deps)
        graph[node].discard(node)
    return graph


def import_circles(package: Path) -> list[list[str]]:
    """The module import graph's circles."""
    return circles(module_graph(package))


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one node (Tarjan)."""
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


def test_the_check_finds_a_circle_between_packages(tmp_path: Path) -> None:
    """Two packages that import each other through different modules: no module circle, but a
    package circle, and the package check reports it."""
    pkg = tmp_path / "pkg"
    for sub in ("a", "b", "c"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from ..b.y import f\n")
    (pkg / "b" / "z.py").write_text("def g():\n    from pkg.a import w\n")
    (pkg / "a" / "w.py").write_text("")
    (pkg / "b" / "y.py").write_text("")
    (pkg / "c" / "v.py").write_text("from ..a import x\n")
    (pkg / "top.py").write_text("from .c import v\n")
    assert import_circles(pkg) == []
    assert package_graph(pkg)["pkg.top"] == {"pkg.c"}
    assert circles(package_graph(pkg)) == [["pkg.a", "pkg.b"]]
    (pkg / "a" / "w.py").write_text("from .. import top\n")  # a -> top -> c -> a
    assert circles(package_graph(pkg)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.top"]]


def test_packages_are_layered_in_one_direction() -> None:
    graph = package_graph(PACKAGE)
    assert {"hipify_py.analysis", "hipify_py.rewrite", "hipify_py.hazards"} <= graph.keys()
    assert circles(graph) == []


def test_no_rule_module_imports_another() -> None:
    """What two rules share lives in ``analysis/``: a rule module is one file that can be
    added or removed on its own."""
    graph = module_graph(PACKAGE)
    rule_modules = {m for m in graph if m.startswith("hipify_py.hazards.")}
    shared = {m: graph[m] & rule_modules for m in rule_modules}
    assert {m: deps for m, deps in shared.items() if deps} == {}
