"""The jsonschema-rs first pass gives jsonschema's verdict on every schema it is used for."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall._fastschema import compile_fast, fast_safe, fast_valid
from hermes_toolcall._schema import load_tools

pytest.importorskip("jsonschema_rs", reason="the [fast] extra (jsonschema-rs) is not installed")
pytestmark = pytest.mark.ci_required("the [fast] extra is installed by .ci/run")

_NUM = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.5, -1.5, 2**70, 1e20]))
_TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | _NUM | st.text(max_size=4) | st.sampled_from(["", "é", "😀😀", "\ud800"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from("abcx"), kids, max_size=3),
    max_leaves=8,
)


def _schemas() -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.booleans(),
        st.fixed_dictionaries({"type": _TYPES | st.lists(_TYPES, min_size=1, max_size=3, unique=True)}),
        st.fixed_dictionaries({"enum": st.lists(_VALUES, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"const": _VALUES}),
        st.fixed_dictionaries({}, optional={"minimum": _NUM, "maximum": _NUM, "exclusiveMinimum": _NUM,
                                            "exclusiveMaximum": _NUM}),
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
