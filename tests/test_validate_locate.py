"""Locating JSON values in their source text (how dataset findings get a line:column)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._locate import locate, string_offset

_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_values = st.recursive(
    _scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=20,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@settings(max_examples=300)
@given(_values, st.booleans(), st.booleans())
@example({'a"b': [1, {"c": "x\\y"}]}, False, True)
def test_locate_finds_every_value(value: Any, ascii_only: bool, spaced: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":"))
    for path in _paths(value):
        found = locate(text, path)
        assert found is not None
        assert json.loads(text[found[0] : found[1]]) == _at(value, path)


def test_locate_missing_paths() -> None:
    assert locate('{"a": 1}', ("b",)) is None
    assert locate('{"a": [1]}', ("a", 3)) is None
    assert locate('{"a": 1}', (0,)) is None
    assert locate('{"a": 1', ("a",)) == (6, 7)
    assert locate('{"a": "unterminated', ("a",)) is None


@settings(max_examples=300)
@given(st.text(), st.booleans())
@example('é😀\n"\\', True)
def test_string_offset_maps_decoded_to_raw(s: str, ascii_only: bool) -> None:
    token = json.dumps(s, ensure_ascii=ascii_only)
    for i in range(len(s) + 1):
        raw = string_offset(token, 0, i)
        assert json.loads(token[:raw] + '"') == s[:i]
