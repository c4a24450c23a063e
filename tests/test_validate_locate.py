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


# documents written member by member: keys repeated, spelled with \u and \/ escapes or as is, keys that
# are also string values, so the "written once" shortcut of a valid document meets every way to miss
_KEYS = st.sampled_from(["a", "b", "a/b", "messages", "é", "x\ny", 'q"', "\\", ""])


def _spell(key: str, how: int) -> str:
    if how == 1:  # every character as \uXXXX
        return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else json.dumps(c)[1:-1] for c in key) + '"'
    if how == 2:  # / as \/
        return json.dumps(key).replace("/", "\\/")
    return json.dumps(key, ensure_ascii=False)


_DOCS: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.integers() | _KEYS,
    lambda kids: st.lists(kids, max_size=3).map(lambda items: ("list", items))
    | st.lists(st.tuples(_KEYS, st.integers(0, 2), kids), max_size=4).map(lambda members: ("object", members)),
    max_leaves=12,
)


def _write(doc: Any) -> str:
    if isinstance(doc, tuple) and doc[0] == "list":
        return "[" + ", ".join(_write(d) for d in doc[1]) + "]"
    if isinstance(doc, tuple):
        return "{" + ", ".join(f"{_spell(k, how)}: {_write(v)}" for k, how, v in doc[1]) + "}"
    return json.dumps(doc, ensure_ascii=False)


@settings(max_examples=300)
@given(_DOCS, st.lists(st.sampled_from(["a", "b", "a/b", "messages", "é", "zz", 0, 1, 2]), max_size=3))
@example(("object", [("a", 0, 1), ("a", 1, 2)]), ["a"])
@example(("object", [("a/b", 0, 1), ("a/b", 2, 2)]), ["a/b"])
@example(("object", [("a", 0, ("object", [("b", 0, 1)])), ("b", 0, "a")]), ["a", "b"])
def test_locate_in_a_valid_document_is_the_full_scan(doc: Any, extra: list[Any]) -> None:
    """``valid=True`` (a key written once is not looked for further) finds what the full scan finds."""
    text = _write(doc)
    value = json.loads(text)  # a valid document (repeated keys: the last kept)
    for path in [*_paths(value), tuple(extra)]:
        full = locate(text, path)
        assert locate(text, path, valid=True) == full
        if path in _paths(value):
            assert full is not None and json.loads(text[full[0] : full[1]]) == _at(value, path)


def test_regression_locate_valid_stops_only_at_a_key_written_once() -> None:
    """A repeated key (as is, or escaped) is found at its last member; a key once, at its only one."""
    assert locate('{"a": 1, "a": 2}', ("a",), valid=True) == (14, 15)
    assert locate('{"a": 1, "\\u0061": 2}', ("a",), valid=True) == (19, 20)
    assert locate('{"a/b": 1, "a\\/b": 2}', ("a/b",), valid=True) == (19, 20)
    assert locate('{"a": 1, "b": [2, "x"]}', ("a",), valid=True) == (6, 7)
