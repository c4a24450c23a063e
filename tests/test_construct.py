"""_construct.py: the positional constructors build the same values as the dataclass constructors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hermes_toolcall import _construct as construct
from hermes_toolcall._model import Completion, Reasoning, Span, Text, ToolCall, ToolResponse, Turn, public_fields

SPAN = Span(start=3, end=9, line=2, column=1)
HEADER = Span(start=3, end=5, line=2, column=1)
CALL = {
    "index": 0,
    "id": "call_1",
    "name": "f",
    "arguments": {"a": 1},
    "arguments_json": '{"a": 1}',
    "raw": "<tool_call>…",
}
# (constructor, class, its positional arguments, the same value's keyword arguments): the positional
# constructors take the offsets and the position source (here the span itself, eagerly) for ``span``
CASES: list[tuple[Any, type[Any], tuple[Any, ...], dict[str, Any]]] = [
    (construct.new_span, Span, (3, 9, 2, 1), {"start": 3, "end": 9, "line": 2, "column": 1}),
    (construct.new_text, Text, ("hi", 3, 9, SPAN), {"text": "hi", "span": SPAN}),
    (
        construct.new_reasoning,
        Reasoning,
        ("think", "t", 3, 9, SPAN, True, False),
        {"kind": "think", "text": "t", "span": SPAN, "opened": True, "closed": False},
    ),
    (construct.new_tool_call, ToolCall, (*CALL.values(), 3, 9, SPAN, True), {**CALL, "span": SPAN, "closed": True}),
    (
        construct.new_tool_response,
        ToolResponse,
        ("42", "<tool_response>42", 3, 9, SPAN, None, False),
        {"content": "42", "raw": "<tool_response>42", "span": SPAN, "name": None, "closed": False},
    ),
    (
        construct.new_turn,
        Turn,
        ("user", (), 3, 9, 5, None, (SPAN, HEADER, None)),
        {"role": "user", "parts": (), "span": SPAN, "header": HEADER, "end": None},
    ),
    (
        construct.new_completion,
        Completion,
        ((), (), "hi<|im_end|>", SPAN, None),
        {"parts": (), "diagnostics": (), "source": "hi<|im_end|>", "end": SPAN, "stopped_at": None},
    ),
]


@pytest.mark.parametrize(("make", "cls", "args", "fields"), CASES, ids=[c[1].__name__ for c in CASES])
def test_positional_value_is_the_dataclass_value(
    make: Any, cls: type[Any], args: tuple[Any, ...], fields: dict[str, Any]
) -> None:
    assert public_fields(cls) == tuple(fields)  # every public field, in declaration order
    assert len(dataclasses.fields(cls)) == len(args)  # every stored field, positionally
    fast = make(*args)
    slow = cls(**fields)
    assert type(fast) is cls
    assert fast == slow
    assert all(getattr(fast, k) == v for k, v in fields.items())
    if any(isinstance(v, dict) for v in fields.values()):  # a dict field makes the value unhashable
        with pytest.raises(TypeError):
            hash(fast)
    else:
        assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(fast, next(iter(fields)), None)


def test_a_class_with_post_init_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="__post_init__"):
        construct.positional(Checked)


def test_a_draft_becomes_the_value_and_the_stream_s_spans_and_deltas_are_values() -> None:
    from hermes_toolcall._events import ArgumentsDelta, ReasoningDelta, TextDelta
    from hermes_toolcall.statemachine import StreamParser
    from hermes_toolcall.statemachine._buffer import Lines

    span = Lines(["ab", "\ncd"]).span(4, 5)
    assert type(span) is Span and span == Span(start=4, end=5, line=2, column=2) and hash(span) == hash(span)
    with pytest.raises(dataclasses.FrozenInstanceError):
        span.line = 1  # type: ignore[misc]
    parser = StreamParser(stream_arguments=True)
    events = parser.feed('<think>a</think>b<tool_call>{"name": "f", "arguments": {"x": 1') + parser.close()
    assert TextDelta(text="b") in events
    assert ReasoningDelta(kind="think", text="a") in events
    assert any(type(e) is ArgumentsDelta for e in events)
    for event in events:
        assert not type(event).__name__.endswith("Draft")
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, dataclasses.fields(event)[0].name, None)


def test_a_class_whose_layout_differs_has_no_draft() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    with pytest.raises(TypeError):
        construct.draft(NoSlots)
    with pytest.raises(TypeError):
        construct.positional(NoSlots)
