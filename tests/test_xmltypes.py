"""_xmltypes: an XML parameter's text read as the JSON value its schema allows (docs/parsing.md §8.2)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._xmltypes import allowed_types, parameter_schema, type_value
from hermes_toolcall.testing._xml import xml_arguments, xml_value

# (text, schema, value, json text, problem)
CASES: list[tuple[str, Any, Any, str, str | None]] = [
    ("Paris", {"type": "string"}, "Paris", '"Paris"', None),
    ("42", {"type": "string"}, "42", '"42"', None),
    ("True", {"type": "string"}, "True", '"True"', None),
    ("  padded  ", {"type": "string"}, "  padded  ", '"  padded  "', None),
    ("42", {"type": "integer"}, 42, "42", None),
    (" 42 ", {"type": "integer"}, 42, "42", None),
    ("12345678901234567890", {"type": "integer"}, 12345678901234567890, "12345678901234567890", None),
    ("12345678901234567890", {"type": "number"}, 12345678901234567890, "12345678901234567890", None),
    ("3.0", {"type": "integer"}, 3.0, "3.0", None),
    ("3.5", {"type": "integer"}, "3.5", '"3.5"', "untyped"),
    ("007", {"type": "integer"}, "007", '"007"', "untyped"),
    ("abc", {"type": "integer"}, "abc", '"abc"', "untyped"),
    ("3.0", {"type": "number"}, 3.0, "3.0", None),
    ("1e-07", {"type": "number"}, 1e-07, "1e-07", None),
    ("1e400", {"type": "number"}, math.inf, "1e400", None),
    ("NaN", {"type": "number"}, "NaN", '"NaN"', "untyped"),
    ("True", {"type": "boolean"}, True, "true", None),
    ("false", {"type": "boolean"}, False, "false", None),
    ("yes", {"type": "boolean"}, "yes", '"yes"', "untyped"),
    ("None", {"type": "null"}, None, "null", None),
    ("None", {"anyOf": [{"type": "string"}, {"type": "null"}]}, None, "null", None),
    ("None", {"type": ["integer", "null"]}, None, "null", None),
    ("None", {"type": "integer"}, "None", '"None"', "untyped"),
    ("null", {"type": "string"}, "null", '"null"', None),
    ("None", {"type": "string", "nullable": True}, None, "null", None),
    ("42", {"type": ["string", "null"]}, "42", '"42"', None),
    ("42", {"type": ["integer", "string"]}, 42, "42", None),
    ('{"k": "v"}', {"type": "object"}, {"k": "v"}, '{"k": "v"}', None),
    ("{'k': True}", {"type": "object"}, {"k": True}, '{"k": true}', "repaired"),
    ("[1, true, null]", {"type": "array"}, [1, True, None], "[1, true, null]", None),
    ("[1, 'a',]", {"type": "array"}, [1, "a"], '[1, "a"]', "repaired"),
    ("[1]", {"type": "object"}, "[1]", '"[1]"', "untyped"),
    (
        "\"{'key': 'value', 'n': 1}\"",
        {"type": "object"},
        {"key": "value", "n": 1},
        '{"key": "value", "n": 1}',
        "repaired",
    ),
    ('"[1, 2]"', {"type": "array"}, [1, 2], "[1, 2]", "repaired"),
    ('"[1, 2]"', {"type": "string"}, '"[1, 2]"', '"\\"[1, 2]\\""', None),
    ("celsius", {"type": "string", "enum": ["celsius", "fahrenheit"]}, "celsius", '"celsius"', None),
    ("2", {"enum": [1, 2, "2"]}, 2, "2", None),
    ("x", {"enum": [1, 2]}, "x", '"x"', "untyped"),
    ("True", {"enum": ["True", True]}, True, "true", None),
    ("abc", {"$ref": "#/defs/x"}, "abc", '"abc"', None),
    ("7", {"description": "no type"}, 7, "7", None),
]


@pytest.mark.parametrize(("text", "schema", "value", "json_text", "problem"), CASES)
def test_typing_table(text: str, schema: Any, value: Any, json_text: str, problem: str | None) -> None:
    typed = type_value(text, schema)
    assert typed.json == json_text
    assert typed.problem == problem
    assert type(typed.value) is type(value) and typed.value == value


# without a schema: null, booleans, JSON numbers and strict JSON containers; everything else a string
SCHEMALESS = [
    ("None", None, "null"),
    ("null", None, "null"),
    ("False", False, "false"),
    ("42", 42, "42"),
    ("-0.5", -0.5, "-0.5"),
    ('{"a": [1]}', {"a": [1]}, '{"a": [1]}'),
    ("{'a': 1}", "{'a': 1}", "\"{'a': 1}\""),
    ("007", "007", '"007"'),
    (" Paris ", " Paris ", '" Paris "'),
    ("", "", '""'),
]


@pytest.mark.parametrize(("text", "value", "json_text"), SCHEMALESS)
def test_without_schema(text: str, value: Any, json_text: str) -> None:
    typed = type_value(text, None, found=False)
    assert (typed.value, typed.json, typed.problem) == (value, json_text, None)


def test_allowed_types() -> None:
    assert allowed_types({"type": "integer"}) == {"integer"}
    assert allowed_types({"type": ["integer", "null"]}) == {"integer", "null"}
    assert allowed_types({"oneOf": [{"type": "string"}, {"type": "array"}]}) == {"string", "array"}
    assert allowed_types({"anyOf": [{"type": "string"}, {}]}) is not None  # an open alternative: any
    assert allowed_types({"type": "object", "anyOf": [{"type": "object"}, {"type": "null"}]}) == {"object"}
    assert allowed_types({"type": "float"}) is None  # a name JSON Schema does not have: as if no type
    assert allowed_types(True) is None


def test_parameter_schema() -> None:
    params = {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}
    assert parameter_schema(params, "a") == (True, {"type": "string"})
    assert parameter_schema(params, "b") == (True, {"type": "integer"})
    assert parameter_schema({"properties": {}, "additionalProperties": False}, "b") == (False, None)
    assert parameter_schema(None, "a") == (False, None)


@given(xml_arguments())
def test_rendered_values_read_back_by_their_schema(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """What the templates write for a value is read back as that value, given the value's schema."""
    schema, arguments = case
    for key, value in arguments.items():
        typed = type_value(xml_value(value), schema["properties"][key])
        assert typed.problem is None
        assert jsonio.loads(typed.json) == typed.value or typed.value != typed.value  # NaN never occurs here
        assert _json_equal(typed.value, value), (key, value, typed)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (a is None) == (b is None)


