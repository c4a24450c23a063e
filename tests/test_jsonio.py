"""The one JSON module: strict decoding with positions, and the exact encodings rendering needs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall._jsonio import dumps_compact, dumps_fast, dumps_spaced, loads, loads_or_none
from hermes_toolcall.errors import DecodeError, HermesError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


def test_strict_decoding_and_error_position() -> None:
    assert loads('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    with pytest.raises(DecodeError) as err:
        loads('{"a": 1,}')
    assert err.value.position == 8
    assert isinstance(err.value, HermesError)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "{'a': 1}", "", "1 2"])
def test_rejects_non_json(text: str) -> None:
    with pytest.raises(DecodeError):
        loads(text)
    assert loads_or_none(text) is None


def test_values_orjson_cannot_hold_still_decode() -> None:
    for big in (2**64, 2**70, -(2**63) - 1, 10**30):
        value = loads(f"[{big}]")[0]
        assert type(value) is int and value == big
    assert loads('"\\ud800"') == "\ud800"


@given(json_values)
def test_encodings_match_python_json(value: object) -> None:
    assert dumps_spaced(value) == json.dumps(value, ensure_ascii=False)
    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert loads(dumps_fast(value)) == loads(dumps_compact(value))


def test_spaced_keeps_non_ascii_and_order() -> None:
    assert dumps_spaced({"z": "北京", "a": "<&>'"}) == '{"z": "北京", "a": "<&>\'"}'
