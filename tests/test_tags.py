"""tags.py is the one vocabulary: hermes.lark's literals are its tags, and its text terminals stop at its sets."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hermes_toolcall
from hermes_toolcall import tags
from hermes_toolcall._model import ReasoningKind
from hermes_toolcall.grammar import Variant
from hermes_toolcall.grammar._parser import lark_parser

ALL_TAGS = (
    *tags.CONTROL,
    tags.CALL_OPEN,
    tags.CALL_CLOSE,
    tags.RESP_OPEN,
    tags.RESP_CLOSE,
    tags.TOOLS_OPEN,
    tags.TOOLS_CLOSE,
    *tags.OPEN.values(),
    *tags.CLOSE.values(),
)
# the XML call body's tags (not markers of the grammar's text terminals: they live inside a call block)
XML_TAGS = (tags.FUNCTION_OPEN, tags.FUNCTION_CLOSE, tags.PARAMETER_OPEN, tags.PARAMETER_CLOSE)
KIND_SETS: tuple[tuple[ReasoningKind, ...], ...] = (("think", "scratch_pad"), ("think",), ("scratch_pad",), ())


DEFAULT = Variant()


def _regexp(name: str, variant: Variant = DEFAULT) -> str:
    return str(lark_parser(variant).get_terminal(name).pattern.to_regexp())


def _text_terminals() -> list[tuple[str, str, tuple[str, ...]]]:
    """(label, regexp, the markers that must end its run) for every text terminal of the grammar."""
    cir = Variant(calls_in_reasoning=True)
    out = [
        ("GAP", _regexp("GAP"), tags.gap_markers()),
        ("THINK_TEXT", _regexp("THINK_TEXT", cir), tags.reasoning_markers("think")),
        ("SCRATCH_TEXT", _regexp("SCRATCH_TEXT", cir), tags.reasoning_markers("scratch_pad")),
        ("U_TEXT", _regexp("U_TEXT"), tags.result_markers()),
        ("S_TEXT", _regexp("S_TEXT"), tags.catalogue_markers()),
        ("O_TEXT", _regexp("O_TEXT"), tags.other_markers()),
    ]
    for kinds in KIND_SETS:
        out.append((f"A_TEXT{kinds}", _regexp("A_TEXT", Variant(kinds=kinds)), tags.assistant_markers(kinds)))
    return out


TEXT_TERMINALS = _text_terminals()


@pytest.mark.parametrize(
    ("terminal", "literal"),
    [
        ("IM_END", tags.IM_END),
        ("STRAY_CALL", tags.CALL_CLOSE),
        ("STRAY_RESP", tags.RESP_CLOSE),
        ("FAB", tags.RESP_OPEN),
        ("STRAY_TOOLS", tags.TOOLS_CLOSE),
        ("STRAY_THINK", tags.CLOSE["think"]),
        ("STRAY_SCRATCH", tags.CLOSE["scratch_pad"]),
        ("THINK_OPEN", tags.OPEN["think"]),
        ("THINK_CLOSE", tags.CLOSE["think"]),
        ("SCRATCH_OPEN", tags.OPEN["scratch_pad"]),
        ("SCRATCH_CLOSE", tags.CLOSE["scratch_pad"]),
    ],
)
def test_the_grammars_literal_terminals_are_the_tags(terminal: str, literal: str) -> None:
    assert lark_parser(Variant(calls_in_reasoning=True)).get_terminal(terminal).pattern.value == literal


@pytest.mark.parametrize(
    ("terminal", "text"),
    [
        ("A_HEAD", tags.IM_START + "assistant\n"),
        ("U_HEAD", tags.IM_START + "tool\n"),
        ("S_HEAD", tags.IM_START + "system\n"),
        ("O_HEAD", tags.IM_START + "x\n"),
        ("A_LINK", tags.IM_END + "\n" + tags.IM_START + "assistant\n"),
        ("CALL_DONE", tags.CALL_OPEN + "{}" + tags.CALL_CLOSE),
        ("RESP_DONE", tags.RESP_OPEN + "{}" + tags.RESP_CLOSE),
        ("TOOLS_BLOCK", tags.TOOLS_OPEN + "[]" + tags.TOOLS_CLOSE),
        ("THINK_BLOCK", tags.OPEN["think"] + "a" + tags.CLOSE["think"]),
        ("SCRATCH_BLOCK", tags.OPEN["scratch_pad"] + "a" + tags.CLOSE["scratch_pad"]),
    ],
)
def test_the_grammars_block_and_header_terminals_are_spelled_with_the_tags(terminal: str, text: str) -> None:
    assert re.fullmatch(_regexp(terminal), text)


@pytest.mark.parametrize(("label", "regexp", "markers"), TEXT_TERMINALS, ids=[t[0] for t in TEXT_TERMINALS])
def test_each_text_terminal_stops_at_exactly_its_contexts_markers(label: str, regexp: str, markers: tuple[str]) -> None:
    for tag in ALL_TAGS:
        m = re.match(regexp, "x" + tag + "y")
        assert m is not None
        assert m.end() == (1 if tag in markers else len(tag) + 2), (label, tag)


_PIECES = st.sampled_from([*ALL_TAGS, "<", "x", "\n", "<tool", "|", "/", "<|im_", "think>", "</"])


@given(text=st.lists(_PIECES, max_size=12).map("".join), which=st.sampled_from(TEXT_TERMINALS))
def test_a_text_run_ends_at_the_first_marker_of_its_context(text: str, which: tuple[str, str, tuple[str]]) -> None:
    _, regexp, markers = which
    first = min((i for i in range(len(text)) if text.startswith(markers, i)), default=len(text))
    m = re.match(regexp, text)
    if first == 0:
        assert m is None
    else:
        assert m is not None and m.end() == first


def test_canonical_kinds_and_lengths() -> None:
    assert tags.canonical_kinds(["scratch_pad", "think"]) == tags.REASONING_KINDS
    assert [len(t) for t in (tags.IM_START, tags.IM_END, tags.CALL_OPEN, tags.RESP_OPEN)] == [12, 10, 11, 15]


# ---- one vocabulary: no module outside tags.py spells a tag in code --------------------------------------------

_SRC = Path(hermes_toolcall.__file__).parent
_ROLES = tags.ROLES
# a string constant made only of tags, role names and whitespace is the vocabulary written by hand; prose
# and sample inputs that mention a tag ("stray </tool_call> ...", a whole example call) are not
_VOCABULARY = (*ALL_TAGS, *XML_TAGS)
_VOCAB = re.compile(
    "(?:" + "|".join(map(re.escape, sorted(_VOCABULARY, key=len, reverse=True))) + "|" + "|".join(_ROLES) + r"|\s)+"
)
ALLOWED = {
    "tags.py": "the vocabulary itself",
    "grammar/_tables.py": "generated from hermes.lark (scripts/gen_grammar_tables.py)",
    "_diagnostics.py": "the catalogue's examples are sample inputs, written as a user would",
    "conformance/examples/_vllm_style_regex.py": "an example adapter, written as a third party would",
}
# modules another branch of this session owns; their tag literals are left to them (coord/README.md)
PENDING: tuple[str, ...] = ()


def _docstring_ids(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def hand_spelled_tags(source: str) -> list[tuple[int, str]]:
    """(line, constant) of every string constant in code (docstrings aside) that spells tags by hand."""
    tree = ast.parse(source)
    docs = _docstring_ids(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and any(t in node.value for t in _VOCABULARY)
        and _VOCAB.fullmatch(node.value)
    ]


def test_the_scan_finds_hand_spelled_tags_and_spares_prose_and_docstrings() -> None:
    source = (
        '"""Module doc: <tool_call>."""\n'
        'def f():\n    """<think> in a docstring."""\n'
        '    a = "<tool_call>"\n    b = f"<|im_start|>assistant\\n{x}"\n    c = "stray </think> kept as text"\n'
    )
    assert hand_spelled_tags(source) == [(4, "<tool_call>"), (5, "<|im_start|>assistant\n")]
    xml = 'm = f"<function={n}> has no </function>"\nk = "\\n</parameter>"\nt = "stray </parameter> kept"\n'
    assert sorted(hand_spelled_tags(xml)) == [(1, "<function="), (2, "\n</parameter>")]


def test_no_module_outside_tags_spells_a_tag_literal_in_code() -> None:
    found = []
    for path in sorted(_SRC.rglob("*.py")):
        rel = path.relative_to(_SRC).as_posix()
        if rel in ALLOWED or rel.startswith(PENDING):
            continue
        found += [f"{rel}:{line}: {text!r}" for line, text in hand_spelled_tags(path.read_text(encoding="utf-8"))]
    assert not found, "take these from hermes_toolcall.tags:\n" + "\n".join(found)


def test_the_allowed_exceptions_still_exist() -> None:
    assert all((_SRC / rel).is_file() for rel in ALLOWED)


# ---- one vocabulary: no module outside tags.py spells a role name in code ------------------------------------

#: String constants that spell a role name with another meaning, by (module, line's constant): each says which.
OTHER_MEANINGS = {
    ("cli/_config.py", "tool"): "pyproject.toml's [tool] table",
    ("cli/_validate_report.py", "tool"): "SARIF's run.tool object",
    ("cli/_parse_cmd.py", "tool_response"): "the part kind ToolResponse's name in --format jsonl",
    ("grammar/_parser.py", "tool_response"): "the <tool_response> tag's name in a pattern",
    ("render/_roundtrip.py", "system"): "render()'s system= argument, named in a RenderError",
    ("render/_system.py", "system"): "render_system_prompt()'s system= argument, named in a RenderError",
    ("statemachine/_table.py", "assistant"): "the engine state ASSISTANT's value (a state, not a role)",
}


_HEADER_PIECE = re.compile("(" + "|".join(sorted(tags.ROLES, key=len, reverse=True)) + r")(?:\r?\n|$)")


def role_literals(source: str) -> list[tuple[int, str]]:
    """(line, role) of every string constant in code (docstrings and ``Literal[...]`` types aside) that is a
    role name, blanks around it allowed, and of every f-string piece that writes a role's header after a
    value (``f"{IM_START}assistant\\n"``; prose such as ``f"tool {i}: ..."`` is not a role)."""
    tree = ast.parse(source)
    skip = _docstring_ids(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
            skip |= {id(n) for n in ast.walk(node.slice)}  # a type cannot name a constant
        if isinstance(node, ast.JoinedStr):
            skip |= {id(n) for n in node.values}
            for before, piece in zip(node.values, node.values[1:], strict=False):
                if isinstance(before, ast.FormattedValue) and isinstance(piece, ast.Constant):
                    m = _HEADER_PIECE.match(str(piece.value))
                    if m:
                        found.append((node.lineno, m.group(1)))
    found += [
        (node.lineno, node.value.strip(" \t\r\n"))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and node.value.strip(" \t\r\n") in tags.ROLES
    ]
    return found


def test_the_role_scan_finds_roles_in_code_and_spares_docstrings_and_types() -> None:
    source = (
        '"""The assistant."""\nfrom typing import Literal\n'
        'def f(r: Literal["tool", "user"]):\n    """user"""\n'
        '    a = {"role": "assistant"}\n    b = f"{X}system\\n"\n    c = "the user said"\n'
        '    d = f"tool {i}: bad"\n    e = f"{X}user"\n'
    )
    assert sorted(role_literals(source)) == [(5, "assistant"), (6, "system"), (9, "user")]


def test_no_module_outside_tags_spells_a_role_in_code() -> None:
    found = []
    for path in sorted(_SRC.rglob("*.py")):
        rel = path.relative_to(_SRC).as_posix()
        if rel == "tags.py":
            continue
        found += [
            f"{rel}:{line}: {role!r}"
            for line, role in role_literals(path.read_text(encoding="utf-8"))
            if (rel, role) not in OTHER_MEANINGS
        ]
    assert not found, "take these from hermes_toolcall.tags (ROLES and its names):\n" + "\n".join(found)


def test_the_other_meanings_are_still_spelled() -> None:
    for rel, role in OTHER_MEANINGS:
        assert (rel, role) in {(rel, r) for _, r in role_literals((_SRC / rel).read_text(encoding="utf-8"))}