@given(st.text(max_size=30), st.sampled_from([None, {"type": "integer"}, {"type": "object"}, {"enum": [1, "a"]}]))
def test_typing_is_total(text: str, schema: Any) -> None:
    """Any text and schema give a value and valid JSON text for it; a string stays exactly the text."""
    typed = type_value(text, schema, found=schema is not None)
    assert _json_equal(jsonio.loads(typed.json), typed.value) or isinstance(typed.value, float)
    if isinstance(typed.value, str):
        assert typed.value == text


_LITERAL_PIECES = ["null", "None", "true", "True", "false", "False", "NaN", "nan", "n", "t", "f", "N", "T", "F", "-",
                   "1", "[", "{", " ", "\n", "\t", "\r", "now", "x", "é", "ull", "rue"]


@given(text=st.one_of(st.lists(st.sampled_from(_LITERAL_PIECES), max_size=4).map("".join), st.text(max_size=8)))
def test_schemaless_string_only_when_the_reading_is_the_string(text: str) -> None:
    # schemaless_string is the guard's and the reader's shortcut: when it says "the string itself", reading the
    # text without a schema (every non-string reading tried) must give exactly that string
    from hermes_toolcall._xmltypes import schemaless_string

    typed = type_value(text, None, found=False)
    if schemaless_string(text):
        assert typed.value == text and type(typed.value) is str
    if not (type(typed.value) is str and typed.value == text):
        assert not schemaless_string(text)
