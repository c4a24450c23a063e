"""No docstring and no page of docs/ names a module, or a ``module.name``, that does not exist (issue 28).

Docs that name code must name code that is there: a renamed module leaves its old name behind in
prose. The scan reads every docstring of ``src/hermes_toolcall`` and every page of ``docs/`` (but
docs/performance.md, a dated log of measurements taken on trees that have since changed) and checks
the references written in backquotes:

- a file path ending in ``.py`` (``statemachine/_parser.py``, ``bench/stream.py``, ``table.py``) must be
  a file of the repository (a bare file name: of the package);
- a dotted name whose first part names a module, ``hermes_toolcall.…``, a subpackage (``validate.…``) or a
  module of the package (``_readers.JsonBody``, ``_table.ROWS``), must resolve: the module exists and has
  the attributes named after it;
- a private name followed by a class or constant name (``_machine.Cursor``) names a module, which
  must exist;
- a private module's name without its underscore followed by one of that module's names
  (``table.MOVES``, ``buffer.InputBuffer``) names a module that does not exist (the same words naming
  something else, a variable's field such as ``options.strict``, are left alone).

File and wire names (``tokenizer.json``, ``chat.completion.chunk``) and other projects' modules
(``sglang.launch_server``) are not references to this package's code.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
PACKAGE = SRC / "hermes_toolcall"
SKIPPED_PAGES = {"performance.md"}
#: names of other projects' packages that are also the names of modules here (``integrations/vllm.py``)
EXTERNAL = {"datasets", "ray", "sglang", "vllm", "transitions", "lark", "jsonschema", "orjson"}
#: dotted words that are file names or wire names, not code (``tokenizer.json``, ``chat.completion.chunk``)
_NOT_CODE = re.compile(r".*\.(json|jsonl|md|txt|lark|jinja|toml|yaml|yml|cfg|ini|html|sarif)$|^chat\.completion")

_TICKED = re.compile(r"``([^`\n]+)``|`([^`\n]+)`")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PATH = re.compile(r"^[\w./-]*\w\.py$")


def _modules() -> dict[str, list[str]]:
    """Every module of the package by its last name (``_readers`` -> ``hermes_toolcall.statemachine._readers``)."""
    out: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.setdefault(parts[-1], []).append(".".join(parts))
    return out


MODULES = _modules()
BARE = {name.lstrip("_"): name for name in MODULES if name.startswith("_") and name.lstrip("_") not in MODULES}
FILES = {p.relative_to(REPO).as_posix() for p in REPO.rglob("*.py") if ".venv" not in p.parts and ".git" not in p.parts}


def _resolves(module: str, attributes: list[str]) -> bool:
    try:
        if importlib.util.find_spec(module) is None:
            return False
    except ImportError:
        return False
    try:
        obj: object = importlib.import_module(module)
    except ImportError:  # it is there, but needs an extra that is not installed here (vLLM, SGLang)
        return True
    for name in attributes:
        if hasattr(obj, name):
            obj = getattr(obj, name)
            continue
        submodule = f"{getattr(obj, '__name__', '')}.{name}"
        try:  # a submodule not imported by its package
            if importlib.util.find_spec(submodule) is None:
                return False
        except (ImportError, ValueError):
            return False
        try:
            obj = importlib.import_module(submodule)
        except ImportError:  # there, but its extra is not installed here
            return True
    return True


def problem(reference: str) -> str | None:
    """What is wrong with a backquoted ``reference`` (None: nothing, or not a reference to code)."""
    ref = reference.strip().rstrip("()")
    if _PATH.match(ref):
        if "/" not in ref:  # a bare file name: ours if it is (nearly) one of our modules' (else another project's)
            stem = ref[:-3]
            if stem in MODULES or any(f.endswith("/" + ref) for f in FILES) or stem not in BARE:
                return None
            return f"no such file (the module is {BARE[stem]!r})"
        return None if any(f == ref or f.endswith("/" + ref) for f in FILES) else "no such file"
    if not _DOTTED.fullmatch(ref) or _NOT_CODE.match(ref):
        return None
    first, *rest = ref.split(".")
    if first in EXTERNAL:
        return None
    if first == "hermes_toolcall":
        for k in range(len(rest), -1, -1):  # the longest module prefix, then attributes
            module = ".".join(["hermes_toolcall", *rest[:k]])
            if _resolves(module, rest[k:]):
                return None
        return "does not resolve"
    if first in BARE:  # ``table.MOVES`` for ``_table.MOVES``: a module renamed (else a variable, ``options.strict``)
        if any(_resolves(module, rest) for module in MODULES[BARE[first]]):
            return f"there is no module {first!r} (the module is {BARE[first]!r})"
        return None
    if first in MODULES:
        if any(_resolves(module, rest) for module in MODULES[first]):
            return None
        return "does not resolve"
    if first.startswith("_") and rest[0][:1].isupper():  # ``_machine.Cursor``: a private module, gone
        return f"there is no module {first!r}"
    return None


def _docstrings() -> list[tuple[str, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    where = path.relative_to(REPO).as_posix()
                    out.append((f"{where}:{getattr(node, 'name', '<module>')}", doc))
    return out


def _pages() -> list[tuple[str, str]]:
    return [
        (p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))
        for p in sorted((REPO / "docs").glob("*.md"))
        if p.name not in SKIPPED_PAGES
    ]


def problems(texts: list[tuple[str, str]]) -> list[str]:
    found = []
    for where, text in texts:
        for m in _TICKED.finditer(text):
            reference = m.group(1) or m.group(2)
            wrong = problem(reference)
            if wrong is not None:
                found.append(f"{where}: `{reference}`: {wrong}")
    return found


def test_no_docstring_names_a_module_or_name_that_does_not_exist() -> None:
    assert problems(_docstrings()) == []


def test_no_docs_page_names_a_module_or_name_that_does_not_exist() -> None:
    assert problems(_pages()) == []


@pytest.mark.parametrize(
    "reference",
    ["table.py", "tables.py", "buffer.InputBuffer", "_machine.Cursor", "_readers.NoSuchReader", "readers.JsonBody",
     "hermes_toolcall.statemachine._jsontrack", "statemachine/_openai_chunks.py", "validate.schema.load_tools"],
)
def test_the_scan_finds_names_that_do_not_exist(reference: str) -> None:
    assert problem(reference) is not None


@pytest.mark.parametrize(
    "reference",
    ["statemachine/_parser.py", "bench/stream.py", "_readers.JsonBody", "_table.ROWS", "hermes_toolcall.statemachine",
     "hermes_toolcall.StreamParser", "statemachine.StreamParser", "_parser.StreamParser.feed", "p.feed", "x.y",
     "options.strict", "tokenizer.json", "hermes_tool_parser.py", "chat.completion.chunk", "sglang.launch_server",
     "integrations.vllm"],
)
def test_the_scan_accepts_names_that_exist(reference: str) -> None:
    assert problem(reference) is None
