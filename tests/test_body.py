"""Tests of the JSON-body module (`hermes_toolcall._body`): rule R5, every body code, seeds, properties."""

from __future__ import annotations

import doctest
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import hermes_toolcall._body as body_module
from helpers import TIME, jinja_render, shared_file, template_source
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._body import CallBody, decode_call_body, decode_tools_block, read_tools_block, response_name
from hermes_toolcall._diagnostics import CATALOGUE
from hypothesis_stats import count, examples

pytest_plugins = ["hypothesis_stats"]

DATA = Path(__file__).resolve().parent / "data" / "body"
CASES = jsonio.loads((DATA / "field_cases.json").read_text(encoding="utf-8"))["cases"]


def codes(body: CallBody) -> list[str]:
    return [i.code for i in body.issues]


def calls(body: CallBody) -> list[tuple[str, dict[str, Any], str]]:
    return [(c.name, c.arguments, c.arguments_json) for c in body.calls]


def both(inner: str, closed: bool = True) -> tuple[CallBody, CallBody]:
    return decode_call_body(inner, strict=False, closed=closed), decode_call_body(inner, strict=True, closed=closed)


def test_doctests() -> None:
    assert doctest.testmod(body_module).failed == 0


# ---- golden field cases ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_field_case(case: dict[str, Any]) -> None:
    closed = case.get("closed", True)
    for mode, strict in (("lenient", False), ("strict", True)):
        want = case[mode]
        got = decode_call_body(case["inner"], strict=strict, closed=closed)
        assert got.failure == want["failure"], (mode, got)
        assert codes(got) == want["codes"], (mode, got)
        if want["failure"] is None:
            assert got.calls and got.name == got.calls[0].name
            if "calls" in want:
                assert [[c.name, c.arguments, c.arguments_json] for c in got.calls] == want["calls"]
        else:
            assert got.calls == ()
            assert got.issues[-1].code == want["failure"]
        for issue in got.issues:
            assert issue.code in CATALOGUE
            assert 0 <= issue.start <= issue.end <= len(case["inner"])
            assert issue.hint == CATALOGUE[issue.code].fix


# ---- rule 1, 2: empty bodies, strict path, raw arguments slice ---------------------------------------


@pytest.mark.parametrize("inner", ["", " ", "\n\t\r\n"])
def test_empty_body_is_ht106(inner: str) -> None:
    for got in (*both(inner), *both(inner, closed=False)):
        assert got.failure == "HT106" and codes(got) == ["HT106"]
        assert (got.issues[0].start, got.issues[0].end) == (0, len(inner))


def test_arguments_json_is_the_raw_source_slice() -> None:
    inner = '\n{"name": "f",\n "arguments" :  {"a":1,  "b": [ 1 ,2 ], "c": "\\u00e9"}  }\n'
    lenient, strict = both(inner)
    want = [("f", {"a": 1, "b": [1, 2], "c": "é"}, '{"a":1,  "b": [ 1 ,2 ], "c": "\\u00e9"}')]
    assert calls(lenient) == calls(strict) == want
    assert lenient.issues == ()


@pytest.mark.parametrize("ws", [" ", "  ", "\n", " \t\r\n "])
def test_regression_arguments_json_has_no_surrounding_whitespace(ws: str) -> None:
    """Found by the engines' agreement fuzz: `"arguments":  {}` gave arguments_json ' {}'."""
    for head in ('{"name": "f", "arguments":', '{"name":"f","arguments":'):
        inner = head + ws + "{}" + ws + "}"
        assert calls(decode_call_body(inner, strict=True)) == [("f", {}, "{}")]


def test_arguments_json_with_escaped_key_and_extra_members() -> None:
    inner = '{"id": 1, "n\\u0061me": "f", "argu\\u006dents": {"x": "}"}, "z": null}'
    got = decode_call_body(inner, strict=True)
    assert calls(got) == [("f", {"x": "}"}, '{"x": "}"}')]
    assert codes(got) == ["HT108"]
    assert inner[got.issues[0].start : got.issues[0].end] == '"id"'


@pytest.mark.parametrize("strict", [False, True])
def test_duplicate_arguments_key_is_a_failure(strict: bool) -> None:
    inner = '{"name": "f", "arguments": {"a": 1}, "arguments": {"b": 2}}'
    got = decode_call_body(inner, strict=strict)
    assert calls(got) == [] and got.failure == "HT115"
    assert inner[got.issues[-1].start : got.issues[-1].end] == '"arguments"'  # the second occurrence


@pytest.mark.parametrize("strict", [False, True])
def test_duplicate_name_after_arguments_is_a_failure(strict: bool) -> None:
    inner = '{"name": "f", "arguments": {}, "name": "g"}'
    got = decode_call_body(inner, strict=strict)
    assert calls(got) == [] and got.failure == "HT115"


def test_deeply_nested_valid_json_still_decodes() -> None:
    deep: Any = "x"
    for _ in range(400):
        deep = {"d": deep}
    inner = json.dumps({"name": "f", "arguments": deep, "extra": 1})
    got = decode_call_body(inner, strict=True)
    assert got.failure is None and got.calls[0].arguments == deep
    assert codes(got) == ["HT108"]
    assert jsonio.loads(got.calls[0].arguments_json) == deep


@pytest.mark.parametrize("depth", [1000, 1020, 1030, 100000])
@pytest.mark.parametrize(
    "shape", ['{"name": "f", "arguments": %s, "x": 1}', '{"name": "f", "parameters": %s}',
              '[{"name": "f", "arguments": %s}]', "{'name': 'f', 'arguments': %s}"]
)
def test_regression_too_deep_never_raises(depth: int, shape: str) -> None:
    """Found by hand: re-encoding 1000-deep arguments raised RecursionError; now HT103."""
    inner = shape % ('{"d": ' * depth + "1" + "}" * depth)
    for got in both(inner):
        assert got.calls == () and got.failure in ("HT103", "HT205", "HT206", "HT202")
    assert decode_call_body(inner, strict=False).failure == "HT103"


def test_regression_infinite_numbers_never_reach_arguments_json() -> None:
    """`1e400` is infinity: kept as raw text on the strict path, refused where it would be re-encoded."""
    got = decode_call_body('{"name": "f", "arguments": {"a": 1e400}}', strict=False)
    assert got.calls[0].arguments_json == '{"a": 1e400}'
    got = decode_call_body('{"name": "f", "parameters": {"a": 1e400}}', strict=False)
    assert got.failure == "HT103" and "cannot represent" in got.issues[-1].message
    got = decode_call_body("{'name': 'f', 'arguments': {'a': 1e400}}", strict=False)
    assert got.failure == "HT103" and "number out of range" in got.issues[-1].message


# ---- rule 3: tolerant decoding, strict reports the first recovery code -------------------------------


def test_strict_failure_is_the_first_recovery_needed() -> None:
    inner = '{"name": "f", "arguments": {"a": "x\ny", "b": True,}}'
    lenient, strict = both(inner)
    assert codes(lenient) == ["HT204", "HT202", "HT203"]
    assert strict.failure == "HT204" and codes(strict) == ["HT204"]
    assert strict.issues[0].message.endswith("; not recovered in strict mode")


def test_one_issue_per_code_at_the_first_place() -> None:
    inner = "{'name': 'f', 'arguments': {'a': 1,}, 'x': [1,],}"
    got = decode_call_body(inner, strict=False)
    assert codes(got) == ["HT202", "HT203", "HT108"]
    assert (got.issues[0].start, got.issues[0].end) == (1, 7)  # 'name'
    assert got.issues[1].start == inner.index(",}")


def test_ht103_position_and_message() -> None:
    inner = '{"name": "f", "arguments": {"a": 1 "b": 2}}'
    got = decode_call_body(inner, strict=False)
    assert got.failure == "HT103"
    assert (got.issues[0].start, got.issues[0].end) == (inner.index('"b"'), len(inner))
    assert got.issues[0].message == "not JSON: expected ',' or '}' after object member at 1:36"
    assert got.name == "f"


def test_ht103_line_column_counts_lines() -> None:
    inner = '\n{"name": "f",\n  "arguments": {oops}}'
    got = decode_call_body(inner, strict=False)
    assert got.failure == "HT103" and got.issues[0].message.endswith("at 3:17")


def test_truncation_needs_an_open_block() -> None:
    inner = '\n{"name": "get_weather", "arguments": {"location": "Bos'
    assert decode_call_body(inner, strict=False, closed=False).failure == "HT102"
    assert decode_call_body(inner, strict=False, closed=True).failure == "HT103"
    assert decode_call_body(inner, strict=False, closed=False).name == "get_weather"


def test_seed6_second_concatenated_object_truncated() -> None:
    inner = '{"name": "a", "arguments": {}}{"name": "b", "arguments": {"x": "y'
    got = decode_call_body(inner, strict=False, closed=False)
    assert got.failure == "HT102" and got.name == "a"


def test_garbage_that_is_not_a_prefix_is_ht103_even_when_open() -> None:
    got = decode_call_body('{"name": "f", "arguments": {"a": 1}} and more', strict=False, closed=False)
    assert got.failure == "HT103" and got.issues[0].start == 37


# ---- rule 4: value shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inner", "what"),
    [('"get_weather"', "string"), ("42", "number"), ("null", "null"), ("[]", "empty array"),
     ("[1, 2]", "non-objects"), ('[{"name": "a", "arguments": {}}, 3]', "non-objects")],
)
def test_not_a_call_object_is_ht107(inner: str, what: str) -> None:
    for got in both(inner):
        assert got.failure == "HT107" and codes(got) == ["HT107"]
        assert what in got.issues[0].message


def test_concatenated_non_object_is_ht107() -> None:
    got = decode_call_body('{"name": "a", "arguments": {}} [1]', strict=False)
    assert got.failure == "HT107" and codes(got) == ["HT208", "HT107"]


def test_array_element_without_name_fails_the_whole_block() -> None:
    inner = '[{"name": "a", "arguments": {}}, {"arguments": {}}]'
    lenient, strict = both(inner)
    assert lenient.failure == "HT104" and codes(lenient) == ["HT206", "HT104"] and lenient.calls == ()
    assert lenient.name == "a"
    assert lenient.issues[-1].start == inner.index('{"arguments"')
    assert strict.failure == "HT206"


def test_array_calls_get_spaced_arguments_json() -> None:
    got = decode_call_body('[{"name":"a","arguments":{"x":1}}]', strict=False)
    assert calls(got) == [("a", {"x": 1}, '{"x": 1}')]


# ---- rule 5: the call object -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ['""', "5", "null", '["f"]'])
def test_bad_name_is_ht104(name: str) -> None:
    inner = '{"name": ' + name + ', "arguments": {}}'
    for got in both(inner):
        assert got.failure == "HT104" and got.name is None
        assert inner[got.issues[-1].start : got.issues[-1].end] == name


@pytest.mark.parametrize("args", ["[1, 2]", "5", "null", "true", '"[1]"', '"5"', '"\\"{}\\""', '"not json"'])
def test_bad_arguments_is_ht105_never_coerced(args: str) -> None:
    inner = '{"name": "f", "arguments": ' + args + "}"
    for got in both(inner):
        assert got.failure == "HT105" and got.calls == () and got.name == "f"
        assert inner[got.issues[-1].start : got.issues[-1].end] == args


def test_alias_order_and_unused_alias_is_extra() -> None:
    got = decode_call_body('{"name": "f", "parameters": {"a": 1}, "args": {"b": 2}}', strict=False)
    assert calls(got) == [("f", {"a": 1}, '{"a": 1}')]
    assert codes(got) == ["HT205", "HT108"]
    got = decode_call_body('{"name": "f", "arguments": {}, "parameters": {"b": 2}}', strict=True)
    assert calls(got) == [("f", {}, "{}")] and codes(got) == ["HT108"]


def test_alias_before_name_is_ht109_too() -> None:
    got = decode_call_body('{"args": {"a": 1}, "name": "f"}', strict=False)
    assert codes(got) == ["HT205", "HT109"]


def test_stringified_arguments_with_raw_newline_outside() -> None:
    inner = '{"name": "f", "arguments": "{\n  \\"a\\": 1\n}"}'
    lenient, strict = both(inner)
    assert calls(lenient) == [("f", {"a": 1}, '{\n  "a": 1\n}')]
    assert codes(lenient) == ["HT204", "HT201"]
    assert strict.failure == "HT204"


def test_stringified_arguments_needing_recovery_inside() -> None:
    got = decode_call_body('{"name": "f", "arguments": "{\\"a\\": 1,}"}', strict=False)
    assert calls(got) == [("f", {"a": 1}, '{"a": 1}')]
    assert codes(got) == ["HT201", "HT203"]
    assert got.issues[1].start == got.issues[0].start  # inner recoveries point at the string value


def test_warnings_are_not_failures_in_strict_mode() -> None:
    inner = '{"arguments": {"x": 1}, "name": "f", "id": "call_1"}'
    strict = decode_call_body(inner, strict=True)
    assert strict.failure is None and codes(strict) == ["HT108", "HT109"]
    assert calls(strict) == [("f", {"x": 1}, '{"x": 1}')]


def test_lenient_failure_keeps_earlier_recoveries() -> None:
    got = decode_call_body("{'name': 'f', 'arguments': [1]}", strict=False)
    assert got.failure == "HT105" and codes(got) == ["HT202", "HT105"]


# ---- response_name --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "name"),
    [
        ('{"name": "get_time", "content": "21:04"}', "get_time"),
        ('\n {"content": {"a": 1}, "name": "f"} \n', "f"),
        ('{"n\\u0061me": "f", "content": null}', "f"),
        ('{"name": "get_stock_fundamentals", "content": {\'dividend_yield\': None}}', None),  # Hermes-FC#3: not JSON
        ('{"name": "f", "content": 1, "x": 2}', None),
        ('{"name": 5, "content": 1}', None),
        ('{"name": "f"}', None),
        ("{'name': 'f', 'content': 'x'}", None),
        ("21:04", None),
        ("", None),
        ('["name", "content"]', None),
    ],
)
def test_response_name(content: str, name: str | None) -> None:
    assert response_name(content) == name


# ---- decode_tools_block ------------------------------------------------------------------------------------

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": 'Get the "current" weather, e.g. {"city": "Paris"}',
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"},
                "parameters": {"type": "object", "description": "A nested property named parameters"},
            },
            "required": ["location"],
        },
    },
}
NOW: dict[str, Any] = {"type": "function", "function": {"name": "now", "description": "The time.",
                                       "parameters": {"type": "object", "properties": {}}}}
USER: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]


def _tools_inner(rendered: str) -> str:
    """The catalogue: the first `<tools>` block after the prose mention `<tools></tools>`."""
    start = rendered.index("<tools>", rendered.index("<tools></tools>") + 15) + 7
    return rendered[start : rendered.index("</tools>", start)]


@pytest.mark.parametrize("template", ["NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
                                      "tool_chat_template_hermes.jinja"])
def test_tools_block_hermes_pseudo_json(template: str) -> None:
    rendered = jinja_render(template_source(template), USER, [WEATHER, TIME, NOW], True,
                            {"bos_token": "<|begin_of_text|>"})
    inner = _tools_inner(rendered)
    assert jsonio.loads_or_none(inner.strip()) is None  # really not JSON
    tools = decode_tools_block(inner)
    assert [t["function"]["name"] for t in tools] == ["get_weather", "get_time", "now"]
    for got, want in zip(tools, (WEATHER, TIME, NOW), strict=True):
        assert got["type"] == "function"
        assert got["function"]["parameters"] == (want["function"]["parameters"]
                                                 if want["function"]["parameters"]["properties"] else {})
        assert want["function"]["description"] in got["function"]["description"]  # written with a signature
    assert tools[0]["function"]["description"].startswith("get_weather(location: str, unit: str, parameters: dict)")
    assert "\n    Args:\n" in tools[1]["function"]["description"]


