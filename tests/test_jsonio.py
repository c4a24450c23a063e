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


def _report_values() -> st.SearchStrategy[object]:
    """JSON-ready values with what reports meet: ±inf and NaN, integers of any length, deep lists."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=10**4400, max_value=10**4400 + 10**6),  # beyond Python's int/str limit
        st.floats(),  # NaN and ±inf included
        st.text(max_size=8),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    )


def _as_read_back(value: object) -> object:
    """What a report of ``value`` decodes to: NaN becomes None (``null``), everything else is kept."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return [_as_read_back(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_read_back(v) for k, v in value.items()}
    return value


@given(value=_report_values(), spaced=st.booleans(), depth=st.integers(0, 300))
def test_dumps_report_is_valid_json_that_reads_back_to_the_value(value: object, spaced: bool, depth: int) -> None:
    """``dumps_report`` (the CLI's reports): strict JSON (no ``Infinity``/``NaN``) on any value, which the
    strict decoder reads back to the value (``±inf`` as ``±1e999``, NaN as ``null``, every digit kept)."""
    from hermes_toolcall._jsonio import dumps_report

    for _ in range(depth):
        value = [value]
    text = dumps_report(value, spaced=spaced)
    assert loads(text) == _as_read_back(value)  # the strict decoder refuses Infinity and NaN


_DIGITY = st.text(alphabet=st.sampled_from("0123456789019.-e\"[ ,é東\ud800\U0001f600٣"), max_size=60)


@given(_DIGITY | st.text(max_size=40))
def test_long_digit_prefilter_is_the_expression(text: str) -> None:
    """The C prefilter of integers beyond 64 bits says what the regular expression says (non-ASCII digits such
    as ٣ are not JSON digits; a lone surrogate does not stop it)."""
    from hermes_toolcall import _jsonio as jsonio

    assert jsonio._long_digits(text) is (jsonio._LONG_DIGITS(text) is not None)


@pytest.mark.parametrize(
    ("text", "long"),
    [("9" * 19, True), ("0" + "9" * 18, False), ("0" * 25, False), ("0" * 5 + "1" * 19, True), ("٣" * 30, False),
     ("\ud800" + "1" * 19, True), ("1" * 18 + "é" + "1", False), ("", False)],
)
def test_long_digit_prefilter_cases(text: str, long: bool) -> None:
    from hermes_toolcall import _jsonio as jsonio

    assert jsonio._long_digits(text) is long
    assert (jsonio._LONG_DIGITS(text) is not None) is long
