"""validate/_view.py and the builders' shortcuts: the positional constructors, the shared value locations, the
remembered system turns: each gives the values of the one code path, so the findings are the same."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hermes_toolcall._positions import LineIndex
from hermes_toolcall.validate import _build as build
from hermes_toolcall.validate._api import Selector, ValidationReport, record_report
from hermes_toolcall.validate._view import _ZERO as ZERO
from hermes_toolcall.validate._view import (
    Piece,
    Source,
    VCall,
    VMessage,
    VReasoning,
    VResult,
    Where,
    new_call,
    new_message,
    new_piece,
    new_reasoning,
    new_result,
    value_where,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "integer"}}},
        },
    }
]
XML_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"type": "string"}}}}}]


def test_positional_constructors_build_the_keyword_values() -> None:
    src = Source("abc", ("messages", 0, "content"))
    piece = Piece(kind="content", text="abc", source=src, base=2, parsed=True)
    assert new_piece("content", "abc", src, 2, True) == piece
    where = value_where(("messages", 0))
    fields: dict[str, Any] = {
        "role": "user",
        "where": where,
        "from_text": False,
        "calls": (),
        "results": (),
        "reasoning": (),
        "pieces": (piece,),
        "order": ("call",),
        "raw": (piece,),
    }
    made = new_message(*fields.values())
    assert made == VMessage(**fields)
    assert type(made) is VMessage and tuple(VMessage.__dataclass_fields__) == tuple(fields)
    assert src.where(1, 2) == Where(span=src.where(1, 2).span, path=("messages", 0, "content"))
    call = {"name": "f", "id": "c1", "arguments": {"a": 1}, "encoding": "string", "where": where, "json_source": src,
            "json_base": 3, "json_text": "{}", "json_prefix": ("arguments",), "object_path": ("x",)}
    assert tuple(VCall.__dataclass_fields__) == tuple(call)
    assert new_call(*call.values()) == VCall(**call)
    result = {"content": "42", "name": "f", "tool_call_id": None, "where": where}
    assert tuple(VResult.__dataclass_fields__) == tuple(result) and new_result(*result.values()) == VResult(**result)
    reasoning = {"kind": "think", "text": "t", "where": where}
    assert tuple(VReasoning.__dataclass_fields__) == tuple(reasoning)
    assert new_reasoning(*reasoning.values()) == VReasoning(**reasoning)


@pytest.mark.parametrize("text", ["", "abc", "a\nb\r\nc", "\n\n", "東京\n\ud800"])
def test_where_from_the_start_is_the_line_index_span(text: str) -> None:
    """A span from offset 0 (built without a line index) equals the line index's, before and after it exists."""
    src = Source(text, ("p",))
    for end in range(len(text) + 2):
        expected = LineIndex(text).span(0, min(end, len(text)))
        assert src.where(0, end).span == expected
        assert src.where(-3, end).span == expected
    if text:
        src.where(1, 1)  # builds the index
        assert src.where(0, len(text)).span == LineIndex(text).span(0, len(text))


def test_value_where_is_the_value_location_shared() -> None:
    path = ("messages", 3, "tool_calls", 0)
    assert value_where(path) == Where(span=ZERO, path=path, in_value=False)
    assert value_where(path) is value_where(("messages", 3, "tool_calls", 0))
    assert value_where(("messages", 3)) != value_where(("messages", 4))


def test_value_where_table_is_bounded() -> None:
    from hermes_toolcall.validate import _view as view

    for k in range(view._VALUE_WHERE_MAX + 10):
        assert value_where(("x", k)).path == ("x", k)
    assert len(view._VALUE_WHERE) <= view._VALUE_WHERE_MAX


# ------------------------------------------------------------------ records: nasty strings everywhere

