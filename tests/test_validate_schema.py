"""Argument checking against the tools' JSON Schemas, including the reference validator's known gaps.

The NousResearch ``validator.py`` (field-failures.md §4) skips falsy values, lets ``True`` pass as an
integer, ignores nested objects, array items, ``additionalProperties`` and non-string enums: each of
those is caught here.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._schema import load_tools


def _tool(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    params = {"type": "object", "properties": properties, "required": required or [], **extra}
    return {"type": "function", "function": {"name": "f", "parameters": params}}


def _errors(properties: dict[str, Any], args: Any, **kw: Any) -> list[str]:
    formats = kw.pop("formats", False)
    spec = load_tools([_tool(properties, **kw)]).tools["f"]
    return [f"{e.json_path}: {e.message}" for e in spec.check(args, formats=formats)]


def test_gap_falsy_zero_is_checked() -> None:
    assert _errors({"n": {"type": "integer", "minimum": 1}}, {"n": 0}) == ["$.n: 0 is less than the minimum of 1"]


def test_gap_falsy_empty_string_is_checked() -> None:
    assert _errors({"s": {"type": "integer"}}, {"s": ""}) == ["$.s: '' is not of type 'integer'"]


def test_gap_falsy_false_is_checked() -> None:
    assert _errors({"s": {"type": "string"}}, {"s": False}) == ["$.s: False is not of type 'string'"]


def test_gap_falsy_empty_list_is_checked() -> None:
    assert _errors({"xs": {"type": "array", "minItems": 1}}, {"xs": []}) == ["$.xs: [] should be non-empty"]


def test_gap_true_is_not_an_integer() -> None:
    assert _errors({"n": {"type": "integer"}}, {"n": True}) == ["$.n: True is not of type 'integer'"]


def test_gap_true_is_not_a_number() -> None:
    assert _errors({"x": {"type": "number"}}, {"x": True}) == ["$.x: True is not of type 'number'"]


def test_gap_nested_objects_are_checked() -> None:
    props = {"p": {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["name"]}}
    assert _errors(props, {"p": {"age": "x"}}) == [
        "$.p: 'name' is a required property",
        "$.p.age: 'x' is not of type 'integer'",
    ]


def test_gap_array_items_are_checked() -> None:
    props = {"xs": {"type": "array", "items": {"type": "string"}}}
    assert _errors(props, {"xs": ["a", 2]}) == ["$.xs[1]: 2 is not of type 'string'"]


def test_gap_additional_properties_are_checked() -> None:
    assert _errors({"a": {"type": "string"}}, {"a": "x", "b": 1}, additionalProperties=False) == [
        "$: Additional properties are not allowed ('b' was unexpected)"
    ]


def test_gap_non_string_enum_is_checked() -> None:
    assert _errors({"k": {"enum": [0, 1, None]}}, {"k": 2}) == ["$.k: 2 is not one of [0, 1, None]"]
    assert _errors({"k": {"enum": [1]}}, {"k": True}) == ["$.k: True is not one of [1]"]


def test_required_missing() -> None:
    assert _errors({"a": {"type": "string"}}, {}, required=["a"]) == ["$: 'a' is a required property"]


def test_formats_only_when_asked() -> None:
    props = {"to": {"type": "string", "format": "email"}}
    assert _errors(props, {"to": "not an email"}) == []
    assert _errors(props, {"to": "not an email"}, formats=True) == ["$.to: 'not an email' is not a 'email'"]


def test_schema_draft_from_dollar_schema() -> None:
    # Draft 4: exclusiveMaximum is a boolean modifier (2020-12 would reject the schema).
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 5, "exclusiveMaximum": True}},
    }
    tools = load_tools([{"name": "f", "parameters": schema}])
    assert tools.problems == ()
    assert [e.message for e in tools.tools["f"].check({"n": 5})] == ["5 is greater than or equal to the maximum of 5"]


def test_invalid_schema_is_a_problem_and_name_still_declared() -> None:
    tools = load_tools([_tool({"a": {"type": "strin"}})])
    assert [p.code for p in tools.problems] == ["HT305"]
    assert tools.names == {"f"}
    assert tools.tools["f"].check({"a": 1}) == ()


def test_duplicate_and_nameless_tools() -> None:
    tools = load_tools([_tool({}), _tool({}), {"type": "function", "function": {"description": "x"}}])
    assert [(p.index, p.code) for p in tools.problems] == [(1, "HT306"), (2, "HT305")]


def test_bare_function_objects_and_no_parameters() -> None:
    tools = load_tools([{"name": "now"}, {"name": "g", "parameters": {"type": "object"}}])
    assert tools.names == {"now", "g"}
    assert tools.tools["now"].check({"anything": 1}) == ()


def test_unresolvable_ref_is_reported_not_raised() -> None:
    tools = load_tools([_tool({"a": {"$ref": "https://example.invalid/schema.json"}})])
    errors = tools.tools["f"].check({"a": 1})
    assert len(errors) == 1 and "cannot be applied" in errors[0].message


@settings(max_examples=200)
@given(st.booleans())
@example(True)
@example(False)
def test_a_boolean_is_never_an_integer_or_number(value: bool) -> None:
    props = {"i": {"type": "integer"}, "x": {"type": "number"}}
    assert len(_errors(props, {"i": value, "x": value})) == 2


@settings(max_examples=200)
@given(st.integers(), st.floats(allow_nan=False, allow_infinity=False))
@example(0, 0.0)
def test_numbers_pass_their_types(i: int, x: float) -> None:
    assert _errors({"i": {"type": "integer"}, "x": {"type": "number"}}, {"i": i, "x": x}) == []
