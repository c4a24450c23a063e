"""Each part of the streaming engine owns its state (issue 28): no function in ``statemachine/`` writes
another object's attributes, and none is too complex to read.

The first test walks the AST of every function in ``src/hermes_toolcall/statemachine/`` and fails on a
write to an attribute of anything but ``self`` (``other.f = …``, ``other.f += …``, ``del other.f``,
``other.f[k] = …``, ``other.f.append(…)`` and the other mutating methods, ``setattr(other, …)``), on a
write below one of ``self``'s fields (``self.x.f = …``, ``self.x.f.append(…)``), and on the same writes
through a local name bound to another object's field (``x = other.f; x.append(…)``) or through a
parameter (``def f(self, out): out.append(…)``). Objects the function itself made (``x = Block(…)``,
``x = []``) and its own fields (``x = self.f``) are its own. The second runs radon: no function above
cyclomatic complexity 20.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "src" / "hermes_toolcall" / "statemachine"
MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard", "setdefault", "popitem",
     "sort", "reverse", "__setitem__", "__delitem__", "__setattr__", "__iadd__"}
)
MAX_COMPLEXITY = 20


def _root(node: ast.expr) -> tuple[str | None, int]:
    """The name an attribute chain starts from, and how many attributes deep the node is."""
    depth = 0
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            depth += 1
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), depth


class _Writes(ast.NodeVisitor):
    """The foreign writes of one function."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.func = func
        self.found: list[str] = []
        self.own: set[str] = {"self"}  # names bound to objects this function made (constructor calls)
        self.aliases: set[str] = set()  # names bound to another object's field, or a field below self's
        args = func.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
        self.aliases.update(a.arg for a in every if a.arg not in ("self", "cls"))  # parameters: the caller's objects

    def _foreign(self, target: ast.expr) -> bool:
        """Whether writing into ``target`` (an attribute or item) writes another object's state."""
        root, depth = _root(target)
        if root is None:
            return True
        if root in self.aliases:
            return True
        if root == "self":
            return depth > 1 or (depth == 1 and isinstance(target, ast.Subscript) and _root(target.value)[1] > 1)
        if root in self.own:
            return False
        return depth >= 1

    def _note(self, node: ast.AST, what: str) -> None:
        self.found.append(f"{self.func.name}:{node.lineno}: {what}")  # type: ignore[attr-defined]

    def _bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if not isinstance(target, ast.Name):
            return
        name = target.id
        self.own.discard(name)
        self.aliases.discard(name)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id[:1].isupper():
            self.own.add(name)  # a new object of a class (a value this function made)
        elif isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
            self.own.add(name)
        elif isinstance(value, ast.Attribute):
            root, depth = _root(value)
            if root == "self" and depth == 1:
                self.own.add(name)  # one of self's own fields
            elif root is None or root not in self.own or root == "self":
                self.aliases.add(name)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, node)
        self.generic_visit(node)
        for target in node.targets:
            self._bind(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target, node)
        self.generic_visit(node)
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, node)
        self.generic_visit(node)

    def _target(self, target: ast.expr, node: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._target(t, node)
        elif isinstance(target, (ast.Attribute, ast.Subscript)) and self._foreign(target):
            self._note(node, f"writes {ast.unparse(target)}")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            receiver = func.value
            if isinstance(receiver, (ast.Attribute, ast.Subscript)) and self._foreign(receiver):
                self._note(node, f"mutates {ast.unparse(receiver)}")
            elif isinstance(receiver, ast.Name) and receiver.id in self.aliases:
                self._note(node, f"mutates {receiver.id}, another object's field")
        if isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and node.args:
            first = node.args[0]
            if not (isinstance(first, ast.Name) and first.id in self.own):
                self._note(node, f"{func.id} on {ast.unparse(first)}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node is self.func:
            self.generic_visit(node)  # nested functions are walked on their own

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]


def foreign_writes(source: str) -> list[str]:
    """Every foreign write of every function in ``source``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            walker = _Writes(node)
            walker.visit(node)
            found += walker.found
    return found


MODULES = sorted(ENGINE.glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_no_function_in_the_engine_writes_another_object_s_fields(path: Path) -> None:
    assert foreign_writes(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "source",
    [
        "def f(self, other):\n    other.x = 1",
        "def f(self, other):\n    other.x += 1",
        "def f(self, other):\n    other.x.append(1)",
        "def f(self):\n    self.x.f = 1",
        "def f(self):\n    self.x.f.append(1)",
        "def f(self, other):\n    del other.x",
        "def f(self, other):\n    other.x[0] = 1",
        "def f(self):\n    self.x.y[0] = 1",
        "def f(self, other):\n    setattr(other, 'x', 1)",
        "def f(self, other):\n    pieces = other.pieces\n    pieces.append(1)",
        "def f(self):\n    pieces = self.block.pieces\n    pieces.append(1)",
        "def f(self, other):\n    a, other.b = 1, 2",
        "def f(self, out):\n    out.append(1)",
        "def f(self, out):\n    out[0] = 1",
    ],
)
def test_the_walk_finds_every_kind_of_foreign_write(source: str) -> None:
    assert foreign_writes(source), source


@pytest.mark.parametrize(
    "source",
    [
        "def f(self):\n    self.x = 1\n    self.x += 1\n    self.items.append(1)\n    self.d[0] = 1",
        "def f(self):\n    block = Block()\n    block.x = 1\n    block.pieces.append(1)",
        "def f(self):\n    pieces = self.pieces\n    pieces.append(1)",
        "def f(self, other):\n    other.announce('f')",
        "def f(self, out):\n    x = []\n    x.append(1)\n    y = {}\n    y[1] = 2",
        "def f(self):\n    starts = self.starts\n    del starts[:2]",
    ],
)
def test_the_walk_allows_own_writes_and_calls(source: str) -> None:
    assert foreign_writes(source) == [], source


def test_no_function_in_the_engine_is_above_complexity_20() -> None:
    from radon.complexity import cc_visit

    too_complex = [
        f"{path.name}:{block.fullname} {block.complexity}"
        for path in MODULES
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > MAX_COMPLEXITY
    ]
    assert too_complex == []
