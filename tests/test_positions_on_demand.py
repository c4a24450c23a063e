"""Positions on demand (issue 10, the model change): parts and turns store offsets, not Span objects.

docs/parsing.md "Positions" promises: ``part.span``, ``Turn.header`` and ``Turn.end`` are the spans
the eager model stored (the 1-based line of ``start``, counting ``\\n`` only, and its column in code
points), in any order of access; equality, hashing, ``repr``, pickling, copying and
``dataclasses.replace`` work on the public view, however the positions are stored; a whole-text
value equals the stream engine's; ``public_fields`` lists what a value shows. Each test below
checks one of those promises; the memory figure itself is in bench/parse.py.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import tracemalloc
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import soup
from hermes_toolcall import StreamParser, parse_completion, parse_transcript, sequential_ids
from hermes_toolcall._model import (
    InvalidToolCall,
    Reasoning,
    Span,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Transcript,
    Turn,
    as_dict,
    public_fields,
)
from hermes_toolcall.testing._strategies import adversarial_texts, completions, rendered_transcripts
from test_parse_memory import call_dense


def eager(source: str, start: int, end: int) -> Span:
    """The span the eager model stored: line:column of ``start`` counted from the text itself."""
    line_start = source.rfind("\n", 0, start) + 1
    return Span(start=start, end=end, line=source.count("\n", 0, start) + 1, column=start - line_start + 1)


def positioned(result: Any) -> list[tuple[Span | None, int, int]]:
    """Every on-demand span of a result with the offsets it was stored from, in document order."""
    out: list[tuple[Span | None, int, int]] = []
    parts: list[Any] = list(result.parts) if not isinstance(result, Transcript) else [*result.gaps]
    if isinstance(result, Transcript):
        for turn in result.turns:
            out.append((turn.span, turn._start, turn._end))
            out.append((turn.header, turn._start, turn._hend))
            if turn._estart is not None:
                out.append((turn.end, turn._estart, turn._end))
            else:
                assert turn.end is None and not turn.closed
            parts += turn.parts
    out += [(p.span, p._start, p._end) for p in parts]
    return out


def assert_spans_are_the_eager_ones(result: Any, source: str) -> None:
    got = positioned(result)
    for span, start, end in got:
        assert span == eager(source, start, end)
    # asked again in reverse (the line index moves back): the same spans
    for span, start, end in reversed(got):
        assert span == eager(source, start, end)


TEXTS = st.one_of(
    soup,
    adversarial_texts(),
    completions(),
    rendered_transcripts(),
    rendered_transcripts().map(lambda t: t.replace("\n", "\r\n")),  # CRLF: \r is a character of the line
    st.text(),  # lone surrogates, NUL, BOM, any code point: columns count code points
)


@settings(max_examples=200)
@given(text=TEXTS)
@example(text="a\r\n<|im_start|>user\r\nhi\ud800\U0001f600 there<|im_end|>\r\n<|im_start|>assistant\n")
@example(text=call_dense(3))
def test_spans_on_demand_are_the_eager_spans(text: str) -> None:
    for result in (parse_transcript(text, ids=sequential_ids()), parse_completion(text, ids=sequential_ids())):
        assert_spans_are_the_eager_ones(result, text)


def test_spans_on_demand_on_a_huge_input() -> None:
    """2 MB, 60,000 lines: spans asked in document order, in reverse, and at random are the eager ones."""
    text = call_dense(6500)
    result = parse_transcript(text, ids=sequential_ids())
    got = positioned(result)
    assert len(got) > 50_000
    for span, start, end in got[::97] + got[::-89] + got[:: len(got) // 7]:
        assert span == eager(text, start, end)
    last = result.turns[-1]
    assert last.end == eager(text, len(text) - 11, len(text) - 1)


@settings(max_examples=100)
@given(text=st.one_of(soup, adversarial_texts(), rendered_transcripts()), cuts=st.integers(1, 9))
def test_whole_text_values_equal_the_stream_values(text: str, cuts: int) -> None:
    """The stream stores its spans eagerly, the grammar engine on demand: the values are equal anyway,
    and so are their hashes where they have one."""
    whole = parse_transcript(text, ids=sequential_ids())
    stream = StreamParser(level="transcript", ids=sequential_ids())
    size = max(1, len(text) // cuts)
    for i in range(0, len(text), size):
        stream.feed(text[i : i + size])
    stream.close()
    streamed = stream.result()
    assert streamed == whole
    for a, b in zip(whole.gaps, streamed.gaps, strict=True):
        assert hash(a) == hash(b)
    for ta, tb in zip(whole.turns, streamed.turns, strict=True):
        assert repr(ta) == repr(tb)
        if all(not isinstance(p, ToolCall | ToolsBlock) for p in ta.parts):
            assert hash(ta) == hash(tb)


@settings(max_examples=100)
@given(text=st.one_of(soup, rendered_transcripts(), completions()))
def test_two_parses_are_equal_and_survive_pickle_and_copy(text: str) -> None:
    a = parse_transcript(text, ids=sequential_ids())
    b = parse_transcript(str(text), ids=sequential_ids())
    assert a == b
    for value in (*a.turns, *a.gaps):
        for other in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert other == value and repr(other) == repr(value)
            assert "_pos" not in repr(other)
    assert pickle.loads(pickle.dumps(a)) == a


def test_a_pickled_part_does_not_carry_the_source() -> None:
    """Regression guard: a part from a whole-text parse refers to the parse's line index (and so to the
    source); pickled or copied, it holds its span instead."""
    text = "x" * 100_000 + '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    call = parse_completion(text).tool_calls[0]
    assert len(pickle.dumps(call)) < 1000
    assert copy.copy(call)._pos == call.span


SPAN = Span(start=4, end=9, line=2, column=3)
OTHER = Span(start=4, end=9, line=3, column=1)  # same offsets, another line: not equal


@pytest.mark.parametrize(
    "make",
    [
        lambda s: Text(text="hi", span=s),
        lambda s: Reasoning(kind="think", text="t", span=s, closed=False),
        lambda s: ToolCall(index=0, id="c", name="f", arguments={}, arguments_json="{}", raw="r", span=s),
        lambda s: InvalidToolCall(id="c", raw="r", span=s, code="HT102", message="m"),
        lambda s: ToolResponse(content="42", raw="r", span=s),
        lambda s: ToolsBlock(text="", tools=(), span=s),
    ],
    ids=["Text", "Reasoning", "ToolCall", "InvalidToolCall", "ToolResponse", "ToolsBlock"],
)
def test_part_constructors_equality_hash_replace(make: Any) -> None:
    value = make(SPAN)
    assert value.span is SPAN
    assert value == make(SPAN) and value != make(OTHER)  # line:column are compared, as before
    assert public_fields(value)[-1] != "_pos" and "span" in public_fields(value)
    shown = ", ".join(f"{n}={getattr(value, n)!r}" for n in public_fields(value))
    assert repr(value) == f"{type(value).__name__}({shown})"
    if not isinstance(value, ToolCall | ToolsBlock):
        assert hash(value) == hash(make(SPAN))
    moved = dataclasses.replace(value, span=OTHER)
    assert moved.span == OTHER and moved == make(OTHER)
    renamed = dataclasses.replace(value, raw="z") if hasattr(value, "raw") else dataclasses.replace(value, text="z")
    assert renamed.span == SPAN
    with pytest.raises(dataclasses.FrozenInstanceError):
        value._start = 0
    with pytest.raises(TypeError, match="span"):
        type(value)(**{n: getattr(value, n) for n in public_fields(value) if n != "span"})
    assert pickle.loads(pickle.dumps(value)) == value


def test_turn_replace_keeps_or_overrides_each_span() -> None:
    text = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>user\nyo"
    closed, open_ = parse_transcript(text).turns
    assert closed.closed and not open_.closed
    assert dataclasses.replace(closed, role="x").header == closed.header
    unclosed = dataclasses.replace(closed, end=None)
    assert unclosed.end is None and not unclosed.closed and unclosed.span == closed.span
    assert unclosed != closed
    rebuilt = Turn(role="user", parts=closed.parts, span=closed.span, header=closed.header, end=closed.end)
    assert rebuilt == closed and hash(rebuilt) == hash(closed) and repr(rebuilt) == repr(closed)
    with pytest.raises(TypeError, match="end"):
        Turn(role="user", parts=(), span=SPAN, header=SPAN)  # type: ignore[call-arg]


def test_the_whole_text_parse_stores_no_span_objects() -> None:
    """Regression: 14 Span objects per call-dense exchange (2.8x the input) and their line numbers
    (1.0x) lived in the result; now the parts hold offsets and the parse's one line index."""
    text = call_dense(200)
    result = parse_transcript(text, ids=sequential_ids())
    gc.collect()
    assert not [o for o in gc.get_referents(*result.turns, *result.gaps) if type(o) is Span]
    parts = [p for t in result.turns for p in t.parts]
    assert len({id(p._pos) for p in [*parts, *result.turns, *result.gaps]}) == 1


