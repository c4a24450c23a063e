"""The package's layers (issue 28): ``import hermes_toolcall`` has no import cycle, and no module imports
another subpackage's private module.

The module graph is built from the source (``ast``): every ``import`` and ``from … import`` of a module
of the package counts, wherever it is (inside a function: a lazy import does not break a cycle; under
``TYPE_CHECKING``: the types still depend on it). An import of ``pkg.sub`` also depends on ``pkg``'s
``__init__`` (Python runs it first) when ``pkg`` is not the importer's own package, and except for the
root package ``hermes_toolcall``, whose ``__init__`` is the public API that re-exports everything: it is
the graph's entry, not a module others build on.

A module's *own* modules are those of its subpackage (or, for the root's modules, the root's); the
root's modules are the shared core every subpackage may use. Any other subpackage's private module
(``_name``) is off limits: go through that subpackage's ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "hermes_toolcall"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    return {_module_name(p): p for p in sorted((SRC / ROOT).rglob("*.py"))}


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports (anywhere in it), with the subpackages they make Python
    initialise first."""
    package = _package_of(name, path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        for target in _targets(node, package, known):
            if not name.startswith(target + "."):  # (the importer's own package runs already)
                found.add(target)
                parent = target.rpartition(".")[0]
                while parent and parent != ROOT:  # the subpackages Python initialises first (not the importer's own)
                    if not name.startswith(parent + "."):
                        found.add(parent)
                    parent = parent.rpartition(".")[0]
    found.discard(name)
    return found


def _targets(node: ast.AST, package: str, known: dict[str, Path]) -> list[str]:
    """The package's modules an import statement names (``from pkg import name``: ``pkg`` and ``pkg.name``)."""
    targets: list[str] = []
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        targets = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
    return [t for t in targets if t in known]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items() if name != ROOT}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(edges):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_the_package_has_no_import_cycle() -> None:
    found = cycles(graph())
    assert found == [], "\n".join(" <-> ".join(c) for c in found)


def _subpackage(name: str) -> str:
    """The subpackage a module belongs to (the root for the root's own modules)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or (len(parts) == 2 and (SRC / ROOT / parts[1]).is_dir()) else ROOT


def private_imports() -> list[str]:
    out = []
    for name, targets in graph().items():
        home = _subpackage(name)
        for target in sorted(targets):
            leaf = target.rpartition(".")[2]
            owner = _subpackage(target)
            if leaf.startswith("_") and owner != ROOT and owner != home:
                out.append(f"{name} imports {target}")
    return out


def test_no_module_imports_another_subpackage_s_private_module() -> None:
    assert private_imports() == []


def test_the_graph_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .validate._api import Selector\n"
        "def f():\n    from .statemachine import StreamParser\n"
    )
    path = SRC / ROOT / "_probe.py"
    found = imports(f"{ROOT}._probe", path if path.exists() else _write(tmp_path, source), modules())
    assert {f"{ROOT}.validate._api", f"{ROOT}.validate", f"{ROOT}.statemachine"} <= found


def _write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "_probe.py"
    path.write_text(source, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edges", "expected"),
    [({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]), ({"a": {"b"}, "b": {"c"}, "c": set()}, [])],
)
def test_cycles_are_found(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected
