"""The jsonschema-rs first pass gives jsonschema's verdict, so the findings are the same with or without it."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall import validate
from hermes_toolcall._fastschema import compile_fast, fast_safe, fast_valid, json_only
from hermes_toolcall._jsonio import parse_int
from hermes_toolcall._schema import _build, load_tools

pytest.importorskip("jsonschema_rs", reason="the [fast] extra (jsonschema-rs) is not installed")
pytestmark = pytest.mark.ci_required("the [fast] extra is installed by .ci/run")

_NUM = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.5, -1.5, 2**70, 1e20]))
# the nasty numbers: non-finite floats (1e999 decodes to inf), -0.0, ints beyond 64 bits and near 2**53,
# an int beyond Python's str limit (ExactInt, an int subclass), any float, any int
_NASTY_NUM = st.one_of(
    _NUM,
    st.sampled_from(
        [float("nan"), float("inf"), float("-inf"), -0.0, 2**64, 2**64 + 1, 2**53 + 1, float(2**53), 10**16 + 1, 1e16,
         -(2**63), 1e308, parse_int("9" * 5000)]
    ),
    st.floats(),
    st.integers(),
)
_TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _NUM | st.text(max_size=4) | st.sampled_from(["", "é", "😀😀", "\ud800"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from("abcx"), kids, max_size=3),
    max_leaves=8,
)


# values a Python caller or a decoded row can hand over that are not JSON's own: tuples, dict subclasses,
# non-string keys, bytes, complex numbers
_FOREIGN = st.sampled_from([(1, 2), (), OrderedDict(a=1), {1: "a"}, b"x", 1 + 0j, ("x",)])
_NASTY: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _NASTY_NUM | st.text(max_size=4) | st.sampled_from(["", "é", "😀😀", "\ud800", "a\x00"])
    | _FOREIGN,
    lambda kids: st.lists(kids, max_size=3)
    | st.dictionaries(st.sampled_from("abcx") | st.text(max_size=2), kids, max_size=3)
    | st.tuples(kids),
    max_leaves=8,
)


def _schemas(num: st.SearchStrategy[Any] = _NUM) -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.booleans(),
        st.fixed_dictionaries({"type": _TYPES | st.lists(_TYPES, min_size=1, max_size=3, unique=True)}),
        st.fixed_dictionaries({"enum": st.lists(_VALUES, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"const": _VALUES}),
        st.fixed_dictionaries({}, optional={"minimum": num, "maximum": num, "exclusiveMinimum": num,
                                            "exclusiveMaximum": num}),
        st.fixed_dictionaries({}, optional={"minLength": st.integers(0, 3), "maxLength": st.integers(0, 3)}),
        st.fixed_dictionaries({}, optional={"minItems": st.integers(0, 2), "maxItems": st.integers(0, 3),
                                            "uniqueItems": st.booleans()}),
        st.fixed_dictionaries({"required": st.lists(st.sampled_from("abc"), max_size=2, unique=True)}),
        st.fixed_dictionaries({}, optional={"minProperties": st.integers(0, 2), "maxProperties": st.integers(0, 2)}),
    )

    def extend(kids: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("object")},
                optional={
                    "properties": st.dictionaries(st.sampled_from(["a", "b", "pattern", "format"]), kids, max_size=3),
                    "additionalProperties": kids,
                    "required": st.lists(st.sampled_from("ab"), max_size=2, unique=True),
                    "propertyNames": st.fixed_dictionaries({"maxLength": st.integers(0, 2)}),
                    "dependentRequired": st.just({"a": ["b"]}),
                },
            ),
            st.fixed_dictionaries({}, optional={"items": kids, "prefixItems": st.lists(kids, max_size=2),
                                                "contains": kids}),
            st.fixed_dictionaries({"anyOf": st.lists(kids, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"oneOf": st.lists(kids, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"allOf": st.lists(kids, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"not": kids}),
            st.fixed_dictionaries({"if": kids, "then": kids, "else": kids}),
        )

    return st.recursive(leaf, extend, max_leaves=6)


@settings(max_examples=400)
@given(schema=_schemas(), instances=st.lists(_VALUES, min_size=1, max_size=5))
def test_fast_verdicts_equal_jsonschema(schema: Any, instances: list[Any]) -> None:
    fast = compile_fast(schema)
    if fast is None:
        return
    slow = jsonschema.Draft202012Validator(schema)
    for instance in instances:
        if fast_valid(fast, instance):  # the only verdict the fast pass ever gives
            assert slow.is_valid(instance), (schema, instance)


def _numeric(num: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Schemas aimed at the numbers: a numeric keyword or const/enum, often under ``not`` (a flipped verdict)."""
    kw = st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
    one = st.one_of(
        st.builds(lambda k, v, t: {"type": t, k: v}, kw, num, st.sampled_from(["number", "integer"])),
        st.builds(lambda k, v: {k: v}, kw, num),
        st.builds(lambda v: {"const": v}, num),
        st.builds(lambda vs: {"enum": vs}, st.lists(num, min_size=1, max_size=3)),
        st.just({"type": "array"}),
        st.just({"type": "object"}),
        st.just({"uniqueItems": True}),
    )
    return st.one_of(one, one.map(lambda sub: {"not": sub}), one.map(lambda sub: {"items": {"not": sub}}))


@settings(max_examples=600, deadline=None)
@given(
    schema=st.one_of(_schemas(_NASTY_NUM), _numeric(_NASTY_NUM)),
    instances=st.lists(st.one_of(_NASTY, _NASTY_NUM, st.lists(_NASTY_NUM, max_size=3)), min_size=1, max_size=5),
)
@example(schema={"not": {"type": "number", "maximum": 0}}, instances=[float("nan")])  # rs: valid; jsonschema: not
@example(schema={"not": {"minimum": 0}}, instances=[float("inf")])
@example(schema={"type": "array"}, instances=[(1, 2)])  # a tuple is an array for rs, not for jsonschema
@example(schema={"const": float("nan")}, instances=[None])  # rs reads the schema's NaN as null
def test_findings_are_the_same_with_and_without_the_fast_pass(schema: Any, instances: list[Any]) -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {"x": schema}}}
    spec = _build([tool]).tools["f"]
    slow = dataclasses.replace(spec, fast=None)
    for instance in instances:
        arguments = {"x": instance}
        try:
            expected = slow.check(arguments)
        except RecursionError:  # pragma: no cover - not generated this deep
            continue
        assert spec.check(arguments) == expected, (schema, instance)


@pytest.mark.parametrize(
    ("x", "schema"),
    [
        (float("nan"), {"not": {"type": "number", "maximum": 0}}),
        ((1, 2), {"type": "array"}),
        (float("inf"), {"not": {"minimum": 0}}),  # jsonschema-rs agrees here; kept beside its NaN sibling
    ],
    ids=["nan", "tuple", "infinity"],
)
def test_fast_pass_does_not_hide_findings_of_non_json_values(x: Any, schema: Any) -> None:
    # nan, tuple: main before issue 24 reported nothing (jsonschema-rs found them valid, its verdict was taken)
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": schema}}}]
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": x}}}
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    assert validate(msgs, tools=tools).codes == ("HT302",)


def test_fast_pass_does_not_hide_findings_of_a_number_beyond_the_float_range() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1e999}'}}  # decodes to inf
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"not": {"minimum": 0}}}}}]
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    assert validate(msgs, tools=tools).codes == ("HT302",)


def test_a_schema_with_a_non_json_value_stays_with_jsonschema() -> None:
    assert compile_fast({"const": float("nan")}) is None
    assert compile_fast({"enum": [(1, 2)]}) is None
    assert compile_fast({"maximum": 1}) is not None


def test_json_only() -> None:
    assert json_only({"a": [1, -0.0, 2**70, None, True, "é", {"b": []}]})
    for bad in (float("nan"), float("-inf"), (1,), OrderedDict(), b"x", parse_int("9" * 5000), 1 + 0j, {"a": [{1}]}):
        assert not json_only({"a": [bad]}), bad


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "integer"}, True),
        ({"type": "number"}, False),
        ({"type": "integer"}, 1.0),
        ({"type": "integer"}, 2**70),
        ({"uniqueItems": True}, [1, True]),
        ({"uniqueItems": True}, [1, 1.0]),
        ({"enum": [1]}, True),
        ({"const": False}, 0),
        ({"maxLength": 1}, "😀"),
        ({"maxLength": 1}, "\ud800"),
        ({"type": "object", "properties": {"a": {"type": "integer"}}}, {"a": "\ud800x"}),
    ],
)
def test_fast_verdicts_on_nasty_cases(schema: Any, instance: Any) -> None:
    fast = compile_fast(schema)
    assert fast is not None
    slow = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert not fast_valid(fast, instance) or slow


def test_unsafe_schemas_stay_with_jsonschema() -> None:
    assert not fast_safe({"type": "string", "pattern": "^\\d$"})  # \d: ASCII in ECMA 262, Unicode in re
    assert not fast_safe({"patternProperties": {"^x": {}}})
    assert not fast_safe({"format": "email"})
    assert not fast_safe({"multipleOf": 0.1})  # jsonschema: 0.3 is not a multiple of 0.1 (binary floats)
    assert not fast_safe({"$ref": "https://example.com/s.json"})
    assert not fast_safe({"$defs": {"d": {"$ref": "#/$defs/d"}}, "$ref": "#/$defs/d"})  # a cycle: jsonschema fails
    assert not fast_safe({"$schema": "https://example.com/custom"})
    assert fast_safe({"properties": {"pattern": {"type": "string"}, "format": {}}})  # property names, not keywords
    spec = load_tools([{"name": "f", "parameters": {"properties": {"n": {"type": "string", "pattern": "^\\d$"}}}}])
    assert spec.tools["f"].fast is None
    assert [e.json_path for e in spec.tools["f"].check({"n": "٣"})] == []  # Python's re: Arabic-Indic digit is \d