_PIECES = [
    "", " ", "hi", "a < b", "<", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>",
    "</think>", "<scratch_pad>", "<tools>", "</tools>", "<|im_end|>", "<|im_start|>", "<|endoftext|>", "\r\n", "\n",
    "東京", "\ud800", "12345678901234567890123", "1e999", '{"name": "get_weather", "arguments": {"city": "x"}}',
    '{"name": "get_weather", "arguments": {"city": "x", "city": 1}}', "[" * 600, "<function=f>", "<parameter=a>",
    "</parameter>", "</function>",
]
_TEXT = st.lists(st.sampled_from(_PIECES) | st.text(max_size=3), max_size=4).map("".join)
_ARGS = st.one_of(
    _TEXT,
    _TEXT.map(lambda t: json.dumps({"city": t})),
    st.fixed_dictionaries({"city": _TEXT}),
    st.sampled_from(['{"city": "a", "city": 2}', '{"n": 123456789012345678901234567890}', "[" * 600 + "]" * 600, "{}"]),
    st.integers() | st.none(),
)
_CALL = st.fixed_dictionaries(
    {"id": st.sampled_from(["c1", "c2", None]), "type": st.just("function"),
     "function": st.fixed_dictionaries({"name": st.sampled_from(["get_weather", "nope"]) | _TEXT, "arguments": _ARGS})}
)
_CONTENT = st.one_of(_TEXT, st.none(), st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}),
                                               max_size=2), st.integers())
_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool", "function", "developer", "robot"]) | st.integers(),
     "content": _CONTENT},
    optional={"tool_calls": st.lists(_CALL, max_size=2) | st.just("bad"), "reasoning_content": _TEXT,
              "tool_call_id": st.sampled_from(["c1", "c2", "zz"]), "name": _TEXT,
              "function_call": st.fixed_dictionaries({"name": st.just("get_weather"), "arguments": _ARGS})},
)
_TURN = st.fixed_dictionaries(
    {"from": st.sampled_from(["system", "human", "gpt", "tool", "function_call", "observation", "x"]),
     "value": _TEXT | st.integers()}
)
_SYSTEM_TEXTS = st.sampled_from([
    "You call functions. <tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>",
    "<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>\n<tool_call>\n{\"name\": \"get_weather\"}\n</tool_call>",
    "<tools>\n{not json}\n</tools><|im_end|>",
    "<tools>\n" + json.dumps(XML_TOOLS[0]) + "\n</tools><tool_call>\n<function=f>\n<parameter=a>\n5\n</parameter>\n"
    "</function>\n</tool_call>",
    "<tools>\r\n" + json.dumps(TOOLS[0]) + "\r\n</tools>",
]) | _TEXT
_TOOLS_FIELD = st.one_of(st.just(TOOLS), st.just(json.dumps(TOOLS)), st.just(json.dumps(XML_TOOLS)), st.just("nope"),
                         st.integers(), st.none())


def _report(record: Any, dialect: str = "hermes") -> ValidationReport:
    return record_report(record, None, dialect, Selector(), False, True, decoded=True)


def _fresh(record: Any, dialect: str = "hermes") -> ValidationReport:
    """The report with no system turn remembered: every turn parsed (the one code path)."""
    build._SYSTEM_VIEWS.clear()
    return _report(record, dialect)


