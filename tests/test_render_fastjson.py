"""``_fastjson.spaced`` is byte-identical to ``jsonio.dumps_spaced`` (Python's ``json.dumps``)."""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass
from enum import Enum
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._fastjson import spaced, spaced_compact
from hermes_toolcall._jsonio import dumps_spaced

#: pieces aimed at the split at ``"`` (escaped quotes and backslashes in every order, separators and
#: separator-like text inside strings, control characters used as masks, ``null`` and float-like text)
_NASTY = [",", ":", ", ", '":"', '": "', '","', "1.5e+3", "\\", '\\"', '"', '\\\\"', '\\\\', "\x00", "\x01",
          "\x02", "\n", "null", "NaN", "é東", "\u2028", "\ud800", "\udfff", "{", "}]", "true,false"]
_text = st.one_of(st.text(st.characters(codec="utf-8"), max_size=6), st.sampled_from(_NASTY),
                  st.lists(st.sampled_from(_NASTY), max_size=5).map("".join),
                  st.text(st.characters(), max_size=6))  # surrogates too
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), _text,
                    st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**30, 0.0, -0.0, 1e16, 1e-5, 1.5e300]))
_value = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple), st.dictionaries(_text, inner, max_size=3)),
    max_leaves=8)


@settings(max_examples=300)
@given(value=_value)
@example(value=[float("nan")])  # orjson writes NaN as null: must not pass as identical
@example(value={"a": float("inf")})
@example(value={"t": "12:30, ok"})  # separators inside a string
@example(value={"x": 0.00001})  # orjson writes 0.00001, Python 1e-05
@example(value=[(1,)])
@example(value={"a": 'x\\", "b": 1, "c\\\\', "b": ['\\\\"', ":,"]})  # escaped quotes and backslashes
@example(value=[[[[[[[[[[[[[[[[["deep, :"]]]]]]]]]]]]]]]]])
@example(value={"n": None, "t": True, "f": False, "x": 2**64})  # beyond orjson's integers
def test_spaced_is_json_dumps(value: Any) -> None:
    assert spaced(value) == dumps_spaced(value)


def test_spaced_is_json_dumps_deeply_nested() -> None:
    for depth in (100, 254, 255, 256, 300):
        value: Any = "x, y"
        for k in range(depth):
            value = {"k:": value} if k % 2 else [value, ", "]
        assert spaced(value) == dumps_spaced(value)


class _Plain(Enum):
    A = "a"


class _Str(str):
    pass


class _Int(int):
    pass


@dataclass
class _Point:
    x: int


@pytest.mark.parametrize("value", [
    {"u": uuid.UUID(int=1)}, {"e": _Plain.A}, [_Plain.A], {"d": datetime.date(2020, 1, 1)},
    {"t": datetime.datetime(2020, 1, 1, 12, 30)}, {"p": _Point(1)}, [_Point(1)], {"s": _Str("x, y")},
    {_Str("k"): 1}, {"i": _Int(3)}, [_Int(3)], {"f": orjson.Fragment(b"1")}, {"b": b"x"},
])
def test_spaced_never_writes_what_json_dumps_refuses(value: Any) -> None:
    # orjson writes UUIDs, enums, dates, dataclasses and fragments its own way; json.dumps refuses some of
    # them and writes subclasses of str/int as their base type: spaced does exactly what json.dumps does
    try:
        expected: str | None = dumps_spaced(value)
    except TypeError:
        expected = None
    if expected is None:
        with pytest.raises(TypeError):
            spaced(value)
    else:
        assert spaced(value) == expected


@settings(max_examples=300)
@given(value=_value)
def test_spaced_compact_is_json_dumps_or_unsure(value: Any) -> None:
    try:
        compact = orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return  # not the writer's input (the caller falls back)
    if orjson.loads(compact) != value:
        return  # a tuple, a NaN or an infinity: not plain JSON types (the caller's part)
    text = spaced_compact(compact)
    assert text is None or text == dumps_spaced(value)
    if "." not in compact and "e" not in compact.replace("true", "").replace("false", ""):
        assert text is not None  # no float, no float-like text outside the strings: never unsure


