"""Schema-guided coercion (``coerce_arguments=True``): lossless only, named, positioned; both engines and the stream."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall import Completion, ParseError, StreamParser, parse_completion
from hermes_toolcall._coerce import conversions
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall._jsonio import dumps_spaced, loads
from hermes_toolcall.statemachine import ArgumentsDelta, ToolCallEnd
from hermes_toolcall.testing import assert_engines_agree, chunkings, feed_in_chunks, json_values


def tools_for(properties: dict[str, Any], name: str = "f") -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}
    ]


def one(value_json: str, schema: dict[str, Any], **options: Any) -> tuple[Any, list[str], Completion]:
    """(converted value, codes, completion) of a call whose argument ``v`` is ``value_json``."""
    text = '<tool_call>\n{"name": "f", "arguments": {"v": ' + value_json + "}}\n</tool_call>"
    c = assert_engines_agree(text, tools=tools_for({"v": schema}), coerce_arguments=True, **options)
    assert c is not None
    return c.tool_calls[0].arguments["v"], [d.code for d in c.diagnostics], c


@pytest.mark.parametrize(
    ("value", "schema", "want", "code"),
    [
        ('"7"', {"type": "integer"}, 7, "HT210"),
        ('"-12"', {"type": "integer"}, -12, "HT210"),
        ('"123456789012345678901234567890"', {"type": "integer"}, 123456789012345678901234567890, "HT210"),
        ('"12.5"', {"type": "number"}, 12.5, "HT211"),
        ('"7"', {"type": "number"}, 7, "HT211"),
        ('"1e3"', {"type": "number"}, 1000.0, "HT211"),
        ('"true"', {"type": "boolean"}, True, "HT212"),
        ('"false"', {"type": "boolean"}, False, "HT212"),
        ("10001", {"type": "string"}, "10001", "HT213"),
        ("5.50", {"type": "string"}, "5.50", "HT213"),
        ('"null"', {"type": "null"}, None, "HT214"),
        ('"7"', {"type": ["integer", "null"]}, 7, "HT210"),
        ('"7"', {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, 7, "HT210"),
    ],
)
def test_lossless_conversions(value: str, schema: dict[str, Any], want: Any, code: str) -> None:
    got, codes, _ = one(value, schema)
    assert got == want and type(got) is type(want)
    assert codes == [code]


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        ('"7.5"', {"type": "integer"}),  # the issue's example: not an integer
        ('"yes"', {"type": "boolean"}),  # the issue's example: not a boolean
        ('"True"', {"type": "boolean"}),
        ('"1"', {"type": "boolean"}),
        ('"07"', {"type": "integer"}),
        ('" 7"', {"type": "integer"}),
        ('"-0"', {"type": "integer"}),
        ('"7.0"', {"type": "integer"}),
        ('"1e3"', {"type": "integer"}),
        ('"0.1000000000000000055511151231257827"', {"type": "number"}),
        ('"1e999"', {"type": "number"}),
        ('"NaN"', {"type": "number"}),
        ('".5"', {"type": "number"}),
        ('"None"', {"type": "null"}),
        ("true", {"type": "string"}),
        ('"7"', {"type": ["string", "integer"]}),  # the type is allowed: never touched
        ("7", {"type": "number"}),
        ('"' + "9" * 5000 + '"', {"type": "integer"}),  # more digits than int() reads
        ('"7"', {"$ref": "#/$defs/n"}),  # not followed
    ],
)
def test_never_lossy(value: str, schema: dict[str, Any]) -> None:
    got, codes, _ = one(value, schema)
    assert got == loads(value) and codes == []


def test_nested_objects_arrays_and_additional_properties() -> None:
    schema = {
        "type": "object",
        "properties": {
            "opts": {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "additionalProperties": {"type": "boolean"},
            },
            "ids": {"type": "array", "items": {"type": "integer"}},
        },
    }
    text = (
        '<tool_call>{"name": "f", "arguments": {"opts": {"n": "1", "x": "true"}, "ids": ["2", 3, "4.5"]}}</tool_call>'
    )
    c = assert_engines_agree(text, tools=[{"name": "f", "parameters": schema}], coerce_arguments=True)
    assert c is not None
    [call] = c.tool_calls
    assert call.arguments == {"opts": {"n": 1, "x": True}, "ids": [2, 3, "4.5"]}
    assert call.arguments_json == '{"opts": {"n": 1, "x": true}, "ids": [2, 3, "4.5"]}'
    assert [(d.code, text[d.span.start : d.span.end]) for d in c.diagnostics] == [
        ("HT210", '"1"'),
        ("HT212", '"true"'),
        ("HT210", '"2"'),
    ]
    assert [d.message for d in c.diagnostics][2] == 'f: arguments.ids[0]: "2" was read as 2 (schema type integer)'


def test_positions_and_formatting_are_kept() -> None:
    text = (
        'Sure.\n<tool_call>\n{"name": "get_weather",\n "arguments": {\n   "city": "Paris",\n   "days":  "3"}}'
        "\n</tool_call>"
    )
    tools = tools_for({"city": {"type": "string"}, "days": {"type": "integer"}}, "get_weather")
    c = assert_engines_agree(text, tools=tools, coerce_arguments=True)
    assert c is not None
    [d] = c.diagnostics
    assert (d.code, d.severity, d.line, d.column) == ("HT210", "warning", 6, 13)
    assert text[d.span.start : d.span.end] == '"3"'
    assert c.tool_calls[0].arguments_json == '{\n   "city": "Paris",\n   "days":  3}'
    assert c.tool_calls[0].arguments == {"city": "Paris", "days": 3}


def test_recovered_bodies_are_coerced_at_the_block() -> None:
    text = "<tool_call>{'name': 'f', 'arguments': {'v': '7'}}</tool_call>"  # a Python literal (HT202)
    c = assert_engines_agree(text, tools=tools_for({"v": {"type": "integer"}}), coerce_arguments=True)
    assert c is not None
    assert c.tool_calls[0].arguments == {"v": 7}
    coerced = [d for d in c.diagnostics if d.code == "HT210"]
    assert [(d.span.start, d.span.end) for d in coerced] == [(0, len(text))]


def test_strict_mode_converts_nothing_and_raises() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"v": "7"}}</tool_call>'
    tools = tools_for({"v": {"type": "integer"}})
    with pytest.raises(ParseError) as info:
        parse_completion(text, tools=tools, coerce_arguments=True, strict=True)
    assert [(d.code, d.severity) for d in info.value.diagnostics] == [("HT210", "error")]
    assert assert_engines_agree(text, tools=tools, coerce_arguments=True, strict=True) is None
    # without coercion the strict parse passes (schema checks are validate's job)
    assert parse_completion(text, tools=tools, strict=True).tool_calls[0].arguments == {"v": "7"}


def test_only_with_the_option_and_only_declared_tools_with_schemas() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"v": "7"}}</tool_call>'
    assert parse_completion(text, tools=tools_for({"v": {"type": "integer"}})).tool_calls[0].arguments == {"v": "7"}
    no_schema = [{"type": "function", "function": {"name": "f"}}]
    assert parse_completion(text, tools=no_schema, coerce_arguments=True).diagnostics == ()
    c = parse_completion(text, tools=tools_for({}, "g"), coerce_arguments=True)
    assert [d.code for d in c.diagnostics] == ["HT301"]


def test_stream_end_events_carry_the_converted_call() -> None:
    text = 'Hi <tool_call>{"name": "f", "arguments": {"v": "7", "w": 1}}</tool_call>'
    tools = tools_for({"v": {"type": "integer"}, "w": {"type": "string"}})
    for chunks in (None, [text], [20, 15]):
        events, result = feed_in_chunks(
            {"tools": tools, "coerce_arguments": True, "stream_arguments": True}, text, chunks
        )
        assert isinstance(result, Completion)
        [end] = [e for e in events if isinstance(e, ToolCallEnd)]
        assert end.call == result.tool_calls[0]
        assert end.call.arguments == {"v": 7, "w": "1"}
        streamed = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
        assert streamed == '{"v": "7", "w": 1}'  # streamed as it arrived; the end event is authoritative
    p = StreamParser(tools=tools, coerce_arguments=True, stream_arguments=True, ids=sequential_ids())
    # a call announced at its end streams the converted arguments
    events = p.feed("<tool_call>{'name': 'f', 'arguments': {'v': '7'}}</tool_call>") + p.close()
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == '{"v": 7}'


# ------------------------------------------------------------------ properties


_TYPES = st.sampled_from(["integer", "number", "boolean", "string", "null", "object", "array"])


@given(json_values(), st.lists(_TYPES, min_size=1, max_size=3, unique=True))
@settings(max_examples=300, deadline=None)
def test_every_conversion_is_lossless_and_lands_in_a_schema_type(value: Any, types: list[str]) -> None:
    schema = {"type": "object", "properties": {"v": {"type": types}}}
    arguments_json = dumps_spaced({"v": value})
    for conv in conversions({"v": value}, schema, arguments_json):
        assert conv.path == ("v",) and conv.want in types
        new, old = conv.new, conv.old
        assert loads(conv.text) == new
        if conv.code == "HT213":
            assert isinstance(old, int | float) and Decimal(new) == Decimal(
                repr(old) if isinstance(old, float) else old
            )
        elif conv.code == "HT211" and isinstance(new, float):
            assert math.isfinite(new) and Decimal(repr(new)) == Decimal(old)
        else:
            assert dumps_spaced(new) == old  # the string was exactly the value's JSON literal


@given(
    st.data(),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), json_values(), max_size=3),
    st.lists(_TYPES, min_size=1, max_size=2, unique=True),
    st.booleans(),
)
@settings(max_examples=120, deadline=None)
def test_engines_and_stream_agree_with_coercion(
    data: Any, arguments: dict[str, Any], types: list[str], strict: bool
) -> None:
    body = dumps_spaced({"name": "f", "arguments": arguments})
    text = f"x<tool_call>\n{body}\n</tool_call>y"
    tools = tools_for({k: {"type": types} for k in "abc"})
    assert_engines_agree(
        text, chunkings=[data.draw(chunkings(text))], tools=tools, coerce_arguments=True, strict=strict
    )


# ------------------------------------------------------------------ duplicate keys (issue 30, item 2)


@pytest.mark.parametrize(
    ("arguments", "want", "code", "kept"),
    [
        ('{"s": 1, "s": 2}', {"s": "2"}, "HT213", "2"),
        ('{"n": "7", "n": "8"}', {"n": 8}, "HT210", '"8"'),
        ('{"o": {"n": "7"}, "o": {"n": "9", "n": "10"}}', {"o": {"n": 10}}, "HT210", '"10"'),
    ],
)
def test_coercion_reads_the_value_the_parse_kept(arguments: str, want: dict[str, Any], code: str, kept: str) -> None:
    """Issue 30 item 2: ``{"s": 1, "s": 2}`` ran ``s="1"`` (the discarded first value) and ``arguments_json``
    read back as ``{"s": 2}``: the two views of one call disagreed."""
    schema = {
        "s": {"type": "string"},
        "n": {"type": "integer"},
        "o": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    text = '<tool_call>{"name": "f", "arguments": ' + arguments + "}</tool_call>"
    c = assert_engines_agree(text, tools=tools_for(schema), coerce_arguments=True)
    assert c is not None
    call = c.tool_calls[0]
    assert call.arguments == want
    assert loads(call.arguments_json) == call.arguments
    (d,) = c.diagnostics
    assert d.code == code
    assert text[d.span.start : d.span.end] == kept and d.span.start == text.rindex(kept)  # the last one


_KEYS = st.sampled_from(["a", "b"])
_SCALARS = st.one_of(
    st.integers(-20, 20).map(str),
    st.integers(-20, 20).map(lambda n: f'"{n}"'),
    st.sampled_from(['"true"', '"false"', "true", "null", '"null"', '"x"', "1.5", '"2.5"']),
)


@st.composite
def _object_texts(draw: Any, depth: int = 2) -> str:
    """A JSON object text whose keys may repeat (with other values and types), nested ``depth`` deep."""
    members = []
    for _ in range(draw(st.integers(0, 4))):
        key = draw(_KEYS)
        value = draw(_object_texts(depth - 1)) if depth and draw(st.booleans()) else draw(_SCALARS)
        members.append(f'"{key}": {value}')
    return "{" + ", ".join(members) + "}"


_SCHEMA_TYPES = st.lists(st.sampled_from(["integer", "number", "boolean", "string", "null"]), min_size=1, max_size=2)


@given(st.data(), _object_texts(), _SCHEMA_TYPES, _SCHEMA_TYPES)
@settings(max_examples=200, deadline=None)
def test_coercion_never_reads_a_value_the_parse_discarded(
    data: Any, arguments: str, a_types: list[str], b_types: list[str]
) -> None:
    """Generated arguments with repeated keys at every level: the coerced call equals the coercion of its
    duplicate-free twin (what a decoder keeps, last wins), its two views agree, and every conversion
    points at the kept value."""
    inner = {"type": "object", "properties": {"a": {"type": a_types}, "b": {"type": b_types}}}
    schema = {"a": {"anyOf": [{"type": a_types}, inner]}, "b": {"anyOf": [{"type": b_types}, inner]}}
    tools = tools_for(schema)
    text = '<tool_call>{"name": "f", "arguments": ' + arguments + "}</tool_call>"
    plain = parse_completion(text, ids=sequential_ids())
    twin_text = '<tool_call>{"name": "f", "arguments": ' + dumps_spaced(plain.tool_calls[0].arguments) + "}</tool_call>"
    got = assert_engines_agree(
        text, chunkings=[data.draw(chunkings(text))], tools=tools, coerce_arguments=True, char_by_char=False
    )
    twin = parse_completion(twin_text, tools=tools, coerce_arguments=True, ids=sequential_ids())
    assert got is not None
    call = got.tool_calls[0]
    assert call.arguments == twin.tool_calls[0].arguments
    assert loads(call.arguments_json) == call.arguments
    # the same conversions (by path; in source order, which repeated keys change), each at the kept value
    by_message = {t.message: t for t in twin.diagnostics}
    assert sorted(d.message for d in got.diagnostics) == sorted(by_message)
    for d in got.diagnostics:
        t = by_message[d.message]
        assert loads(text[d.span.start : d.span.end]) == loads(twin_text[t.span.start : t.span.end])
