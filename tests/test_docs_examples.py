"""Every code block of README.md and docs/ that shows a command or a Python snippet is checked, so a doc
example cannot drift from the code (the convention is in docs/writing-docs.md).

* A ``python`` block with ``>>>`` prompts runs as a doctest (``ELLIPSIS``, ``NORMALIZE_WHITESPACE``),
  from the repository's root.
* A ``python`` block without prompts runs as a script from the repository's root; marked
  ``<!-- docs-test: skip REASON -->``, it is only compiled and its ``hermes_toolcall`` imports resolved.
* A ``console`` / ``sh`` / ``shell`` / ``bash`` block: every ``hermes-toolcall`` command in it is parsed by
  the real argument parser (a renamed flag fails here). A ``$ command`` followed by output lines is run
  through the real entry point (``bash -o pipefail``, from the repository's root, the installed
  ``hermes-toolcall`` first on ``PATH``) and its standard output and error must be the lines shown; a line
  that is only ``…`` stands for any number of lines. A skip marker leaves the output unchecked.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import GRAMMAR_EXTRA, extra_param, skip_without
from hermes_toolcall.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
PAGES = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
SHELLS = ("console", "sh", "shell", "bash")
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"<!--\s*docs-test:\s*(?P<what>[a-z-]+)\b(?P<why>.*?)-->")
_ELLIPSIS_LINE = "…"


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """One fenced code block: its page, first line (1-based, the fence), language, text and marker."""

    page: Path
    line: int
    language: str
    text: str
    skip: str | None  # the reason given by a `<!-- docs-test: skip REASON -->` marker before the fence

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def _blocks(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page (a marker comment is the last non-blank line before the fence)."""
    out = []
    lines = page.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m["info"].strip():  # an opening fence has a language; a bare fence is text
            if m:  # a fenced block without a language: skip to its end
                close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == m["fence"]), len(lines))
                i = close + 1
                continue
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = _MARKER.search(before)
        skip = None
        if marker is not None:
            assert marker["what"] == "skip", f"{page}:{i + 1}: unknown docs-test marker {marker['what']!r}"
            skip = marker["why"].strip() or "no reason given"
            assert skip != "no reason given", f"{page}:{i + 1}: a skip marker says why"
        out.append(Block(page=page, line=i + 1, language=m["info"].split()[0], text="\n".join(body), skip=skip))
        i = j + 1
    return out


BLOCKS = [b for page in PAGES for b in _blocks(page)]
PYTHON = [b for b in BLOCKS if b.language == "python"]
SHELL = [b for b in BLOCKS if b.language in SHELLS]


# ---- Python --------------------------------------------------------------------------------------------------


