"""``_fastjson.spaced`` is byte-identical to ``jsonio.dumps_spaced`` (Python's ``json.dumps``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._fastjson import spaced
from hermes_toolcall._jsonio import dumps_spaced

_text = st.one_of(st.text(st.characters(codec="utf-8"), max_size=6), st.sampled_from([",", ":", ", ", '":"', "1.5e+3"]))
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), _text)
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
def test_spaced_is_json_dumps(value: Any) -> None:
    assert spaced(value) == dumps_spaced(value)


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