@given(st.lists(_MESSAGE, max_size=6), _TOOLS_FIELD)
@example([{"role": "assistant", "content": "<tool_call>\n{\"name\": \"get_weather\"}\n</tool_call>",
           "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
          {"role": "tool", "content": "<tool_response>x</tool_response>", "tool_call_id": "c1"}], TOOLS)
@example([{"role": "user", "content": "a\r\n<tool_response>\ud800"}, {"role": "assistant", "content": None,
           "reasoning_content": "<think>", "function_call": {"name": "get_weather", "arguments": "[" * 600}}], None)
def test_openai_findings_are_those_of_a_fresh_build(messages: list[Any], tools: Any) -> None:
    record = {"messages": messages, "tools": tools}
    first = _fresh(record)
    assert _report(record) == first  # built again (the value locations now shared): the same findings
    assert _report(json.loads(json.dumps(record))) == first


@given(_SYSTEM_TEXTS, st.lists(_TURN, max_size=5), _TOOLS_FIELD, st.sampled_from(["hermes", "qwen3", "qwen3-coder"]))
@example("<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>", [{"from": "gpt", "value": "<|im_end|>"}], TOOLS, "hermes")
def test_sharegpt_findings_with_a_remembered_system_turn(system: str, turns: list[Any], tools: Any,
                                                           dialect: str) -> None:
    record = {"conversations": [{"from": "system", "value": system}, *turns], "tools": tools}
    first = _fresh(record, dialect)
    assert _report(record, dialect) == first  # the system turn remembered: the same findings
    other = {"conversations": [{"from": "system", "value": system}, {"from": "human", "value": "hi"}], "tools": tools}
    assert _report(other, dialect) == _fresh(other, dialect)


# ------------------------------------------------------------------ where the remembered turn steps aside


def _system_record(system: str, tools: Any) -> dict[str, Any]:
    return {"conversations": [{"from": "system", "value": system}, {"from": "human", "value": "go"}], "tools": tools}


def test_remembered_system_turn_needs_the_same_typing_tools_for_an_xml_body() -> None:
    """A system text with ``<function=``: its values are typed by the tools, so another tools list parses again."""
    system = ("<tools>\n" + json.dumps(XML_TOOLS[0]) + "\n</tools><tool_call>\n<function=f>\n<parameter=a>\n5\n"
              "</parameter>\n</function>\n</tool_call>")
    build._SYSTEM_VIEWS.clear()
    findings: list[Any] = []
    a, _ = build._system_from_wire(system, ("conversations", 0, "value"), "qwen3-coder", findings, XML_TOOLS)
    b, _ = build._system_from_wire(system, ("conversations", 0, "value"), "qwen3-coder", [], XML_TOOLS)
    assert b is a  # the same list: remembered
    other = [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"type": "integer"}}}}}]
    c, _ = build._system_from_wire(system, ("conversations", 0, "value"), "qwen3-coder", [], other)
    assert c is not a
    assert build._system_from_wire(system, ("conversations", 0, "value"), "qwen3-coder", [], None)[0] is not c


def test_remembered_system_turn_ignores_the_tools_of_a_json_body() -> None:
    """Without ``<function=`` the tools type nothing: any list (or none) gets the remembered view."""
    system = "<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>"
    build._SYSTEM_VIEWS.clear()
    a, found = build._system_from_wire(system, ("conversations", 0, "value"), "hermes", [], TOOLS)
    assert build._system_from_wire(system, ("conversations", 0, "value"), "hermes", [], list(TOOLS))[0] is a
    assert build._system_from_wire(system, ("conversations", 0, "value"), "hermes", [], None)[0] is a
    assert found == [TOOLS[0]]


def test_remembered_system_turn_is_per_path_and_dialect() -> None:
    """Another position in the record, or another dialect, parses again (its locations, its rules differ)."""
    system = "<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools>"
    build._SYSTEM_VIEWS.clear()
    a, _ = build._system_from_wire(system, ("conversations", 0, "value"), "hermes", [], None)
    b, _ = build._system_from_wire(system, ("conversations", 1, "value"), "hermes", [], None)
    c, _ = build._system_from_wire(system, ("conversations", 0, "value"), "qwen3", [], None)
    assert b is not a and c is not a
    assert b.where.path == ("conversations", 1, "value")


def test_remembered_system_turn_gives_its_findings_again() -> None:
    """A system text with findings (a broken ``<tools>`` block, a control token) reports them on every record."""
    record = _system_record("<tools>\n{not json}\n</tools><|im_end|>", None)
    first = _fresh(record)
    assert first.codes and _report(record) == first and _report(record) == first


def test_remembered_system_turns_are_bounded() -> None:
    build._SYSTEM_VIEWS.clear()
    for k in range(build._SYSTEM_VIEWS_MAX + 5):
        build._system_from_wire(f"<tools>\n[]\n</tools> {k}", ("conversations", 0, "value"), "hermes", [], None)
    assert 0 < len(build._SYSTEM_VIEWS) <= build._SYSTEM_VIEWS_MAX
    last = f"<tools>\n[]\n</tools> {build._SYSTEM_VIEWS_MAX + 4}"
    assert (last, ("conversations", 0, "value"), "hermes") in build._SYSTEM_VIEWS


def test_runner_result_built_positionally_is_the_dataclass_value() -> None:
    from hermes_toolcall.validate._runner import RecordResult, _new_result

    fields = {"number": 3, "end": 120, "findings": (), "digest": "", "raw": None}
    assert tuple(RecordResult.__dataclass_fields__) == tuple(fields)
    assert _new_result(*fields.values()) == RecordResult(number=3, end=120, findings=())
