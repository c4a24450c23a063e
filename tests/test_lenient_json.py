"""Tests of the tolerant JSON reader (`hermes_toolcall._lenient_json`)."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import hermes_toolcall._lenient_json as lenient_json
from hermes_toolcall._lenient_json import LenientResult, loads_lenient, scan
from hermes_toolcall.errors import DecodeError, HermesError
from hypothesis_stats import count, examples

pytest_plugins = ["hypothesis_stats"]


def codes(result: LenientResult) -> list[str]:
    return [r.code for r in result.recoveries]


def only(result: LenientResult) -> Any:
    assert result.error is None, result.error
    assert len(result.values) == 1
    return result.values[0].value


def test_doctests() -> None:
    assert doctest.testmod(lenient_json).failed == 0


# ---- strict JSON is read unchanged, with no recovery ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"query": "what\'s the weather"}',
        '{"a": [1, -2.5e3, true, false, null, "x\\"y\\\\z\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"]}',
        "[]",
        "{}",
        '"plain"',
        "0",
        "-0.0",
    ],
)
def test_strict_json_needs_no_recovery(text: str) -> None:
    result = scan(text)
    assert only(result) == json.loads(text)
    assert codes(result) == []


# ---- HT202 Python literals ---------------------------------------------------------------------------


def test_python_literal_dict_seed_7() -> None:
    text = "{'arguments': {'symbol': 'TSLA'}, 'name': 'get_stock_fundamentals'}"
    result = scan(text)
    assert only(result) == {"arguments": {"symbol": "TSLA"}, "name": "get_stock_fundamentals"}
    assert set(codes(result)) == {"HT202"}
    assert result.recoveries[0].start == 1 and result.recoveries[0].end == 12  # the first quoted key


def test_python_words_are_recovered_with_their_span() -> None:
    result = scan('{"a": True, "b": False, "c": None}')
    assert only(result) == {"a": True, "b": False, "c": None}
    assert [(r.code, r.start, r.end) for r in result.recoveries] == [
        ("HT202", 6, 10),
        ("HT202", 17, 22),
        ("HT202", 29, 33),
    ]


def test_apostrophe_escaped_in_single_quotes_follows_python_repr() -> None:
    assert only(scan(r"'it\'s \"quoted\"'")) == "it's \"quoted\""
    assert only(scan(repr("it's \"both\""))) == "it's \"both\""


def test_python_repr_double_quoted_string_with_apostrophe() -> None:
    text = repr({"query": "what's the weather"})
    assert text == "{'query': \"what's the weather\"}"
    assert only(scan(text)) == {"query": "what's the weather"}


def test_unescaped_apostrophe_ends_a_single_quoted_string() -> None:
    result = scan("{'query': 'what's the weather'}")
    assert result.error is not None
    assert result.error.position == 16  # the `s` after the closing quote of 'what'
    assert not result.error.truncated


def test_python_escapes_in_single_quotes() -> None:
    assert only(scan(r"'\x41\u00e9\U0001F600\101\a\v\0'")) == "A\u00e9\U0001f600A\x07\x0b\x00"
    assert only(scan("'a\\\nb'")) == "ab"  # line continuation
    assert only(scan(r"'\d+\/'")) == "\\d+\\/"  # unknown escapes keep their backslash, as in Python


def test_python_only_escape_in_double_quotes_is_ht202() -> None:
    result = scan(r'{"a": "it\'s \x41"}')
    assert only(result) == {"a": "it's A"}
    assert set(codes(result)) == {"HT202"}


def test_unknown_escape_in_double_quotes_is_an_error() -> None:
    result = scan(r'{"pattern": "\d+"}')
    assert result.error is not None and result.error.position == 13
    assert "invalid escape" in result.error.message


def test_identifier_boundary() -> None:
    result = scan('{"a": Trueish}')
    assert result.error is not None and "Trueish" in result.error.message


# ---- HT203, HT204 ------------------------------------------------------------------------------------


def test_trailing_commas() -> None:
    result = scan('{"a": [1, 2,], "b": {"c": 1,},}')
    assert only(result) == {"a": [1, 2], "b": {"c": 1}}
    assert [(r.code, r.start) for r in result.recoveries] == [("HT203", 11), ("HT203", 27), ("HT203", 29)]


def test_double_comma_is_an_error() -> None:
    assert scan("[1,,2]").error is not None
    assert scan("{,}").error is not None


def test_raw_control_characters() -> None:
    result = scan('{"content": "line1\nline2\tend"}')
    assert only(result) == {"content": "line1\nline2\tend"}
    assert [(r.code, r.start, r.end) for r in result.recoveries] == [("HT204", 18, 19), ("HT204", 24, 25)]


def test_unescaped_double_quote_ends_the_string() -> None:
    result = scan('{"content":"He said "hello" to me"}')
    assert result.error is not None
    assert result.error.position == 21 and "expected ',' or '}'" in result.error.message


# ---- HT208 concatenation, prefix mode ---------------------------------------------------------------


@pytest.mark.parametrize("sep", ["", " ", "\n", ",", "; ", " , ;\n"])
def test_concatenated_values(sep: str) -> None:
    text = '{"a": 1}' + sep + "[2]"
    result = scan(text)
    assert result.error is None
    assert [v.value for v in result.values] == [{"a": 1}, [2]]
    assert [(r.code, r.start, r.end) for r in result.recoveries] == [("HT208", 8 + len(sep), len(text))]


def test_concatenation_refused_when_single_value_asked() -> None:
    result = scan('{"a": 1}{"b": 2}', multiple=False)
    assert result.error is not None and result.error.position == 8


def test_prose_after_a_value_is_an_error() -> None:
    result = scan('{"a": 1} I hope this helps')
    assert result.error is not None and result.error.position == 9 and not result.error.truncated


def test_prefix_mode_stops_after_one_value() -> None:
    result = scan('xx{"a": {"b": 1}}}} tail', 2, prefix=True)
    assert result.error is None
    top = result.values[0]
    assert (top.value, top.start, top.end) == ({"a": {"b": 1}}, 2, 17)


# ---- truncation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['{"a', '{"a"', '{"a":', '{"a": "x', '{"a": "x\\', '{"a": "\\u00', '{"a": tr', "{'a': N", '{"a": -',
     '{"a": 1.', '{"a": 1e', '{"a": 12', '{"a": [1, 2', '{"a": 1,', '{"a": 1}, ', "[", "  "],
)
def test_truncated_inputs_are_flagged(text: str) -> None:
    result = scan(text)
    assert result.error is not None
    assert result.error.truncated, result.error
    assert result.error.position == len(text)


@pytest.mark.parametrize("text", ['{"a": x', '{"a": 1 2', "{a: 1}", '{"a": NaN}', '{"a": "\\u12G4"}', "[1,,", "}"])
def test_errors_in_the_middle_are_not_truncation(text: str) -> None:
    result = scan(text)
    assert result.error is not None
    assert not result.error.truncated, result.error


def test_error_positions_are_offsets_into_the_whole_text() -> None:
    result = scan('   {"a" 1}   ', 3, 10)
    assert result.error is not None and result.error.position == 8


def test_depth_limit_is_an_error_not_a_crash() -> None:
    deep = "[" * 5000 + "]" * 5000
    result = scan(deep)
    assert result.error is not None and "nesting" in result.error.message


def test_members_and_first_name() -> None:
    text = '{"arguments": {"x": 1}, "name": "f", "extra": [1]}'
    result = scan(text)
    top = result.values[0]
    assert [(m.key, text[m.key_start : m.key_end], text[m.value_start : m.value_end]) for m in top.members] == [
        ("arguments", '"arguments"', '{"x": 1}'),
        ("name", '"name"', '"f"'),
        ("extra", '"extra"', "[1]"),
    ]
    assert result.first_name == "f"
    broken = scan('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": "y')
    assert broken.error is not None and broken.first_name == "a"


def test_loads_lenient_raises_a_hermes_error() -> None:
    with pytest.raises(DecodeError) as info:
        loads_lenient("{'a': ")
    assert isinstance(info.value, HermesError) and info.value.position == 6


# ---- properties -----------------------------------------------------------------------------------------

_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_json_values = st.recursive(
    _json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=examples(200))
@given(_json_values, st.sampled_from([None, 0, 2]), st.sampled_from([(", ", ": "), (",", ":")]), st.booleans())
def test_property_json_reads_as_json(value: Any, indent: int | None, seps: tuple[str, str], ascii_: bool) -> None:
    count("lenient_json: JSON text reads unchanged")
    text = json.dumps(value, indent=indent, separators=seps, ensure_ascii=ascii_)
    result = scan(text)
    assert only(result) == value
    assert codes(result) == []


@settings(max_examples=examples(200))
@given(_json_values)
@example({"q": "what's \"this\"", "n": None, "t": True})
@example({"c": "\x00\x1f\x7f\u2028\ud7ff\U0001f600"})
def test_property_python_repr_reads_back(value: Any) -> None:
    count("lenient_json: repr() reads back")
    result = scan(repr(value))
    assert only(result) == value


@settings(max_examples=examples(300))
@given(st.text(alphabet=st.sampled_from(list("{}[]\"',:;\\ \n\tTrueFalsNn0123456789.-eExu'é\x00")), max_size=40))
@example("'\\")
@example('"\\u')
@example("[" * 300)
def test_property_never_raises(text: str) -> None:
    count("lenient_json: never raises")
    for multiple in (True, False):
        result = scan(text, multiple=multiple)
        if result.error is None:
            assert result.values
        else:
            assert 0 <= result.error.position <= len(text)


# ---- recoveries repair to strict JSON (issue 30: a planted bug that let a trailing comma accept the wrong
# closer, ``{"a": 1,]`` read as a valid object with only HT203, passed the whole suite) -------------------

_CLOSERS = "}]"


@st.composite
def _damaged(draw: st.DrawFn) -> str:
    """A JSON or Python-repr text with closers swapped, dropped or duplicated, trailing commas added before
    closers, escapes turned into raw control characters and JSON words into Python ones."""
    value = draw(_json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans())) if draw(st.booleans()) else repr(value)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        spots = [i for i, c in enumerate(text) if c in _CLOSERS]
        op = draw(st.sampled_from(("swap", "drop", "duplicate", "comma", "comma", "control", "word")))
        if op in ("swap", "drop", "duplicate", "comma") and spots:
            i = draw(st.sampled_from(spots))
            closer = text[i]
            if op == "swap":
                text = text[:i] + ("]" if closer == "}" else "}") + text[i + 1 :]
            elif op == "drop":
                text = text[:i] + text[i + 1 :]
            elif op == "duplicate":
                text = text[:i] + closer + text[i:]
            else:
                text = text[:i] + draw(st.sampled_from([",", ", ", ",\n"])) + text[i:]
        elif op == "control":
            for escape, raw in (("\\n", "\n"), ("\\t", "\t"), ("\\u0000", "\x00"), ("\\r\\n", "\r\n")):
                if escape in text:
                    text = text.replace(escape, raw, 1)
                    break
        elif op == "word":
            for word, py in (("true", "True"), ("false", "False"), ("null", "None")):
                if word in text:
                    text = text.replace(word, py, 1)
                    break
    return text


def _escape_controls(literal: str) -> str:
    """A Python string literal with its raw control characters (kept by HT204) written as escapes; a
    backslash and what follows it (a line continuation too) are left as they are."""
    out, i = [], 0
    while i < len(literal):
        c = literal[i]
        if c == "\\":
            out.append(literal[i : i + 2])
            i += 2
            continue
        out.append(f"\\x{ord(c):02x}" if ord(c) < 0x20 else c)
        i += 1
    return "".join(out)


def _repair(text: str, recoveries: Any) -> str:
    """``text`` with each recovered span written as strict JSON (an inner span of an outer one goes with it)."""
    import ast

    spans = []
    for r in recoveries:  # position order
        if spans and r.start < spans[-1].end:
            continue  # inside the previous one (a raw control character inside a single-quoted string)
        spans.append(r)
    out = text
    for r in reversed(spans):
        piece = text[r.start : r.end]
        if r.code == lenient_json.TRAILING_COMMA:
            fixed = ""
        elif r.code == lenient_json.CONTROL_CHARACTERS:
            fixed = "".join(f"\\u{ord(c):04x}" for c in piece)
        elif r.code == lenient_json.PYTHON_LITERAL and piece in ("True", "False", "None"):
            fixed = {"True": "true", "False": "false", "None": "null"}[piece]
        elif r.code == lenient_json.PYTHON_LITERAL and piece.startswith("'"):
            fixed = json.dumps(ast.literal_eval(_escape_controls(piece)))  # Python's own reading of the string
        elif r.code == lenient_json.PYTHON_LITERAL and piece.startswith("\\"):
            fixed = json.dumps(ast.literal_eval('"' + piece + '"'))[1:-1]  # one Python-only escape
        else:
            raise AssertionError(f"unexpected recovery {r} over {piece!r}")
        out = out[: r.start] + fixed + out[r.end :]
    return out


@settings(max_examples=examples(400))
@given(_damaged())
@example('{"a": 1,]')
@example("[1, 2,}")
@example('{"a": [1,}, "b": 2}')
@example("{'a': [True, None,],}")
def test_property_recoveries_repair_to_strict_json_of_the_same_value(text: str) -> None:
    """Text read with only recoveries is, with the recovered bytes repaired, strict JSON of the same value:
    a recovery never accepts structure (a wrong or missing closer) that JSON would not."""
    result = scan(text, multiple=False)
    if result.error is not None:
        count("lenient_json: damaged text refused")
        return
    count("lenient_json: damaged text read, repaired to strict JSON")
    repaired = _repair(text, result.recoveries)
    try:
        strict = json.loads(repaired, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    except json.JSONDecodeError as exc:
        pytest.fail(f"{text!r} was read as {only(result)!r} with {codes(result)}, but repaired it is not JSON: "
                    f"{repaired!r} ({exc})")
    assert json.dumps(strict, sort_keys=True) == json.dumps(only(result), sort_keys=True)