def test_tools_block_hermes_description_containing_the_parameters_marker() -> None:
    tricky: dict[str, Any] = {"type": "function", "function": {
        "name": "weird",
        "description": 'Has ", "parameters": {"x": 1}} inside and "quotes"',
        "parameters": {"type": "object", "properties": {
            "a": {"type": "string", "description": "x"},
            "b": {"type": "string", "description": 'y", "parameters": {"z": 2}}'},
        }},
        "return": {"type": "string", "description": "the result"},
    }}
    rendered = jinja_render(template_source("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"), USER,
                            [tricky, TIME], True, {"bos_token": ""})
    tools = decode_tools_block(_tools_inner(rendered))
    assert [t["function"]["name"] for t in tools] == ["weird", "get_time"]
    assert tools[0]["function"]["parameters"] == tricky["function"]["parameters"]
    description = tools[0]["function"]["description"]
    assert description.startswith('weird(a: str, b: str) -> str - Has ", "parameters": {"x": 1}} inside')
    assert description.endswith("\n    Returns:\n        the result")


@pytest.mark.parametrize("template", ["Qwen-Qwen3-0.6B.jinja", "Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-QwQ-32B.jinja"])
def test_tools_block_qwen_one_json_per_line(template: str) -> None:
    rendered = jinja_render(template_source(template), USER, [WEATHER, TIME, NOW], True)
    assert decode_tools_block(_tools_inner(rendered)) == (WEATHER, TIME, NOW)


def test_tools_block_omp_compact_lines() -> None:
    shared_file("reference/omp-dialect.md")
    inner = "\n" + "\n".join(jsonio.dumps_compact(t) for t in (WEATHER, NOW)) + "\n"
    assert decode_tools_block(inner) == (WEATHER, NOW)
    ls = '{"type":"function","function":{"name":"ls","description":"","parameters":{"type":"object","properties":{}}}}'
    assert decode_tools_block("\n" + ls + "\n")[0]["function"]["name"] == "ls"


def test_tools_block_json_array_and_python_literal_list() -> None:
    assert decode_tools_block(" " + json.dumps([WEATHER, TIME]) + " ") == (WEATHER, TIME)
    nous = " " + str([TIME, {"type": "function", "function": {"name": "x", "description": None, "strict": True}}]) + " "
    assert nous.startswith(" [{'type': 'function'")
    got = decode_tools_block(nous)
    assert got[0] == TIME and got[1]["function"] == {"name": "x", "description": None, "strict": True}


@pytest.mark.parametrize(
    "inner", ["", "  ", "no tools here", "[1, 2]", '{"a": 1}\nnot json', '{"type": "function", "fu']
)
def test_tools_block_unreadable(inner: str) -> None:
    assert decode_tools_block(inner) == ()


@pytest.mark.parametrize(
    "inner", ["", "  ", "no tools here", "[1, 2]", '{"a": 1}\nnot json', '{"type": "function", "fu']
)
def test_read_tools_block_is_decode_plus_what_was_not_read(inner: str) -> None:
    tools, unread = read_tools_block(inner)
    assert tools == decode_tools_block(inner) == ()
    assert unread == ((inner.strip(),) if inner.strip() else ())


def _hermes_line(name: str) -> str:
    head = '{"type": "function", "function": {"name": "' + name
    return head + '", "description": "' + name + '() - d\n\n", "parameters": {}}'


def test_regression_read_tools_block_names_the_hermes_chunks_it_dropped() -> None:
    # the Hermes layout: a, b, then junk in b's chunk gave ['a'] and no word of the rest
    inner = " " + _hermes_line("a") + "\n" + _hermes_line("b") + "\nxyz} "
    tools, unread = read_tools_block(inner)
    assert [t["function"]["name"] for t in tools] == ["a"] and tools == decode_tools_block(inner)
    assert unread == (_hermes_line("b") + "\nxyz}",)
    # a chunk that cannot be read between two good ones, and text before the first tool
    bad = '{"type": "function", "function": {"name": "c", broken}'
    inner = "junk\n" + _hermes_line("a") + "\n" + bad + "\n" + _hermes_line("b")
    tools, unread = read_tools_block(inner)
    assert [t["function"]["name"] for t in tools] == ["a", "b"] and tools == decode_tools_block(inner)
    assert unread == ("junk", bad)


def test_tools_block_vllm_parameterless_tool_not_json_either() -> None:
    # vLLM's copy renders `"parameters": {}` too, and an empty `tools` gives two spaces only
    rendered = jinja_render(template_source("tool_chat_template_hermes.jinja"), USER, [], True)
    assert decode_tools_block(_tools_inner(rendered)) == ()