def test_call_dense_result_is_under_ten_times_the_input() -> None:
    """The issue's goal, with margin for the peak's 0.1x: the retained result of a call-dense parse."""
    text = call_dense(1500)  # 475 KB
    parse_transcript(text[:5000], ids=sequential_ids())
    gc.collect()
    tracemalloc.start()
    try:
        result = parse_transcript(text, ids=sequential_ids())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.turns
    size = len(text.encode())
    assert peak < 10 * size, peak / size


def test_public_view_as_dict_and_fields() -> None:
    """``as_dict``/``public_fields`` show the spans; ``dataclasses.fields`` shows what is stored."""
    result = parse_transcript("<|im_start|>user\nhi<|im_end|>\n")
    turn = result.turns[0]
    shown = as_dict(turn)
    assert list(shown) == ["role", "parts", "span", "header", "end"]
    assert shown["end"] == {"start": 19, "end": 29, "line": 2, "column": 3}
    assert shown["parts"] == ({"text": "hi", "span": {"start": 17, "end": 19, "line": 2, "column": 1}},)
    assert [f.name for f in dataclasses.fields(turn)] == ["role", "parts", "_start", "_end", "_hend", "_estart", "_pos"]
    assert public_fields(Turn) == ("role", "parts", "span", "header", "end")
    assert as_dict(result.diagnostics) == ()