def _check_imports(block: Block) -> None:
    """Every ``hermes_toolcall`` import of the block resolves (the block is compiled, not run)."""
    if ">>> " in block.text:
        source = "".join(e.source for e in doctest.DocTestParser().get_examples(block.text, block.name))
    else:
        source = block.text
    tree = ast.parse(source, filename=block.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "hermes_toolcall":
                    importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "hermes_toolcall":
            module = importlib.import_module(node.module)
            for alias in node.names:
                if alias.name == "*" or hasattr(module, alias.name):
                    continue
                importlib.import_module(f"{node.module}.{alias.name}")  # a submodule, or the ImportError says why


DOCTEST_PAGES = sorted({b.page for b in PYTHON if ">>> " in b.text and b.skip is None})

#: pages whose examples need an extra that the README's ``[test]`` does not install: the newcomer's run
#: (``.ci/newcomer.sh``) skips them; under CI, where ``.ci/run`` installs every extra, a skip fails (``ci_required``)
EXTRA_PAGES = {"docs/constrained.md": GRAMMAR_EXTRA}


@pytest.mark.parametrize("block", [b for b in PYTHON if ">>> " not in b.text], ids=lambda b: b.name)
def test_python_block(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python script block runs from the repository's root; marked skip, its ``hermes_toolcall`` imports resolve."""
    _check_imports(block)
    if block.skip is not None:
        return
    monkeypatch.chdir(REPO)
    exec(compile(block.text, block.name, "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize(
    "page",
    [extra_param(p, EXTRA_PAGES.get(str(p.relative_to(REPO))), str(p.relative_to(REPO))) for p in DOCTEST_PAGES],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_python_examples(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``>>>`` blocks of a page run in order in one namespace (as a doctest file does), from the root."""
    skip_without(EXTRA_PAGES.get(str(page.relative_to(REPO))))
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for block in (b for b in PYTHON if b.page == page and ">>> " in b.text):
        _check_imports(block)
        if block.skip is not None:
            continue
        test = doctest.DocTestParser().get_doctest(block.text, namespace, block.name, str(page), block.line)
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)  # a DocTest runs on a copy of the names it was given
    assert runner.failures == 0, "".join(report)


# ---- shell ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    line: str
    output: tuple[str, ...] | None  # None: no output shown (the command is only parsed)


def _commands(block: Block) -> list[Command]:
    """The commands of a shell block: ``$ `` lines with the output lines after them, or (no prompt in the
    block) every line that is not a comment. Lines ending in a backslash continue."""
    lines = block.text.split("\n")
    prompted = any(line.startswith("$ ") for line in lines)
    out: list[Command] = []
    command: list[str] = []
    output: list[str] = []

    def flush() -> None:
        if command:
            out.append(Command(line=" ".join(command), output=tuple(output) if output else None))
        command.clear()
        output.clear()

    continuing = False
    for line in lines:
        if continuing:
            command.append(line.strip().removesuffix("\\").strip())
            continuing = line.rstrip().endswith("\\")
            continue
        if prompted and not line.startswith("$ "):
            if command:
                output.append(line)
            continue
        if not prompted and (not line.strip() or line.lstrip().startswith("#")):
            continue
        flush()
        text = line[2:] if prompted else line
        command.append(text.rstrip().removesuffix("\\").strip())
        continuing = text.rstrip().endswith("\\")
    flush()
    while out and out[-1].output and not out[-1].output[-1].strip():  # trailing blank lines of the block
        out[-1] = Command(line=out[-1].line, output=out[-1].output[:-1] or None)
    return out


def _our_argvs(command: str) -> list[list[str]]:
    """The argument lists of every ``hermes-toolcall`` invocation in a shell command line (pipes, ``&&``)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words = list(lexer)
    argvs: list[list[str]] = []
    current: list[str] | None = None
    at_start = True  # the next word starts a command
    for word in words:
        if word and set(word) <= set("|&;<>()"):
            if current is not None:
                argvs.append(current)
            current, at_start = None, word not in (">", ">>", "<")  # a redirect's target is no command
            continue
        if at_start:
            current = [] if os.path.basename(word) == "hermes-toolcall" else None
            at_start = False
        elif current is not None:
            current.append(word)
    if current is not None:
        argvs.append(current)
    return argvs


def _matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """``actual`` lines equal ``expected`` (trailing spaces ignored), where a ``…`` line matches any lines."""
    exp = [e.rstrip() for e in expected]
    act = [a.rstrip() for a in actual]

    def match(i: int, j: int) -> bool:
        while i < len(exp):
            if exp[i] == _ELLIPSIS_LINE:
                return any(match(i + 1, k) for k in range(j, len(act) + 1))
            if j >= len(act) or exp[i] != act[j]:
                return False
            i, j = i + 1, j + 1
        return j == len(act)

    return match(0, 0)


def _entry_point_dir() -> str:
    script = Path(sys.executable).parent / "hermes-toolcall"
    assert script.exists(), f"the hermes-toolcall entry point is not installed beside {sys.executable}"
    return str(script.parent)


@pytest.mark.parametrize("block", SHELL, ids=lambda b: b.name)
def test_shell_block(block: Block) -> None:
    """Every ``hermes-toolcall`` command of the block parses; each shown with its output prints that output."""
    parser = build_parser()
    commands = _commands(block)
    for command in commands:
        for argv in _our_argvs(command.line):
            try:
                parser.parse_args(argv)
            except SystemExit as exc:  # --help and --version exit 0
                assert exc.code == 0, f"{block.name}: `hermes-toolcall {shlex.join(argv)}` is refused by the parser"
    if block.skip is not None:
        return
    env = {**os.environ, "PATH": _entry_point_dir() + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "100"}
    env.pop("CI", None)
    for command in commands:
        if command.output is None or not _our_argvs(command.line):
            continue
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command.line + " 2>&1"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        actual = done.stdout.rstrip("\n").split("\n")
        assert _matches(command.output, actual), (
            f"{block.name}: `{command.line}` printed (status {done.returncode}):\n{done.stdout}\n"
            f"expected:\n" + "\n".join(command.output)
        )


# ---- the checker itself ------------------------------------------------------------------------------------


def test_every_page_is_read_and_blocks_are_found() -> None:
    """The collection sees the README's blocks and every docs page (a fence the reader missed would hide a block)."""
    assert (REPO / "README.md") in PAGES and len(PAGES) > 5
    readme = [b for b in BLOCKS if b.page.name == "README.md"]
    assert {b.language for b in readme} >= {"sh", "python"}
    for page in PAGES:  # fences pair up: an odd count would mean a block read as text (or text as a block)
        fences = [line for line in page.read_text(encoding="utf-8").split("\n") if _FENCE.match(line)]
        assert len(fences) % 2 == 0, page


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        (("a", "…", "z"), ["a", "b", "c", "z"], True),
        (("a", "…", "z"), ["a", "z"], True),
        (("a", "…"), ["a"], True),
        (("a", "b"), ["a", "c"], False),
        (("a",), ["a", "b"], False),
        (("…", "x"), ["a", "b"], False),
    ],
)
def test_the_line_ellipsis(expected: tuple[str, ...], actual: list[str], ok: bool) -> None:
    assert _matches(expected, actual) is ok


def test_our_commands_are_found_in_pipes_and_chains() -> None:
    line = "python3 -m venv .venv && .venv/bin/hermes-toolcall validate x.jsonl | head -1 > out.txt  # note"
    assert _our_argvs(line) == [["validate", "x.jsonl"]]
    assert _our_argvs("zcat a.gz | hermes-toolcall validate - --format jsonl | jq -c .") == [
        ["validate", "-", "--format", "jsonl"]
    ]
