"""``validate``: a ``<tools>`` block whose content declares no usable tool is a finding (HT307, HT305), never a pass.

Named regressions for the reviewer's silent pass (``5``, ``abc``, ``"str"``, ``[1]``, ``{}``, an object that is
not a tool, an unreadable mix gave no finding, and no HT301 for the calls after them), through the library and
the CLI; properties: what every dialect's ``render()`` writes gives neither code, generated garbage always one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall import parse_transcript, render, validate
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.testing._strategies import json_values, tools

_SYSTEM = "<|im_start|>system\n<tools>\n"
_AFTER = (
    "\n</tools><|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    '<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call><|im_end|>\n'
)
_START = len(_SYSTEM) - 1  # the content starts after "<tools>", at its line end

# (content, the code at the block, HT301 for the call to g)
BAD = [
    ("5", "HT307", True),
    ("abc", "HT307", True),
    ('"str"', "HT307", True),
    ("null", "HT307", True),
    ("[1]", "HT305", True),
    ("{}", "HT307", True),
    ('{"a": 1}', "HT307", True),
    ('{"name": 5}', "HT307", True),
    ('{"name": "f"}\nxyz', "HT307", True),
    ('[{"name": "g"}, 1]', "HT305", False),
]


def _transcript(content: str) -> str:
    return _SYSTEM + content + _AFTER


@pytest.mark.parametrize(("content", "code", "unknown"), BAD, ids=[c for c, _, _ in BAD])
def test_regression_unreadable_tools_block_is_a_finding_at_its_content(content: str, code: str, unknown: bool) -> None:
    text = _transcript(content)
    report = validate(parse_transcript(text))
    at_block = [d for d in report.diagnostics if d.code in ("HT305", "HT307")]
    assert [d.code for d in at_block] == [code]
    span = at_block[0].span
    end = text.index("</tools>")
    assert (span.start, span.end, span.line, span.column) == (_START, end, 2, 8)
    assert (["HT301"] if unknown else []) == [d.code for d in report.diagnostics if d.code == "HT301"]
    assert at_block[0].severity == "error"


@pytest.mark.parametrize("content", ["", "   ", "[]"])
def test_regression_empty_tools_block_declares_nothing_and_is_no_finding(content: str) -> None:
    report = validate(parse_transcript(_transcript(content)))
    assert report.diagnostics == ()


@pytest.mark.parametrize(("content", "code", "unknown"), BAD, ids=[c for c, _, _ in BAD])
def test_regression_unreadable_tools_block_via_the_cli(tmp_path: Path, content: str, code: str, unknown: bool) -> None:
    path = tmp_path / "t.chatml"
    path.write_text(_transcript(content), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "hermes_toolcall", "validate", str(path), "--format", "json"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 1, done.stderr
    codes = [d["code"] for d in json.loads(done.stdout)["diagnostics"]]
    assert code in codes and ("HT301" in codes) == unknown
    plain = subprocess.run(
        [sys.executable, "-m", "hermes_toolcall", "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert plain.returncode == 1 and f"{path}:2:8: {code} error" in plain.stdout


def test_regression_unreadable_tools_block_in_a_sharegpt_system_turn() -> None:
    from hermes_toolcall.validate import validate_record

    record = {"conversations": [
        {"from": "system", "value": "You have tools: <tools>\nget_weather\n</tools>"},
        {"from": "human", "value": "hi"},
        {"from": "gpt", "value": '<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>'},
    ]}
    report = validate_record(record)
    assert [d.code for d in report.diagnostics] == ["HT307", "HT301"]
    where = report.locations[0]
    assert where.path == ("conversations", 0, "value") and where.span.start == len("You have tools: <tools>")


def _hermes_line(name: str) -> str:  # the Hermes template's layout: raw description, no final brace
    head = '{"type": "function", "function": {"name": "' + name
    return head + '", "description": "' + name + '() - d\n\n", "parameters": {}}'


def _qwen_line(name: str) -> str:
    return json.dumps({"type": "function", "function": {"name": name, "description": "d", "parameters": {}}})


_PARTLY = {
    # tool a, tool b, then junk: gave tools ['a'] and no finding
    "hermes-two-tools-then-junk": _hermes_line("a") + "\n" + _hermes_line("b") + "\nxyz}",
    # one junk line among Qwen per-line objects (the line after it is read as a Hermes chunk)
    "qwen-junk-line-among-objects": _qwen_line("b") + "\nxyz\n" + _qwen_line("a"),
    # a Hermes chunk that cannot be read between two good ones
    "hermes-bad-chunk-between-good-ones": _hermes_line("a")
    + '\n{"type": "function", "function": {"name": "c", broken}\n'
    + _hermes_line("g"),
}


@pytest.mark.parametrize("content", list(_PARTLY.values()), ids=list(_PARTLY))
def test_regression_partly_unreadable_tools_block_is_ht307_and_declares_what_was_read(content: str) -> None:
    text = _transcript(content).replace('"name": "g", "arguments"', '"name": "a", "arguments"')
    report = validate(parse_transcript(text))
    assert [d.code for d in report.diagnostics] == ["HT307"]  # the call to a (read) is no HT301
    d = report.diagnostics[0]
    assert (d.span.start, d.span.end, d.span.line, d.span.column) == (_START, text.index("</tools>"), 2, 8)
    assert d.severity == "error" and "no tool was read from" in d.message and "declared" in d.message
    unknown = text.replace('"name": "a", "arguments"', '"name": "zz", "arguments"')
    assert [d.code for d in validate(parse_transcript(unknown)).diagnostics] == ["HT307", "HT301"]


@settings(max_examples=60, deadline=None)
@given(dialect=st.sampled_from(sorted(DIALECTS)), declared=tools(min_size=1, max_size=4))
def test_every_dialects_rendered_tools_give_no_block_finding(dialect: str, declared: list[dict[str, Any]]) -> None:
    name = declared[0]["function"]["name"]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": name, "arguments": {}}}
        ]},
    ]
    text = render(messages, tools=declared, dialect=dialect)
    report = validate(parse_transcript(text, dialect=dialect), dialect=dialect)
    assert not {"HT301", "HT305", "HT307"} & {d.code for d in report.diagnostics}, (dialect, text)


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=10))
_NOT_A_TOOL = st.dictionaries(
    st.text(max_size=6).filter(lambda k: k not in ("name", "function")), json_values(max_leaves=4), max_size=3
)


def _text_garbage(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and stripped != "[]"


_GARBAGE = st.one_of(
    _SCALARS.map(json.dumps),  # a number, a string, true, null
    st.lists(st.one_of(_SCALARS, st.lists(_SCALARS, max_size=2)), min_size=1, max_size=4).map(json.dumps),
    st.tuples(st.lists(_NOT_A_TOOL, max_size=2), _SCALARS).map(lambda p: json.dumps([*p[0], p[1]])),
    _NOT_A_TOOL.map(json.dumps),  # an object that is not a tool
    st.lists(_NOT_A_TOOL.map(json.dumps), min_size=1, max_size=3).map("\n".join),  # lines of such objects
    st.text(st.characters(blacklist_characters="<{[\"'", blacklist_categories=("Cs",)), max_size=40),
    st.tuples(tools(min_size=1, max_size=3), st.text(st.characters(blacklist_characters="<"), min_size=1, max_size=8))
    .map(lambda p: "\n".join(json.dumps(t) for t in p[0]) + "\n" + p[1] + "}"),  # readable lines, then not
    st.tuples(tools(min_size=0, max_size=3), st.text(st.characters(blacklist_characters="<"), min_size=1, max_size=8),
              tools(min_size=1, max_size=3))  # readable lines before and after junk
    .map(lambda p: "\n".join([*(json.dumps(t) for t in p[0]), p[1] + "}", *(json.dumps(t) for t in p[2])])),
).filter(_text_garbage)


@settings(max_examples=200, deadline=None)
@given(content=_GARBAGE)
def test_garbage_in_a_tools_block_is_always_ht307_or_ht305(content: str) -> None:
    text = "<|im_start|>system\n<tools>\n" + content + "\n</tools><|im_end|>\n"
    transcript = parse_transcript(text)
    if any(d.code in ("HT113", "HT114") for d in transcript.diagnostics):
        return  # the block itself was cut or left open: the parse said so
    codes = [d.code for d in validate(transcript).diagnostics]
    assert {"HT305", "HT307"} & set(codes), (content, codes)