def test_big_integers_survive() -> None:
    got = decode_call_body('{"name": "f", "arguments": {"n": 123456789012345678901234567890}}', strict=True)
    assert got.calls[0].arguments == {"n": 123456789012345678901234567890}


# ---- properties -------------------------------------------------------------------------------------------

# integers beyond 64 bits included: jsonio.loads keeps them exact (regression: test_big_integers_survive)
_ints = st.integers()
_scalars = st.none() | st.booleans() | _ints | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)
_objects = st.dictionaries(st.text(max_size=10), _values, max_size=5)
_names = st.text(min_size=1, max_size=20)


@settings(max_examples=examples(300))
@given(
    st.lists(st.sampled_from([*"{}[]\"',:;\\ \n\t\x00\x1féx1-", "True", "None", "name", "arguments", "args",
                              '"name": ', "'name': ", '"arguments": ', "\\u00", "\\'", "[{"]),
             max_size=30).map("".join),
    st.booleans(),
    st.booleans(),
)
@example("{'name': 'f', 'arguments': {'a': '\\", False, False)
@example('[{"name": "a"}, {"name": ""}]', False, True)
@example('"\\ud800"', True, True)
def test_property_never_raises(inner: str, strict: bool, closed: bool) -> None:
    count("body: never raises")
    got = decode_call_body(inner, strict=strict, closed=closed)
    assert (got.failure is None) == bool(got.calls)
    if got.failure is not None:
        assert got.issues[-1].code == got.failure
        assert got.failure in CATALOGUE
    for issue in got.issues:
        assert 0 <= issue.start <= issue.end <= len(inner)
    for call in got.calls:
        assert jsonio.loads(call.arguments_json) == call.arguments


@settings(max_examples=examples(300))
@given(_names, _objects, st.sampled_from([None, 0, 2]), st.sampled_from([(", ", ": "), (",", ":"), (" ,", ":  ")]),
       st.booleans(),
       st.sampled_from(["", "\n", " \n  "]))
@example("f", {"q": "what's the weather"}, None, (", ", ": "), False, "")
@example("f", {"s": "</tool_call> } \\\" ]"}, 2, (",", ":"), True, "\n")
@example("f", {}, None, (", ", ":  "), False, "")
def test_property_json_calls_decode_exactly(
    name: str, arguments: dict[str, Any], indent: int | None, seps: tuple[str, str], ascii_: bool, pad: str
) -> None:
    count("body: JSON call decodes exactly")
    inner = pad + json.dumps({"name": name, "arguments": arguments}, indent=indent, separators=seps,
                             ensure_ascii=ascii_) + pad
    for strict in (True, False):
        got = decode_call_body(inner, strict=strict)
        assert got.failure is None and got.issues == ()
        assert [(c.name, c.arguments) for c in got.calls] == [(name, arguments)]
        assert jsonio.loads(got.calls[0].arguments_json) == arguments
        assert got.calls[0].arguments_json in inner  # the raw slice
        assert got.calls[0].arguments_json == got.calls[0].arguments_json.strip(" \t\n\r")


@settings(max_examples=examples(300))
@given(_names, _objects, st.booleans())
@example("get_stock_fundamentals", {"symbol": "TSLA", "q": "it's \"x\"", "n": None, "ok": True}, True)
@example("f", {"a": "\n\t\\'\""}, False)
def test_property_python_repr_decodes_leniently(name: str, arguments: dict[str, Any], args_first: bool) -> None:
    count("body: repr() call decodes leniently")
    obj = {"arguments": arguments, "name": name} if args_first else {"name": name, "arguments": arguments}
    got = decode_call_body(repr(obj), strict=False)
    assert got.failure is None
    assert [(c.name, c.arguments) for c in got.calls] == [(name, arguments)]
    assert "HT202" in codes(got)
    assert ("HT109" in codes(got)) == args_first
    assert jsonio.loads(got.calls[0].arguments_json) == arguments
    assert decode_call_body(repr(obj), strict=True).failure == "HT202"