@pytest.mark.parametrize("value", [{1: "int key"}, {"a": {1, 2}}, object()])
def test_spaced_raises_like_json_dumps(value: Any) -> None:
    try:
        expected: str | None = dumps_spaced(value)
    except TypeError:
        expected = None
    if expected is None:
        with pytest.raises(TypeError):
            spaced(value)
    else:
        assert spaced(value) == expected


def test_strings_match_json_dumps_for_every_code_point() -> None:
    # the str fast path of `spaced` relies on orjson escaping exactly like json.dumps(ensure_ascii=False)
    import json

    chars = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    for start in range(0, len(chars), 4096):
        s = "".join(chars[start : start + 4096]) + '"\\'
        assert spaced(s) == json.dumps(s, ensure_ascii=False)
    assert spaced("\ud800 lone") == json.dumps("\ud800 lone", ensure_ascii=False)


@pytest.mark.parametrize("dialect", ["qwen2.5", "qwen3", "hermes"])
@pytest.mark.parametrize("value", [datetime.date(2020, 1, 1), uuid.UUID(int=1), _Plain.A])
def test_regression_a_value_json_dumps_refuses_is_refused_as_the_template_does(dialect: str, value: Any) -> None:
    # main before this change wrote a date or a UUID in flat call arguments as orjson does (a string), where the
    # template's tojson (json.dumps) raises: the render must refuse exactly where the oracle crashes
    from helpers import template_source
    from hermes_toolcall import RenderError, render
    from hermes_toolcall.render._oracle import OracleCrash, oracle_render_dialect

    template_source("Qwen-Qwen3-0.6B.jinja")  # skips when ../shared is absent
    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"a": {"type": "string", "default": value}}}}}]
    user = {"role": "user", "content": "hi"}
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": {"a": value}}}]}
    for msgs, listed in (([user], tools), ([user, call], [])):
        with pytest.raises(OracleCrash, match="not JSON serializable"):
            oracle_render_dialect(msgs, dialect=dialect, tools=listed)
        with pytest.raises(RenderError, match="not JSON serializable"):
            render(msgs, tools=listed, dialect=dialect)


@settings(max_examples=300)
@given(value=st.dictionaries(_text, st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), _text),
                             max_size=4))
@example(value={"a": "x:y", "b,": 1})  # one separator in a string, one missing: the counts must not be fooled
@example(value={"a:": "", "b": "1,2"})
def test_spaced_flat_objects_are_json_dumps(value: dict[str, Any]) -> None:
    # the flat-object shortcut (counts of ":" and "," against the keys) aimed at with separators in keys and values
    assert spaced(value) == dumps_spaced(value)


@pytest.mark.parametrize("dialect", ["qwen2.5", "hermes", "qwen3.5"])
@pytest.mark.parametrize("value", [uuid.UUID(int=1), _Plain.A])
def test_regression_tools_orjson_writes_alike_do_not_share_a_cached_prompt(dialect: str, value: Any) -> None:
    # the tools prompt is memoised by the tools' orjson text, which a UUID or an Enum member shares with its
    # string: on main a render of such tools after one with the string returned the cached prompt, where the
    # template's tojson raises (as the same render does on its own)
    from hermes_toolcall import RenderError, render

    def tools(default: Any) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {
            "type": "object", "properties": {"a": {"type": "string", "default": default}}}}}]

    msgs = [{"role": "user", "content": "hi"}]
    with pytest.raises(RenderError, match="not JSON serializable"):
        render(msgs, tools=tools(value), dialect=dialect)
    as_text = value.value if isinstance(value, Enum) else str(value)
    render(msgs, tools=tools(as_text), dialect=dialect)
    with pytest.raises(RenderError, match="not JSON serializable"):
        render(msgs, tools=tools(value), dialect=dialect)
    assert render(msgs, tools=tools((as_text,)), dialect=dialect) == render(msgs, tools=tools([as_text]),
                                                                            dialect=dialect)
